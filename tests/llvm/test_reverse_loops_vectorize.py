"""The post-AD pipeline vectorizes reverse loops nested in reverse loops.

Reverse passes run loops backwards. The loop vectorizer hoists an inner loop's
memory-overlap checks out of the outer loop only when the outer loop steps forwards; for a
backwards outer loop the hoisted check always reports a conflict and only the scalar
loop ever runs. irgrad turns that hoisting off (``irgrad.llvm.target.LLVM_OPTIONS``), so
the reverse of a matrix-vector product (``dx[i][j] += a * y[j]; dy[j] += a * x[i][j]``)
is vectorized. Checked by shape (vector arithmetic in the derivative) and by numbers.

The adjoint of a packed triangular matrix-vector product (ADBench GMM: inner loops of
0..d-1 iterations, vector bodies, vector and scalar remainders) is checked by numbers.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from irgrad.llvm.target import LLVM_OPTIONS
from irgrad.testing import c_gradient, c_primal, c_to_ir, check_reverse, compile_c_to_jit, lower_ir

SOURCE = """
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double f(double *x, int n) {
  int c = n / 5, r = n / c - 1;  /* x = [A (r x c) | v (c)], n = 5 c: r = 4 at run time */
  double s = 0.0;
  for (int i = 0; i < r; i++) {
    double acc = 0.0;
    for (int j = 0; j < c; j++) acc += x[i * c + j] * x[r * c + j];
    s += acc * acc;
  }
  return s;
}
void grad_f(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
"""


TRIANGLE = """
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
/* |L x|^2 + |x|^2 with L packed lower-triangular: z = [L (d(d-1)/2) | x (d)], n = d(d+1)/2 */
double f(const double *z, int n) {
  int d = 0;
  while ((d + 1) * (d + 2) / 2 <= n) d++;
  const double *l = z, *x = z + d * (d - 1) / 2;
  double *q = __builtin_malloc(sizeof(double) * d);
  for (int j = 0; j < d; j++) q[j] = x[j];
  int li = 0;
  for (int col = 0; col < d; col++)
    for (int row = col + 1; row < d; row++) q[row] += l[li++] * x[col];
  double s = 0.0;
  for (int j = 0; j < d; j++) s += q[j] * q[j];
  __builtin_free(q);
  return s;
}
void grad_f(const double *z, double *dz, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, z, dz, enzyme_const, n);
}
"""


def test_option_is_set() -> None:
    assert "-hoist-runtime-checks=false" in LLVM_OPTIONS


@pytest.mark.parametrize("opt", [0, 1, 2, 3])
def test_triangular_numbers(opt: int) -> None:
    jit = compile_c_to_jit(TRIANGLE, opt)
    d = 13  # column lengths 12..0: every remainder size
    z = np.random.default_rng(opt).uniform(-1, 1, d * (d + 1) // 2)
    check_reverse(c_primal(jit, "f"), c_gradient(jit, "grad_f"), z)


@pytest.mark.parametrize("opt", [2, 3])
def test_reverse_inner_loop_is_vectorized(opt: int) -> None:
    text = lower_ir(c_to_ir(SOURCE, opt), opt)
    # the derivative, or grad_f when LLVM inlined it there (same target, so it may)
    start = (re.search(r"^define [^\n]*@diffe_f\(", text, re.M)
             or re.search(r"^define [^\n]*@grad_f\(", text, re.M))
    assert start is not None
    body = text[start.start() : text.index("\n}\n", start.start())]
    rev = body[body.index("\nrev.") :]  # the reverse pass (after the forward blocks)
    assert re.search(r"fmul (reassoc )?<\d+ x double>", rev), rev[:3000]


@pytest.mark.parametrize("opt", [0, 1, 2, 3])
def test_numbers(opt: int) -> None:
    jit = compile_c_to_jit(SOURCE, opt)
    x = np.random.default_rng(opt).uniform(-1, 1, 5 * 11)  # r = 4; c = 11: remainders
    check_reverse(c_primal(jit, "f"), c_gradient(jit, "grad_f"), x)
