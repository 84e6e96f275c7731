"""Shared sources and numeric checks for the Python API tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

C_KERNELS = r"""
#include <math.h>

double energy(const double *x, int n, double k) {
  double e = 0.0;
  for (int i = 0; i < n; i++) e += k * sin(x[i]) * x[(i + 1) % n] + exp(0.25 * x[i]);
  return e;
}

void rhs(double *y, const double *x, const double *w, int n) {
  for (int i = 0; i < n; i++) y[i] = tanh(w[i] * x[i]) + (i ? x[i - 1] * x[i - 1] : 0.0);
}

double two(double a, double b) { return a * a * b + sin(b); }

float fsum(const float *x, int n, float a) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += a * x[i] * x[i];
  return s;
}

long count_positive(const double *x, long n) {
  long c = 0;
  for (long i = 0; i < n; i++) c += x[i] > 0;
  return c;
}
"""


def energy_np(x: np.ndarray, k: float) -> float:
    return float(np.sum(k * np.sin(x) * np.roll(x, -1) + np.exp(0.25 * x)))


def rhs_np(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    prev = np.concatenate([[0.0], x[:-1] ** 2])
    return np.tanh(w * x) + prev


def central_fd(f: Callable[[np.ndarray], np.ndarray | float], x: np.ndarray,
               t: np.ndarray, eps: float = 1e-6) -> np.ndarray:  # fmt: skip
    """(f(x + eps t) - f(x - eps t)) / 2 eps."""
    return (np.asarray(f(x + eps * t)) - np.asarray(f(x - eps * t))) / (2 * eps)


def fd_gradient(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = 1.0
        grad[i] = central_fd(f, x, e, eps)
    return grad
