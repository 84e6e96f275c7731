"""C kernels and helpers shared by the framework integration tests."""

from __future__ import annotations

from typing import Any

import numpy as np

import irgrad

SOURCE = r"""
#include <math.h>
/* elementwise, two inputs, one output */
void f(const double *x, const double *w, double *y, int n) {
  for (int i = 0; i < n; i++) y[i] = sin(x[i]) * w[i] + x[i] * x[i];
}
/* scalar input, floating-point return */
double g(const double *x, double a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += exp(a * x[i]);
  return s / n;
}
/* float32 */
void h(const float *x, float *y, int n) {
  for (int i = 0; i < n; i++) y[i] = x[i] * x[i] * x[i];
}
/* matrix times vector: 2-D input, two sizes */
void mv(const double *A, const double *x, double *y, int m, int n) {
  for (int i = 0; i < m; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += A[i * n + j] * tanh(x[j]);
    y[i] = s;
  }
}
/* two outputs, one of them a single element */
void stats(const double *x, double *mean, double *sq, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) { s += x[i]; sq[i] = x[i] * x[i] * x[0]; }
  *mean = s / n;
}
/* an integer input (never differentiated) and a constant */
void gather(const double *x, const int *idx, double c, double *y, int n, int m) {
  for (int j = 0; j < m; j++) y[j] = c * x[idx[j]] * x[idx[j]];
}
"""


def compile_kernels(opt_level: int = 2) -> Any:
    return irgrad.compile(source=SOURCE, language="c", opt_level=opt_level)


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)
