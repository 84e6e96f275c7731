"""Enzyme's split reverse mode through the C API: ``__enzyme_augmentfwd`` returns a tape,
the caller may overwrite the inputs, ``__enzyme_reverse`` consumes the tape.

Numbers at -O0..-O3: split gradients equal the combined ``__enzyme_autodiff`` ones and
pass the dot-product test against central differences, with the inputs clobbered between
the two calls; the primal effect and result of the augmented call are the primal ones.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pytest

from irgrad.testing import compile_c_to_jit

N = 4
SOURCE = r"""
#include <math.h>
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_tape, enzyme_allocated;
typedef struct { void *tape; double result; } Aug;
Aug __enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void smooth(double *v, int n) {
  for (int i = 1; i < n; i++) v[i] = v[i] * v[i - 1] + sin(v[i]);
}

/* in place on v (reads what it overwrites), returns a value, one active scalar */
double F(double *v, int n, double s) {
  smooth(v, n);
  double acc = 0.0;
  for (int i = 0; i < n; i++) {
    acc += s * v[i] * v[i];
    v[i] = v[i] * s;
  }
  return acc;
}

void primal(const double *x, double s, double *y, double *r) {
  memcpy(y, x, 4 * sizeof(double));
  *r = F(y, 4, s);
}

/* split: y = copy of x, augmented forward, clobber y, reverse; returns d/ds. The tape
   travels four ways (Enzyme's): 0 returned with the result as {tape, result}, 1 as
   {result, tape}, 2 stored at &tape (enzyme_tape), 3 written into a caller buffer of
   __enzyme_augmentsize bytes (enzyme_allocated + enzyme_tape). */
typedef struct { double result; void *tape; } AugR;
AugR __enzyme_augmentfwd_r(void *, ...);
double __enzyme_augmentfwd_d(void *, ...);
int __enzyme_augmentsize(void *, ...);
double split(const double *x, double s, double *y, double *dy, double dret, double *r,
             int how) {
  memcpy(y, x, 4 * sizeof(double));
  void *tape = 0;
  _Alignas(16) char buffer[256];
  int size = __enzyme_augmentsize((void *)F, enzyme_dup, enzyme_const, enzyme_out);
  if (size <= 0 || size > (int)sizeof buffer) return -12345.0;
  if (how == 0) {
    Aug a = __enzyme_augmentfwd((void *)F, enzyme_dup, y, dy, enzyme_const, 4,
                                enzyme_out, s);
    *r = a.result;
    tape = a.tape;
  } else if (how == 1) {
    AugR a = __enzyme_augmentfwd_r((void *)F, enzyme_dup, y, dy, enzyme_const, 4,
                                   enzyme_out, s);
    *r = a.result;
    tape = a.tape;
  } else if (how == 2) {
    *r = __enzyme_augmentfwd_d((void *)F, enzyme_tape, &tape, enzyme_dup, y, dy,
                               enzyme_const, 4, enzyme_out, s);
  } else {
    *r = __enzyme_augmentfwd_d((void *)F, enzyme_allocated, sizeof buffer, enzyme_tape,
                               buffer, enzyme_dup, y, dy, enzyme_const, 4, enzyme_out, s);
  }
  double keep[4];
  memcpy(keep, y, sizeof keep);
  for (int i = 0; i < 4; i++) y[i] = -1e3;  /* the reverse must not read y */
  double ds;
  if (how < 2)
    ds = __enzyme_reverse((void *)F, enzyme_dup, y, dy, enzyme_const, 4, enzyme_out, s,
                          dret, tape);
  else if (how == 2)
    ds = __enzyme_reverse((void *)F, enzyme_tape, &tape, enzyme_dup, y, dy, enzyme_const,
                          4, enzyme_out, s, dret);
  else
    ds = __enzyme_reverse((void *)F, enzyme_allocated, sizeof buffer, enzyme_tape, buffer,
                          enzyme_dup, y, dy, enzyme_const, 4, enzyme_out, s, dret);
  memcpy(y, keep, sizeof keep);
  return ds;
}

double combined(const double *x, double s, double *y, double *dy) {
  memcpy(y, x, 4 * sizeof(double));
  return __enzyme_autodiff((void *)F, enzyme_dup, y, dy, enzyme_const, 4, enzyme_out, s);
}
"""

_CACHE: dict[int, Any] = {}


def _jit(level: int) -> Any:
    if level not in _CACHE:
        _CACHE[level] = compile_c_to_jit(SOURCE, level)
    return _CACHE[level]


def _p(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_split_matches_combined_and_finite_differences(level: int) -> None:
    jit = _jit(level)
    vp, d = ctypes.c_void_p, ctypes.c_double
    primal = jit.get("primal", None, [vp, d, vp, vp])
    split_c = jit.get("split", d, [vp, d, vp, vp, d, vp, ctypes.c_int])
    combined = jit.get("combined", d, [vp, d, vp, vp])

    def f(x: np.ndarray, s: float) -> tuple[np.ndarray, float]:
        y, r = np.zeros(N), np.zeros(1)
        primal(_p(np.ascontiguousarray(x)), s, _p(y), _p(r))
        return y, float(r[0])

    rng = np.random.default_rng(3)
    for how in range(4):

        def split(*args: Any, how: int = how) -> float:
            return split_c(*args, how)

        x = rng.uniform(0.1, 0.8, N)
        s = float(rng.uniform(0.5, 1.5))
        c = rng.standard_normal(N)  # seed on the outputs v
        dret = float(rng.standard_normal())  # seed on the result
        y, dy, r = np.zeros(N), c.copy(), np.zeros(1)
        ds = split(_p(x), s, _p(y), _p(dy), dret, _p(r))
        y_ref, r_ref = f(x, s)
        np.testing.assert_allclose(y, y_ref, rtol=1e-14)
        assert abs(r[0] - r_ref) <= 1e-14 * (1 + abs(r_ref))
        # dot-product test in x (direction t) and s
        t = rng.standard_normal(N)
        h = 1e-6
        yp, rp = f(x + h * t, s)
        ym, rm = f(x - h * t, s)
        jt = float(c @ (yp - ym) + dret * (rp - rm)) / (2 * h)
        assert abs(float(t @ dy) - jt) <= 1e-6 * (1 + abs(jt))
        yp, rp = f(x, s + h)
        ym, rm = f(x, s - h)
        js = float(c @ (yp - ym) + dret * (rp - rm)) / (2 * h)
        assert abs(ds - js) <= 1e-6 * (1 + abs(js))
        # the combined mode with the result seeded with 1: compare with dret = 1
        y2, dy2 = np.zeros(N), c.copy()
        ds2 = combined(_p(x), s, _p(y2), _p(dy2))
        y3, dy3, r3 = np.zeros(N), c.copy(), np.zeros(1)
        ds3 = split(_p(x), s, _p(y3), _p(dy3), 1.0, _p(r3))
        np.testing.assert_allclose(dy3, dy2, rtol=1e-12, atol=1e-14)
        assert abs(ds3 - ds2) <= 1e-12 * (1 + abs(ds2))
