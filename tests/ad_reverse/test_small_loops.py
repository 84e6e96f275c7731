"""Small constant-trip loops are fully unrolled before AD (:mod:`irgrad.ad.api.small_loops`),
and cheap pure intrinsics (``llvm.fmuladd``) are recomputed in the reverse pass instead of
being cached.

Numbers: the dot-product test against central differences at -O0..-O3, reverse and
forward mode. Shape: which loops get marked, that a user's unroll pragma and loops that
are too long or not differentiated are left alone, and that the polynomial's derivative
needs no tape per iteration.
"""

from __future__ import annotations

import numpy as np
import pytest

from irgrad.ad.api.small_loops import MAX_TRIPS, mark_small_loops_for_full_unroll
from irgrad.pipeline import canonicalize, parse_llvm, to_ir_model
from irgrad.testing import (
    c_gradient,
    c_primal,
    c_tangent,
    c_to_ir,
    check_grads,
    compile_c_to_jit,
    lower_ir,
)

HEADER = """
#include <math.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
"""

# points of 3 coordinates (a `k < 3` loop over a local array) and a degree-7 polynomial
# (an 8-trip Horner loop) inside a loop over a runtime count
PROGRAM = HEADER + """
static double poly(double t, const double *c) {
  double p = 0.0;
  for (int d = 0; d < 8; d++) p = p * t + c[d];
  return p;
}
double f(double *x, int n) {
  const double c[8] = {0.5, -1.0, 0.25, 2.0, -0.75, 1.5, -0.5, 1.0};
  double s = 0.0;
  for (int i = 0; i + 3 <= n; i += 3) {
    double v[3];
    for (int k = 0; k < 3; k++) v[k] = sin(x[i + k]) * x[(i + k + 1) % n];
    double r = 0.0;
    for (int k = 0; k < 3; k++) r += v[k] * v[k];
    s += poly(0.3 * sqrt(r + 1.0), c);
  }
  return s;
}
void grad_f(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
double tangent_f(double *x, double *tx, int n) {
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, tx, enzyme_const, n);
}
"""


@pytest.mark.parametrize("opt", [0, 1, 2, 3])
def test_unrolled_loops_differentiate_correctly(opt: int) -> None:
    jit = compile_c_to_jit(PROGRAM, opt)
    x = np.random.default_rng(opt).uniform(-1.5, 1.5, 12)
    check_grads(c_primal(jit, "f"), x, rev=c_gradient(jit, "grad_f"),
                fwd=c_tangent(jit, "tangent_f"))


def _marked(source: str) -> int:
    module = canonicalize(parse_llvm(c_to_ir(HEADER + source, 2)))
    return mark_small_loops_for_full_unroll(to_ir_model(module))


GRAD_G = """
void grad_g(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_const, n);
}
"""


def test_which_loops_are_marked() -> None:
    assert _marked(PROGRAM) == 3  # poly's Horner loop and both k < 3 loops
    small = f"""
double g(double *x, int n) {{
  double s = 0.0;
  for (int k = 0; k < {MAX_TRIPS}; k++) s += sin(x[k]);
  return s;
}}"""
    assert _marked(small + GRAD_G) == 1
    too_long = small.replace(f"k < {MAX_TRIPS}", f"k < {MAX_TRIPS + 1}")
    assert _marked(too_long + GRAD_G) == 0
    runtime = small.replace(f"k < {MAX_TRIPS}", "k < n")
    assert _marked(runtime + GRAD_G) == 0
    pragma = small.replace("  for", "  _Pragma(\"clang loop unroll(disable)\")\n  for")
    assert _marked(pragma + GRAD_G) == 0
    # a loop outside every differentiated function stays as the pre-AD pipeline left it
    assert _marked(small.replace("double g(", "double h(") + """
double g(double *x, int n) { return x[0] * x[0]; }
double keep(double *x, int n) { return h(x, n); }""" + GRAD_G) == 0


def test_horner_derivative_needs_no_tape() -> None:
    text = lower_ir(c_to_ir(HEADER + """
double k(const double *x, const double *y, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) {
    double t = x[i], p = 0.0;
    for (int d = 0; d < 8; d++) p = p * t + y[d];
    s += p;
  }
  return s;
}
void grad_k(const double *x, double *dx, const double *y, double *dy, long n) {
  __enzyme_autodiff((void *)k, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
""", 2), 2)
    # the Horner values are recomputed from x[i] in the reverse loop: no tape per
    # iteration, so no heap tape (a tape of 8 doubles per element would outgrow the
    # 1 KiB stack buffer and be malloc'd; k itself allocates nothing)
    assert "fmuladd" in text
    assert "@malloc" not in text
