"""A callee whose caller passes it distinct buffers (issue 18, item 1).

A right-hand side ``rhs(y, dydt, ctx)`` or a product ``matvec(a, x, y, n)`` cannot tell
from its own code that ``y`` and ``dydt`` do not overlap: a store to ``dydt[i]`` might
change the ``y[j]`` it reads next, so its derivative had to tape ``y[j]`` once per
``(i, j)``. Its callers usually know better: they pass stage buffers they allocated
themselves, or one of their own allocations and memory they were given. The caller's
derivative now tells the callee's which pairs of pointer arguments point into different
objects (``irgrad.analysis.distinct_arguments``), through a function pointer's dispatcher
too, and the callee's derivative copies ``y`` once per call instead of taping it per
``(i, j)`` (``irgrad.ad.reverse.loop_snapshots``, the copy now on the tape: no malloc).

Where a caller passes the same buffer twice (an in-place product) or two halves of one
allocation, nothing is known and the callee tapes as before; a callee called both ways
gets one derivative of each kind. Every program is checked by the dot-product test at
-O0..-O3, and the explain report says whether the load marked READ was read from a copy.
"""

from __future__ import annotations

from typing import Any

import pytest
from explain_lines import marked_loads, report_of
from matrix_vector_driver import HEADER, driver
from reverse_dot_product import check_program

DRIVER = driver(0.5, 0.2)

MATVEC = """
__attribute__((noinline)) static void matvec(const double *a, const double *x, double *y,
                                             int n) {
  for (int i = 0; i < n; i++) {
    double t = 0.1;
    for (int j = 0; j < n; j++) {
      double xj = x[j]; /* READ */
      t += a[i * n + j] * xj;
    }
    y[i] = t / (1.0 + t * t);
  }
}
"""

# name -> (program defining f(a, x, n), the function holding READ, is READ copied?)
PROGRAMS: dict[str, tuple[str, str, bool]] = {
    # an explicit two-stage integrator calling its right-hand side through a function
    # pointer in a problem struct, with malloc'd stage buffers
    "callback_stages": ("""
typedef void (*rhs_fn)(const double *y, double *dydt, const void *ctx);
typedef struct { int n; const double *a; } linear_system;
typedef struct { rhs_fn f; const void *ctx; int n; } problem;

__attribute__((noinline)) static void rhs(const double *y, double *dydt, const void *ctx) {
  const linear_system *s = ctx;
  for (int i = 0; i < s->n; i++) {
    double t = 0.0;
    for (int j = 0; j < s->n; j++) {
      double yj = y[j]; /* READ */
      t += s->a[i * s->n + j] * yj;
    }
    dydt[i] = t * y[i];
  }
}

__attribute__((noinline)) void integrate(const problem *p, double *y, int steps, double h) {
  int n = p->n;
  double *k1 = malloc(sizeof(double) * n), *k2 = malloc(sizeof(double) * n);
  double *tmp = malloc(sizeof(double) * n);
  for (int s = 0; s < steps; s++) {
    p->f(y, k1, p->ctx);
    for (int i = 0; i < n; i++) tmp[i] = y[i] + h * k1[i];
    p->f(tmp, k2, p->ctx);
    for (int i = 0; i < n; i++) y[i] += 0.5 * h * (k1[i] + k2[i]);
  }
  free(tmp);
  free(k2);
  free(k1);
}

static double f(const double *a, double *x, int n) {
  linear_system s = {n, a};
  problem p = {rhs, &s, n};
  integrate(&p, x, ITERS, 0.1);
  double out = 0.0;
  for (int i = 0; i < n; i++) out += x[i] * x[i] * (1.0 + i);
  return out;
}""", "rhs", True),
    # power iteration through a product into a scratch vector the caller allocated
    "direct_scratch": (MATVEC + """
static double f(const double *a, double *x, int n) {
  double *y = malloc(sizeof(double) * n), s = 0.0;
  for (int it = 0; it < ITERS; it++) {
    matvec(a, x, y, n);
    for (int i = 0; i < n; i++) { x[i] = 0.9 * y[i] + 0.1 * x[i]; s += y[i] * y[i]; }
  }
  free(y);
  return s;
}""", "matvec", True),
    # the same product in place: writing y[i] changes the x[j] read next
    "in_place": (MATVEC + """
static double f(const double *a, double *x, int n) {
  double s = 0.0;
  for (int it = 0; it < ITERS; it++) {
    matvec(a, x, x, n);
    for (int i = 0; i < n; i++) s += x[i] * (1.0 + i);
  }
  return s;
}""", "matvec", False),
    # two halves of one allocation: not known apart
    "halves": (MATVEC + """
static double f(const double *a, double *x, int n) {
  double *buf = malloc(sizeof(double) * 2 * n), s = 0.0;
  for (int i = 0; i < n; i++) buf[i] = x[i];
  for (int it = 0; it < ITERS; it++) {
    matvec(a, buf, buf + n, n);
    for (int i = 0; i < n; i++) { buf[i] = buf[n + i] + 0.1 * buf[i]; s += buf[i]; }
  }
  free(buf);
  return s;
}""", "matvec", False),
}

# one callee called both ways: one derivative copies, the other tapes
BOTH_WAYS = MATVEC + """
static double f(const double *a, double *x, int n) {
  double *y = malloc(sizeof(double) * n), s = 0.0;
  for (int it = 0; it < ITERS; it++) {
    matvec(a, x, y, n);
    matvec(a, y, y, n);
    for (int i = 0; i < n; i++) { x[i] = 0.5 * y[i] + 0.5 * x[i]; s += y[i] * x[i]; }
  }
  free(y);
  return s;
}"""


def source_of(program: str) -> str:
    return HEADER + program + DRIVER


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", [*sorted(PROGRAMS), "both_ways"])
def test_dot_product(name: str, level: int) -> None:
    program = BOTH_WAYS if name == "both_ways" else PROGRAMS[name][0]
    check_program(source_of(program), 6, 1, level, seed=5, label=(name, level))


def copy_kinds(tmp_path: Any, source: str, level: int, callee: str) -> list[str]:
    """For each derivative of ``callee``: whether READ was "taped" or "copied"."""
    text = report_of(tmp_path, source, level, callee)
    kinds = []
    for report in text.split("derivative ")[1:]:
        taped, rest = marked_loads(report, source, "READ")
        copied = [ln for ln, why in rest if "copy of the range" in why]
        assert bool(taped) != bool(copied), report
        kinds.append("copied" if copied else "taped")
    assert kinds, text
    return kinds


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_report_copies_only_distinct(tmp_path: Any, name: str, level: int) -> None:
    program, callee, copies = PROGRAMS[name]
    kinds = copy_kinds(tmp_path, source_of(program), level, callee)
    if copies:
        # (a function whose address is stored in active memory also gets a derivative
        # for unknown callers, in its shadow: that one tapes)
        assert "copied" in kinds, kinds
    else:
        assert set(kinds) == {"taped"}, kinds


@pytest.mark.parametrize("level", [1, 2, 3])
def test_report_both_ways(tmp_path: Any, level: int) -> None:
    kinds = copy_kinds(tmp_path, source_of(BOTH_WAYS), level, "matvec")
    assert sorted(kinds) == ["copied", "taped"], kinds
