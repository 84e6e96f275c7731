"""Reverse mode of loops: counted reversal (a counter instead of per-iteration control
data), recomputed induction variables and trip counts, reserved tapes.

Numerically: the dot-product test <t, J^T c> = <J t, c> (central differences) for loop
shapes that exercise every path of :mod:`irgrad.ad.reverse.loops` (down-counting, step 2,
i32 and offset IVs, triangular and data-dependent inner counts, early exits, exits to an
outer latch, while loops), at -O0..-O3. Structurally: the derivative of a counted loop
pushes nothing per iteration for control, and a loop with a known trip count reserves its
tape once.
"""

from __future__ import annotations

import ctypes
import tempfile
from pathlib import Path

import pytest
from reverse_dot_product import check_dot_product, pipeline_jit

from irgrad import ir
from irgrad.ad.api import lower_enzyme_calls
from irgrad.frontends.c import compile_c
from irgrad.llvm.jit import JITModule
from irgrad.pipeline import (
    canonicalize,
    parse_llvm,
    to_ir_model,
)

HEADER = """
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
"""
WRAPPER = """
void grad(const double *x, double *dx, double *y, double *dy, long n) {
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
void primal(const double *x, double *y, long n) { F(x, y, n); }
"""

N = 9  # inputs; the functions read x[0..n) with n = N
M = 3  # outputs

FUNCTIONS: dict[str, str] = {
    "down_counting_step2": """
static void F(const double *x, double *y, long n) {
  double s = 0.0, p = 1.0;
  for (long i = n - 1; i >= 0; i -= 2) { s += sin(x[i]) * x[i]; p *= 1.0 + 0.1 * x[i]; }
  y[0] = s; y[1] = p; y[2] = s * p;
}""",
    "int_iv_offset_start": """
static void F(const double *x, double *y, long n) {
  double s = 0.0, m = x[0];
  for (int i = 2; i < (int)n; i++) { s = s * 0.9 + x[i] * x[i - 2]; m = x[i] > m ? x[i] : m; }
  y[0] = s; y[1] = m; y[2] = exp(0.1 * s);
}""",
    "triangular_nested": """
static void F(const double *x, double *y, long n) {
  double s = 0.0, q = 0.0;
  for (long i = 0; i < n; i++) {
    double acc = 0.0;
    for (long j = 0; j <= i; j++) acc += x[j] * cos(x[i - j]);
    s += acc * acc; q += sqrt(1.0 + acc * acc);
  }
  y[0] = s; y[1] = q; y[2] = s / (1.0 + q);
}""",
    "constant_inner_polynomial": """
static void F(const double *x, double *y, long n) {
  double s = 0.0, r = 0.0;
  for (long i = 0; i < n; i++) {
    double t = x[i], p = 0.0;
    for (int d = 0; d < 5; d++) p = p * t + x[d];
    s += p; r += p * p;
  }
  y[0] = s; y[1] = r; y[2] = s * r;
}""",
    "early_exit_break": """
static void F(const double *x, double *y, long n) {
  double s = 0.0, p = 1.0;
  for (long i = 0; i < n; i++) {
    if (s > 1.8) break;
    s += x[i] * x[i];
    p *= 1.0 + x[i];
  }
  y[0] = s; y[1] = p; y[2] = log(p) * s;
}""",
    "inner_break_to_outer_latch": """
static void F(const double *x, double *y, long n) {
  double s = 0.0;
  for (long i = 0; i < 3; i++) {
    double acc = 0.0;
    for (long j = 0; j < n; j++) {
      acc += x[j] * x[(j + i) % n];
      if (acc > 0.5 + i) break;
    }
    s += acc * x[i];
  }
  y[0] = s; y[1] = s * s; y[2] = sin(s);
}""",
    "while_in_counted": """
static void F(const double *x, double *y, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) {
    double t = x[i];
    int k = 0;
    while (t < 4.0 && k < 50) { t = t * 1.5 + 0.1 * x[(i + 1) % n]; k++; }
    s += t;
  }
  y[0] = s; y[1] = s * x[0]; y[2] = cos(s);
}""",
    "stencil_through_memory": """
static void F(const double *x, double *y, long n) {
  double w[16];
  for (long i = 1; i < n - 1; i++) w[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
  double s = 0.0;
  for (long i = 1; i < n - 1; i++) s += w[i] * w[i] * x[i];
  y[0] = s; y[1] = w[1] * w[n - 2]; y[2] = s + w[2];
}""",
}

_CACHE: dict[tuple[str, int], JITModule] = {}


def _jit(name: str, level: int) -> JITModule:
    key = (name, level)
    if key not in _CACHE:
        _CACHE[key] = pipeline_jit(HEADER + FUNCTIONS[name] + WRAPPER, name, level)
    return _CACHE[key]


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_loop_dot_product(name: str, level: int) -> None:
    check_dot_product(_jit(name, level), N, M, seed=11, extra=(ctypes.c_long(N),), label=(name,))


def _derivative(body: str) -> ir.Function:
    """``diffe_k`` straight out of AD (pre-AD O2, no post-AD optimization)."""
    src = HEADER + body + """
double __enzyme_autodiff_d(void *, ...) __asm__("__enzyme_autodiff");
void g(const double *x, double *dx, long n) {
  __enzyme_autodiff_d((void *)k, enzyme_dup, x, dx, enzyme_const, n);
}
"""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.c"
        path.write_text(src)
        bc = compile_c(path, opt_level=2)
    model = to_ir_model(canonicalize(parse_llvm(bc, "k"), filename="k"), "k")
    module = lower_enzyme_calls(model)
    fns = [f for f in module.functions if f.name.startswith("diffe_k")]
    assert len(fns) == 1
    return fns[0]


def _calls(fn: ir.Function, name: str) -> list[ir.Instruction]:
    return [i for i in fn.instructions()
            if isinstance(i, ir.CallBase) and getattr(i.callee, "name", None) == name]


def test_counted_loop_has_no_tape() -> None:
    """A dot product: the IV is recomputed from the counter, the loads are recomputed and
    the trip count is recomputed at the exit: nothing is pushed at all."""
    fn = _derivative("""
double k(const double *x, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += x[i] * x[n - 1 - i];
  return s;
}""")
    assert _calls(fn, "__irgrad_tape_push") == []
    assert _calls(fn, "realloc") == []
    # nothing records a predecessor: the loop header is counted, and the exit block
    # (reached from the guard and from the loop) tells them apart by the guard's
    # condition, recomputed in the reverse pass
    pred_phis = [i for i in fn.instructions() if i.name and i.name.startswith("pred")]
    assert pred_phis == []
    counters = [i for i in fn.instructions() if i.name and i.name.startswith("counter")]
    assert len(counters) == 1


def test_known_trip_count_reserves_once() -> None:
    """sin(x[i]) must be cached; the tape is reserved once on the edge into the loop and
    the loop body pushes without a capacity check."""
    fn = _derivative("""
double k(const double *x, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += sin(x[i]) * x[i];
  return s;
}""")
    pushes = _calls(fn, "__irgrad_tape_push")
    assert len(pushes) == 1
    assert pushes[0].parent is not None and pushes[0].parent.name.startswith("reserve")
    reserve = pushes[0].parent
    assert [s.name for s in reserve.successors()] == [
        b.name for b in fn.blocks if any(isinstance(i, ir.CallBase)
                                         and getattr(i.callee, "name", None) == "sin"
                                         for i in b.instructions)]


def test_while_loop_keeps_growable_tape() -> None:
    """A data-dependent while loop: the trip count is unknown, so its cached values go on
    the growable stack with a capacity check per iteration (and it still needs no
    per-iteration predecessor index)."""
    fn = _derivative("""
double k(const double *x, long n) {
  double t = x[0];
  while (t < 100.0) t = t * t + 1.0;
  return t;
}""")
    pushes = _calls(fn, "__irgrad_tape_push")
    assert len(pushes) >= 1
    assert not any(p.parent is not None and p.parent.name.startswith("reserve")
                   for p in pushes)
