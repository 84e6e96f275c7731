"""Reverse mode, numerically: the dot-product test <t, J^T c> = <J t, c> with J t from
central differences, for small vector functions F(x) -> y written in C, differentiated
through the whole pipeline (clang-22 -> pre-AD -> irgrad AD -> post-AD) and JIT-compiled,
at -O0..-O3."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from reverse_dot_product import check_dot_product, pipeline_jit, ptr

from irgrad.llvm.jit import JITModule

HEADER = """
#include <math.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
void __enzyme_autodiff(void *, ...);
"""
WRAPPER = """
void grad(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
"""

# name -> (n inputs, m outputs, C body of `void F(const double *x, double *y)`)
FUNCTIONS: dict[str, tuple[int, int, str]] = {
    "straight_line": (3, 2, """
static void F(const double *x, double *y) {
  y[0] = x[0] * x[1] + sin(x[2]);
  y[1] = exp(x[0] / (1.0 + x[1] * x[1])) - x[2] * x[2] * x[0];
}"""),
    "counted_loop_recurrence": (5, 3, """
static void F(const double *x, double *y) {
  double s = 0.0, p = 1.0;
  for (int i = 0; i < 5; i++) { s = s * 0.5 + x[i] * x[i]; p *= cos(x[i]); }
  y[0] = s; y[1] = p; y[2] = s * p;
}"""),
    "nested_loops_memory": (6, 2, """
static void F(const double *x, double *y) {
  double a[3];
  for (int i = 0; i < 3; i++) {
    a[i] = 0.0;
    for (int j = 0; j < 2; j++) a[i] += x[2 * i + j] * x[(2 * i + j + 1) % 6];
  }
  y[0] = a[0] * a[1] + a[2];
  y[1] = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}"""),
    "branches_and_while": (3, 2, """
static void F(const double *x, double *y) {
  double v = x[0] > 0.3 ? x[0] * x[1] : x[1] - x[2];
  double t = x[2] * x[2] + 0.5;
  int k = 0;
  while (t < 40.0 && k < 100) { t = t * 1.7 + v * 0.01; k++; }
  y[0] = t; y[1] = fmax(v, x[2]) * log(t);
}"""),
    "heap_and_overwrite": (4, 2, """
static void F(const double *x, double *y) {
  double *w = (double *)malloc(4 * sizeof(double));
  memcpy(w, x, 4 * sizeof(double));
  for (int it = 0; it < 3; it++)
    for (int i = 1; i < 4; i++) w[i] = w[i] * w[i - 1] * 0.5 + sin(w[i]);
  y[0] = w[3]; y[1] = w[1] + w[2];
  free(w);
}"""),
    "noinline_calls": (3, 1, """
__attribute__((noinline)) static double g(double a, const double *b) { return a * b[0] + b[1]; }
static void F(const double *x, double *y) {
  y[0] = g(x[0], x + 1) * g(x[2], x) + g(x[1] * x[1], x + 1);
}"""),
}


_CACHE: dict[tuple[str, int], JITModule] = {}


def _jit(name: str, level: int) -> JITModule:
    key = (name, level)
    if key not in _CACHE:
        _, _, body = FUNCTIONS[name]
        source = HEADER + body + WRAPPER + "void primal(const double *x, double *y) { F(x, y); }\n"
        _CACHE[key] = pipeline_jit(source, name, level)
    return _CACHE[key]


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_dot_product(name: str, level: int) -> None:
    n, m, _ = FUNCTIONS[name]
    check_dot_product(_jit(name, level), n, m, seed=7, seed_consumed=True)


def test_shadow_accumulates() -> None:
    """Derivatives are added into the input shadow, never assigned."""
    n, m, _ = FUNCTIONS["straight_line"]
    jit = _jit("straight_line", 2)
    vp = ctypes.c_void_p
    grad = jit.get("grad", None, [vp, vp, vp, vp])
    x = np.array([0.3, 0.7, 0.9])
    once = np.zeros(n)
    grad(ptr(x), ptr(once), ptr(np.zeros(m)), ptr(np.ones(m)))
    twice = np.full(n, 5.0)
    grad(ptr(x), ptr(twice), ptr(np.zeros(m)), ptr(np.ones(m)))
    np.testing.assert_allclose(twice, once + 5.0, rtol=1e-15)
    assert np.all(once != 0.0)
