"""Callee tapes on the caller's byte stack (issue 18, item 2).

A split callee of one of our derivatives pushes its frames and its tape struct onto the
byte stack of the derivative that calls it, and its reverse pops them; nothing is
malloc'd per call. Numbers: the dot-product test (J t by central differences) at
-O0..-O3 for programs written the way textbook numerical C is written: recursion that
mallocs its sub-problems (Laplace determinant, radix-2 FFT), a callee with a loop called
inside the caller's counted loop nest (whose pushes then must not use the nest's
reservation), callees with several returns and recursion through several levels, and a
caller differentiated in the user's split mode. Structure: the augmented primal of a
callee takes the caller's tape state and calls no malloc for its tape.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from reverse_dot_product import check_program, ptr

from irgrad import ir
from irgrad.ad.api import lower_enzyme_calls
from irgrad.llvm.canonicalize import canonicalize
from irgrad.llvm.load import parse_llvm
from irgrad.testing import c_to_ir, compile_c_to_jit

HEADER = """
#include <math.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
#define NOINLINE __attribute__((noinline))
"""
WRAPPER = """
void grad(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
void primal(const double *x, double *y) { F(x, y); }
"""

# name -> (n inputs, m outputs, C defining `void F(const double *x, double *y)`)
PROGRAMS: dict[str, tuple[int, int, str]] = {
    "laplace_determinant": (16, 1, """
double det(const double *a, int n) {
  if (n == 1) return a[0];
  double *minor = malloc(sizeof(double) * (n - 1) * (n - 1));
  double sum = 0.0, sign = 1.0;
  for (int c = 0; c < n; c++) {
    for (int i = 1; i < n; i++) {
      int k = 0;
      for (int j = 0; j < n; j++)
        if (j != c) minor[(i - 1) * (n - 1) + k++] = a[i * n + j];
    }
    sum += sign * a[c] * det(minor, n - 1);
    sign = -sign;
  }
  free(minor);
  return sum;
}
static void F(const double *x, double *y) { y[0] = det(x, 4); }"""),
    "radix2_fft_energy": (8, 8, """
static void fft(double *re, double *im, int n) {
  if (n == 1) return;
  int h = n / 2;
  double *er = malloc(sizeof(double) * h), *ei = malloc(sizeof(double) * h);
  double *odr = malloc(sizeof(double) * h), *odi = malloc(sizeof(double) * h);
  for (int k = 0; k < h; k++) {
    er[k] = re[2 * k]; ei[k] = im[2 * k];
    odr[k] = re[2 * k + 1]; odi[k] = im[2 * k + 1];
  }
  fft(er, ei, h);
  fft(odr, odi, h);
  for (int k = 0; k < h; k++) {
    double c = cos(-2 * M_PI * k / n), s = sin(-2 * M_PI * k / n);
    double tr = c * odr[k] - s * odi[k], ti = s * odr[k] + c * odi[k];
    re[k] = er[k] + tr; im[k] = ei[k] + ti;
    re[k + h] = er[k] - tr; im[k + h] = ei[k] - ti;
  }
  free(er); free(ei); free(odr); free(odi);
}
static void F(const double *x, double *y) {
  double re[8], im[8];
  for (int i = 0; i < 8; i++) { re[i] = x[i] * x[i]; im[i] = sin(x[i]); }
  fft(re, im, 8);
  for (int i = 0; i < 8; i++) y[i] = re[i] * re[i] + im[i] * im[i];
}"""),
    "callee_loop_in_counted_nest": (4, 4, """
NOINLINE double relax(double *v, int n, double w) {
  double r = 0.0;
  for (int i = 1; i < n; i++) {   /* overwrites what the next iteration reads */
    v[i] = (1.0 - w) * v[i] + w * sin(v[i - 1]) * v[i];
    r += v[i] * v[i];
  }
  return r;
}
static void F(const double *x, double *y) {
  double v[4] = {x[0], x[1], x[2], x[3]};
  double acc = 0.0;
  for (int s = 0; s < 3; s++)
    for (int t = 0; t < 2; t++)
      acc += relax(v, 4, 0.3 + 0.1 * s + 0.05 * t) * v[t];
  for (int i = 0; i < 4; i++) y[i] = v[i] * acc;
}"""),
    "several_returns_deep_recursion": (3, 3, """
NOINLINE double walk(double *v, int depth) {
  if (depth == 0) return v[0];
  double t = v[0] * cos(v[1]) + 0.1 * v[2];
  v[1] = v[1] * t;
  if (t > 100.0) return t;          /* an early return */
  double r = walk(v, depth - 1);
  v[2] = v[2] + r * v[0];
  if (depth % 3 == 0) return r * t;
  return r + t * t;
}
static void F(const double *x, double *y) {
  double v[3] = {x[0], x[1], x[2]};
  double r = walk(v, 40);
  y[0] = r; y[1] = v[1] * v[2]; y[2] = v[0] + r * v[2];
}"""),
}

@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    n, m, source = PROGRAMS[name]
    check_program(HEADER + source + WRAPPER, n, m, level, seed=5, label=(name, level))


SPLIT = HEADER + """
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
NOINLINE void rec(double *v, int n) {
  if (n == 0) return;
  for (int i = 0; i < 2; i++) v[i] = v[i] * cos(v[1 - i]) + 0.1;
  rec(v, n - 1);
  v[0] = v[0] * v[1];
}
void F(double *v) { rec(v, 6); v[1] = v[0] * v[1]; }
void split_grad(double *v, double *dv) {
  void *tape = __enzyme_augmentfwd((void *)F, enzyme_dup, v, dv);
  dv[0] = 1.0; dv[1] = 0.5;
  __enzyme_reverse((void *)F, enzyme_dup, v, dv, tape);
}
"""


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_user_split_mode_over_callees_on_the_stack(level: int) -> None:
    """The user's augmented primal owns a stack its callees push onto; its tape keeps
    that stack until __enzyme_reverse pops it."""
    jit = compile_c_to_jit(SPLIT, level)
    vp = ctypes.c_void_p
    f = jit.get("F", None, [vp])
    split_grad = jit.get("split_grad", None, [vp, vp])
    x = np.array([0.7, -0.4])

    def out(z: np.ndarray) -> np.ndarray:
        v = z.copy()
        f(ptr(v))
        return v

    v, dv = x.copy(), np.zeros(2)
    split_grad(ptr(v), ptr(dv))
    np.testing.assert_allclose(v, out(x), rtol=1e-14)
    c = np.array([1.0, 0.5])
    h = 1e-6
    jac = np.array([(out(x + h * e) - out(x - h * e)) / (2 * h) for e in np.eye(2)]).T
    np.testing.assert_allclose(dv, jac.T @ c, rtol=1e-6, atol=1e-9)


def _lowered(source: str) -> ir.Module:
    module = canonicalize(parse_llvm(c_to_ir(source, 2), "src"), filename="src")
    return lower_enzyme_calls(ir.parse_module(str(module), "src"))


def _callees(fn: ir.Function) -> set[str]:
    return {i.called_function.name for i in fn.instructions()
            if isinstance(i, ir.CallBase) and i.called_function is not None}


def test_callee_pushes_onto_the_callers_stack() -> None:
    module = _lowered(HEADER + PROGRAMS["several_returns_deep_recursion"][2] + WRAPPER)
    aug = module.get_function("augmented_walk")
    rev = module.get_function("reverse_walk")
    assert aug is not None and rev is not None
    assert aug.args[-1].name == "tape.state" and rev.args[-1].name == "tape.state"
    assert "malloc" not in _callees(aug)  # no tape of its own
    assert "free" not in _callees(rev)
    assert not any(n.startswith("__irgrad_tape_release") for n in _callees(rev))
    assert any(n.startswith("__irgrad_tape_push") for n in _callees(aug))
    # the caller owns the stack and releases it once
    diffe = next(f for f in module.functions if f.name.startswith("diffe_F"))
    assert any(n.startswith("__irgrad_tape_release") for n in _callees(diffe))
