"""The heap tape of a reverse pass is kept for the next call (``@__irgrad_tape_cache``,
swapped atomically) instead of being freed, so repeated gradients reuse its pages.

Checked: gradients stay right over calls whose tapes shrink and grow (a reused tape that
is too small is replaced, one that is big enough is reused), from several threads at once
(ctypes releases the GIL), and the derivative has the cache and its release function.
"""

from __future__ import annotations

import ctypes
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from irgrad.testing import c_to_ir, compile_c_to_jit, lower_ir

# a while loop (trip count unknown at entry: checked pushes, tape grown on demand) whose
# reverse needs the state of every iteration (8 bytes of tape each):
# s <- 0.5 s + 0.1 sin(s) + x_k over the first n entries, stopping early where x_k > 10
SOURCE = """
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double f(double *x, int n) {
  double s = 0.0;
  int k = 0;
  while (k < n && x[k] <= 10.0) {
    s = 0.5 * s + 0.1 * sin(s) + x[k];
    k++;
  }
  return s;
}
void grad_f(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
"""


def _expected(x: np.ndarray) -> np.ndarray:
    s = np.empty(len(x))
    acc = 0.0
    for k, xk in enumerate(x.tolist()):
        s[k] = acc
        acc = 0.5 * acc + 0.1 * math.sin(acc) + xk
    factor = 0.5 + 0.1 * np.cos(s)
    dx = np.empty(len(x))
    adj = 1.0
    for k in range(len(x) - 1, -1, -1):
        dx[k] = adj
        adj *= factor[k]
    return dx


@pytest.fixture(scope="module", params=[0, 1, 2, 3], ids=lambda o: f"O{o}")
def grad_f(request: pytest.FixtureRequest) -> ctypes._CFuncPtr:
    jit = compile_c_to_jit(SOURCE, request.param)
    pd = ctypes.POINTER(ctypes.c_double)
    fn = jit.get("grad_f", None, [pd, pd, ctypes.c_int])
    fn.jit = jit  # keep the module alive with the function
    return fn


def _grad(fn: ctypes._CFuncPtr, x: np.ndarray) -> np.ndarray:
    dx = np.zeros_like(x)
    pd = ctypes.POINTER(ctypes.c_double)
    fn(x.ctypes.data_as(pd), dx.ctypes.data_as(pd), len(x))
    return dx


def test_tapes_shrink_and_grow_across_calls(grad_f: ctypes._CFuncPtr) -> None:
    rng = np.random.default_rng(0)
    for n in (10, 100_000, 50, 300_000, 7, 200_000):
        x = rng.uniform(-1.0, 1.0, n)
        got = _grad(grad_f, x)
        np.testing.assert_allclose(got, _expected(x), rtol=1e-12, atol=1e-15)


def test_concurrent_calls(grad_f: ctypes._CFuncPtr) -> None:
    rng = np.random.default_rng(1)
    inputs = [rng.uniform(-1.0, 1.0, int(n)) for n in rng.integers(1, 60_000, 16)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda x: _grad(grad_f, x), inputs))
    for x, got in zip(inputs, results, strict=True):
        np.testing.assert_allclose(got, _expected(x), rtol=1e-12, atol=1e-15)


def test_derivative_releases_into_the_cache() -> None:
    text = lower_ir(c_to_ir(SOURCE, 2), 0)
    assert "@__irgrad_tape_cache = internal global ptr null" in text
    assert "atomicrmw xchg ptr @__irgrad_tape_cache" in text
