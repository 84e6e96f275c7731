"""Pointers that walk arrays (``*p++``, ``row += n``, ``for (b = bodies; b < end; b++)``)
are recomputed in the reverse pass from the loop's counter, not taped per iteration.

A header phi of pointer type whose back-edge value is ``getelementptr phi, step`` (a
constant number of bytes, or a loop-invariant number of elements) is ``start`` advanced
by ``k`` steps at iteration ``k``; its shadow walks the shadow array with the same steps.
Before, each such pointer and its shadow took 16 bytes of tape per iteration: 16 MB for a
1000x1000 matrix-vector product written with pointer walks.

Programs where a wrong address would show: the walk's memory written in place (the loads
stay taped, the address is recomputed), walks downward, struct-sized steps, a run-time
step, a walk whose start changes per outer iteration, two shadows (both arrays active).
Every program passes the dot-product test at -O0..-O3; the explain report says that the
walking pointers are recomputed and that the tape does not grow with the inner loop.
"""

from __future__ import annotations

from typing import Any

import pytest
from reverse_dot_product import check_program

import irgrad

HEADER = """
#include <math.h>
#include <stddef.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 5, M = 3; /* sizes the optimizer cannot fold */
"""
WRAPPER = """
void grad(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
void primal(const double *x, double *y) { F(x, y); }
"""

MATVEC = """
static double ls_ptrwalk(const double *a, const double *x, const double *b, int m, int n) {
  double f = 0.0;
  const double *row = a, *end = a + (size_t)m * n, *bp = b;
  while (row < end) {
    const double *xp = x, *rend = row + n;
    double s = 0.0;
    while (row < rend) s += *row++ * *xp++;
    double r = s - *bp++;
    f += r * r;
  }
  return f;
}
"""

# name -> (n inputs, m outputs, C defining `static void F(const double *x, double *y)`)
PROGRAMS: dict[str, tuple[int, int, str]] = {
    # matrix and vector both active: two walking pointers and their two shadows
    "matvec_pointer_walk": (20, 1, MATVEC + """
static void F(const double *x, double *y) {
  double b[3] = {0.5, -0.25, 1.0};
  y[0] = ls_ptrwalk(x, x + 15, b, M, N);
}"""),
    # in-place update through a walking pointer: what it loads is overwritten, so the
    # loads are taped, but the addresses are still recomputed
    "in_place_scale_walk": (6, 6, """
static void F(const double *x, double *y) {
  double buf[6];
  for (int i = 0; i < 6; i++) buf[i] = x[i];
  for (int sweep = 0; sweep < M; sweep++) {
    double *p = buf, *end = buf + 6;
    double carry = 0.3;
    while (p < end) { double v = *p; *p++ = sin(v) * carry + v * v; carry = v; }
  }
  for (int i = 0; i < 6; i++) y[i] = buf[i];
}"""),
    # walking backwards with pre-decrement, as a reversed prefix sum is often written
    "suffix_sums_walking_down": (5, 5, """
static void F(const double *x, double *y) {
  const double *src = x + N;
  double *dst = y + N, acc = 0.0;
  while (src > x) { acc = acc * 0.9 + exp(*--src); *--dst = acc * acc; }
}"""),
    # a struct-sized step: an array of particles walked with `p++`
    "particles_struct_walk": (9, 3, """
typedef struct { double x, v, m; } particle;
static void F(const double *x, double *y) {
  particle ps[3], *p, *end = ps + 3;
  int k = 0;
  for (p = ps; p < end; p++, k += 3) { p->x = x[k]; p->v = x[k + 1]; p->m = 1.0 + x[k + 2]; }
  for (int s = 0; s < M; s++)
    for (p = ps; p < end; p++) { p->v -= 0.1 * p->x / p->m; p->x += 0.1 * p->v; }
  double *out = y;
  for (p = ps; p < end; p++) *out++ = p->x * p->v;
}"""),
    # a step known only at run time: column walk with a leading dimension
    "column_walk_runtime_stride": (15, 3, """
static double column_norm2(const double *a, int lda, int n) {
  double s = 0.0;
  for (const double *p = a, *end = a + (size_t)lda * n; p < end; p += lda) s += *p * *p;
  return s;
}
static void F(const double *x, double *y) {
  for (int j = 0; j < M; j++) y[j] = sqrt(column_norm2(x + j, M, N));
}"""),
}


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    n, m, body = PROGRAMS[name]
    check_program(HEADER + body + WRAPPER, n, m, level, seed=17, label=(name, level))


REPORT_SOURCE = HEADER + MATVEC + """
void grad(const double *a, const double *x, double *dx, const double *b, int m, int n) {
  __enzyme_autodiff((void *)ls_ptrwalk, enzyme_const, a, enzyme_dup, x, dx, enzyme_const, b,
                    enzyme_const, m, enzyme_const, n);
}
"""


@pytest.mark.parametrize("level", [1, 2, 3])
def test_report_recomputes_walking_pointers(tmp_path: Any, level: int) -> None:
    src = tmp_path / "walk.c"
    src.write_text(REPORT_SOURCE)
    (report,) = irgrad.explain_ad(src, opt_level=level)
    _, _, recomputed = report.partition("recomputed in the reverse pass")
    rows = recomputed.splitlines()
    counters = [k for k, ln in enumerate(rows) if "phi ptr" in ln]
    assert len(counters) >= 2 and all(
        "recomputed from the reverse loop's counter" in rows[k + 1] for k in counters), report
    # nothing is taped per inner iteration: the tape grows with the rows only
    peak = next(ln for ln in report.splitlines() if "peak tape" in ln)
    assert "x iterations of the loop at" in peak and peak.count("x iterations") == 1, report
