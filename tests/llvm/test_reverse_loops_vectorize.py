"""The post-AD pipeline vectorizes reverse loops nested in reverse loops.

Reverse passes run loops backwards. The loop vectorizer hoists an inner loop's
memory-overlap checks out of the outer loop only when the outer loop steps forwards; for a
backwards outer loop the hoisted check always reports a conflict and only the scalar
loop ever runs. irgrad turns that hoisting off (``irgrad.llvm.target.LLVM_OPTIONS``), so
the reverse of a matrix-vector product (``dx[i][j] += a * y[j]; dy[j] += a * x[i][j]``)
is vectorized. Checked by shape (vector arithmetic in the derivative) and by numbers.
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


def test_option_is_set() -> None:
    assert "-hoist-runtime-checks=false" in LLVM_OPTIONS


@pytest.mark.parametrize("opt", [2, 3])
def test_reverse_inner_loop_is_vectorized(opt: int) -> None:
    text = lower_ir(c_to_ir(SOURCE, opt), opt)
    start = re.search(r"^define [^\n]*@diffe_f\(", text, re.M)
    assert start is not None
    body = text[start.start() : text.index("\n}\n", start.start())]
    rev = body[body.index("\nrev.") :]  # the reverse pass (after the forward blocks)
    assert re.search(r"fmul (reassoc )?<\d+ x double>", rev), rev[:3000]


@pytest.mark.parametrize("opt", [0, 1, 2, 3])
def test_numbers(opt: int) -> None:
    jit = compile_c_to_jit(SOURCE, opt)
    x = np.random.default_rng(opt).uniform(-1, 1, 5 * 11)  # r = 4; c = 11: remainders
    check_reverse(c_primal(jit, "f"), c_gradient(jit, "grad_f"), x)
