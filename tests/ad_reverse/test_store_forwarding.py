"""Store-to-load forwarding in the reverse pass (:mod:`irgrad.ad.reverse.store_forwarding`): a
scratch buffer filled by one store in a counted loop and read back later is recomputed
from the stored value at the load's index instead of being cached per iteration.

Numbers: the dot-product test against central differences at -O0..-O3 for the forwarded
shape and for each shape that must not be forwarded. Shape: ``.fw`` values (the rebuilt
stored values) appear in the derivative exactly when forwarding is legal.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from irgrad import ir
from irgrad.pipeline import (
    canonicalize,
    from_ir_model,
    lower_enzyme_calls,
    mark_small_loops_for_full_unroll,
    parse_llvm,
    to_ir_model,
)
from irgrad.testing import c_gradient, c_primal, c_to_ir, check_reverse, compile_c_to_jit

HEADER = """
#include <math.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void grad_f(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
"""

# GMM's shape: per (point, component) xc = x - mu over d entries, then xc read by a
# diagonal loop and a triangular loop (at the column index) of the same bound
FORWARDED = """
double f(double *x, int n) {
  int d = n / 2;
  double *xc = malloc(sizeof(double) * d), *q = malloc(sizeof(double) * d);
  double total = 0.0;
  for (int p = 0; p < 3; p++) {
    for (int c = 0; c < 2; c++) {
      for (int j = 0; j < d; j++) xc[j] = x[j] - x[d + j] * (p + c + 1) * 0.25;
      for (int j = 0; j < d; j++) q[j] = exp(x[d + j]) * xc[j];
      for (int col = 0; col < d; col++)
        for (int row = col + 1; row < d; row++) q[row] += 0.3 * x[row] * xc[col];
      double sq = 0.0;
      for (int j = 0; j < d; j++) sq += q[j] * q[j];
      total += log(1.0 + sq);
    }
  }
  free(xc);
  free(q);
  return total;
}
"""

# a second store into the buffer: the loads may read either
TWO_STORES = FORWARDED.replace(
    "      for (int j = 0; j < d; j++) q[j] =",
    "      xc[0] = sin(x[0]);\n      for (int j = 0; j < d; j++) q[j] =",
)
# the reading loop's bound is not the filling loop's: coverage is not proven (it holds
# here, but the rule is conservative)
OTHER_BOUND = FORWARDED.replace(
    "q[j] = exp(x[d + j]) * xc[j];",
    "q[j] = exp(x[d + j]);\n      for (int j = 0; j < d - 1; j++) q[j] *= xc[j];",
)
# the stored value reads memory that is overwritten afterwards
CLOBBERED_INPUT = """
double f(double *x, int n) {
  int d = n / 2;
  double *xc = malloc(sizeof(double) * d), *w = malloc(sizeof(double) * d);
  double total = 0.0;
  for (int p = 0; p < 3; p++) {
    for (int j = 0; j < d; j++) w[j] = x[j] * (p + 1);
    for (int j = 0; j < d; j++) xc[j] = w[j] * x[d + j];
    for (int j = 0; j < d; j++) w[j] = 0.0;
    for (int j = 0; j < d; j++) total += sin(xc[j]) * xc[j];
  }
  free(xc);
  free(w);
  return total;
}
"""

PROGRAMS = {
    "forwarded": (FORWARDED, True),
    "two_stores": (TWO_STORES, False),
    "other_bound": (OTHER_BOUND, False),
    "clobbered_input": (CLOBBERED_INPUT, False),
}


def _with_header(body: str) -> str:
    head, tail = HEADER.split("void grad_f", 1)
    return head + body + "void grad_f" + tail


@pytest.mark.parametrize("opt", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_is_right(name: str, opt: int) -> None:
    jit = compile_c_to_jit(_with_header(PROGRAMS[name][0]), opt)
    x = np.random.default_rng(opt).uniform(-1.0, 1.0, 10)
    check_reverse(c_primal(jit, "f"), c_gradient(jit, "grad_f"), x)


def _derivative_text(source: str) -> str:
    model = to_ir_model(canonicalize(parse_llvm(c_to_ir(source, 2))))
    if mark_small_loops_for_full_unroll(model):
        model = to_ir_model(canonicalize(from_ir_model(model)))
    lower_enzyme_calls(model)
    text = ir.print_module(model)
    start = re.search(r"^define [^\n]*@diffe_f\(", text, re.M)
    assert start is not None
    return text[start.start() : text.index("\n}\n", start.start())]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forwarded_exactly_when_legal(name: str) -> None:
    source, legal = PROGRAMS[name]
    assert (".fw" in _derivative_text(_with_header(source))) is legal
