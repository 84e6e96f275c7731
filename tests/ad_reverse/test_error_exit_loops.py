"""Loops with an error branch that ends the program (issue 18, item 1).

Public numerical code checks its data inside its loops and stops on bad input:
``if (vol <= 0) { fprintf(stderr, ...); exit(1); }``, ``assert(h > 0)``,
``if (isnan(r)) abort();``. Such a branch leaves the loop into a block that never returns,
so the reverse pass never runs after it: for reverse mode the loop has one exit. Before,
the second exit made the loop "multi-exit": its trip count was unknown (the counter of
every execution was taped) and values defined outside it (a scratch buffer's address,
a bound) were taped once per iteration instead of once per execution of the loop.

Each program is checked by the dot-product test at -O0..-O3 (the error branches are
never taken on its inputs), and the explain report of each is compared with the report
of the same program whose checks are compiled out (``CHECK`` defined empty, same lines):
an error branch may not add a byte to the tape (per loop nest).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from reverse_dot_product import check_program

import irgrad

HEADER = """
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
#define NOINLINE __attribute__((noinline))
int N = 6, CYCLES = 3; /* trip counts the optimizer cannot fold */
"""
WITH_CHECKS = """
#define CHECK(cond, what) \\
  do { if (!(cond)) { fprintf(stderr, "bad %s\\n", what); exit(2); } } while (0)
"""
WITHOUT_CHECKS = """
#define CHECK(cond, what) \\
  ((void)0)
"""
WRAPPER = """
void grad(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
void primal(const double *x, double *y) { F(x, y); }
"""

# name -> (n inputs, m outputs, C defining `static void F(const double *x, double *y)`)
PROGRAMS: dict[str, tuple[int, int, str]] = {
    # a mini-app cycle: per-element forces into a scratch array malloc'd per cycle, an
    # inverted element stops the run, then a gather to the nodes
    "element_check_exit": (6, 6, """
NOINLINE static void forces(double *x, int n) {
  double *f = malloc(sizeof(double) * 2 * n);
  for (int k = 0; k < n; k++) {
    double vol = 1.0 + x[k] * x[(k + 1) % n];
    CHECK(vol > 0.0, "inverted element");
    f[2 * k] = x[k] / sqrt(vol);
    f[2 * k + 1] = -x[(k + 1) % n] * vol;
  }
  for (int k = 0; k < n; k++) x[k] += 0.1 * (f[2 * k] + f[2 * ((k + n - 1) % n) + 1]);
  free(f);
}
static void F(const double *x, double *y) {
  double s[6];
  for (int i = 0; i < 6; i++) s[i] = x[i];
  for (int c = 0; c < CYCLES; c++) forces(s, N);
  for (int i = 0; i < 6; i++) y[i] = s[i] * s[(i + 2) % 6];
}"""),
    # assert() inside a doubly nested loop (the check is in the inner loop, whose exit
    # into __assert_fail leaves both loops)
    "assert_in_inner_loop": (6, 3, """
static void F(const double *x, double *y) {
  double acc[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < 3; i++) {
    double w = 0.5 + x[i] * x[i];
    for (int j = 0; j < N; j++) {
      double t = w * x[j] + x[(i + j) % 6];
      CHECK(t == t, "nan");
      acc[i] += t * sin(x[j]) / w;
    }
  }
  for (int i = 0; i < 3; i++) y[i] = acc[i] * acc[(i + 1) % 3];
}"""),
    # a fixed-point relaxation whose sweep aborts on a non-finite residual; the loop
    # bound is read from memory the sweep does not write
    "relaxation_abort": (6, 6, """
typedef struct { int n, sweeps; double omega; } opts;
NOINLINE static void relax(double *u, const double *b, const opts *o) {
  for (int s = 0; s < o->sweeps; s++) {
    double res = 0.0;
    for (int i = 1; i < o->n - 1; i++) {
      double r = b[i] - (2.0 * u[i] - u[i - 1] - u[i + 1]);
      u[i] += o->omega * 0.5 * r;
      res += r * r;
    }
    CHECK(isfinite(res), "residual");
  }
}
static void F(const double *x, double *y) {
  double u[6], b[6];
  for (int i = 0; i < 6; i++) { u[i] = 0.1 * i * x[i]; b[i] = x[(i + 3) % 6]; }
  opts o = {N, CYCLES + 1, 1.2};
  relax(u, b, &o);
  for (int i = 0; i < 6; i++) y[i] = u[i] * u[i] + b[i];
}"""),
}


def source_of(name: str, checks: bool) -> str:
    return HEADER + (WITH_CHECKS if checks else WITHOUT_CHECKS) + PROGRAMS[name][2] + WRAPPER


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    n, m, _ = PROGRAMS[name]
    check_program(source_of(name, checks=True), n, m, level, seed=5, label=(name, level))


def _tapes(reports: list[str]) -> list[dict[str, int]]:
    """Each derivative's peak tape as {loop nest: bytes per iteration of it} ('' for
    the bytes outside loops), the source paths cut off."""
    out: list[dict[str, int]] = []
    for r in reports:
        for ln in r.splitlines():
            if "peak tape:" not in ln:
                continue
            text = re.sub(r"/\S*/(checks|plain)\.c", "F.c", ln.split("peak tape:")[1])
            terms: dict[str, int] = {}
            for term in text.split(" (")[0].split(" + "):
                m = re.match(r"\s*(\d+) bytes(.*)", term)
                assert m is not None, ln
                terms[m.group(2).strip()] = int(m.group(1))
            out.append(terms)
    return out


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_error_branch_adds_no_tape(tmp_path: Any, name: str, level: int) -> None:
    checked, plain = tmp_path / "checks.c", tmp_path / "plain.c"
    checked.write_text(source_of(name, checks=True))
    plain.write_text(source_of(name, checks=False))
    with_checks = _tapes(irgrad.explain_ad(checked, opt_level=level))
    without = _tapes(irgrad.explain_ad(plain, opt_level=level))
    assert len(with_checks) == len(without), (with_checks, without)
    for w, p in zip(with_checks, without, strict=True):
        assert all(n <= p.get(nest, 0) for nest, n in w.items()), (
            f"the checks add tape: {w} with them, {p} without")


# The same rule without an error branch: a value used in both arms of an if and after
# it is popped once, where the merge block's reverse runs, instead of once per block.
BRANCHES = """
static void F(const double *x, double *y) {
  double s = 0.0;
  for (int i = 0; i < N; i++) {
    double v = exp(x[i] * x[(i + 1) % 6]);
    double w;
    if (x[(i + 2) % 6] > 0.5) w = sin(v) * v;
    else w = cos(v) / v;
    s += w * v;
    y[i % 3] += s * v;
  }
  y[3] = s;
}"""


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_value_used_in_both_arms_dot_product(level: int) -> None:
    source = HEADER + WITHOUT_CHECKS + BRANCHES + WRAPPER
    check_program(source, 6, 4, level, seed=3, label=("branches", level))


@pytest.mark.parametrize("level", [1, 2, 3])
def test_value_used_in_both_arms_taped_once(tmp_path: Any, level: int) -> None:
    src = tmp_path / "branches.c"
    src.write_text(HEADER + WITHOUT_CHECKS + BRANCHES + WRAPPER)
    (report,) = [r for r in irgrad.explain_ad(src, opt_level=level) if " of F " in r]
    cached = report.partition("recomputed in the reverse pass")[0]
    assert sum("@exp(" in ln for ln in cached.splitlines()) == 1, report
