"""Divisions with a constant numerator: ``1.0 / r``, ``dt / (d2 * sqrt(d2))``, ``m / x``.

For ``q = c / y`` the partial ``-q / y`` divides a second time; with ``c`` a nonzero finite
constant it equals ``-q * (q * (1/c))``, and ``1/c`` folds, so the derivative multiplies
instead (the ``fdiv`` rule's ``when_constant`` form, used by reverse and forward mode).
A division takes several times a multiplication's throughput, and reciprocals of
distances and norms sit in the inner loops of n-body, molecular and mesh codes.

Each program's gradient (``__enzyme_autodiff``) and tangent (``__enzyme_fwddiff``) are
checked against central finite differences and against each other (``<t, grad> ==
tangent``) at -O0..-O3; a numerator large enough that ``q * q`` overflows while the
partial does not keeps the order of the products honest; at -O2 the derivatives of
``3.0 / x`` keep one division (the primal's), where they kept two before, and the gradient
of ``x / y`` two (the primal's and ``1/y``).
"""

from __future__ import annotations

import ctypes
import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from irgrad.testing import compile_c_to_jit
from warm_cli import irgrad_command

HEADER = """
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
"""

# the objective f(x, n) of each program; grad and tangent are added below
PROGRAMS: dict[str, str] = {
    # reciprocals in a loop the vectorizer widens (<4 x double> fdiv of a splat constant)
    "reciprocal_sums": """
double f(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += 1.0 / x[i] + 2.5 / (x[i] * x[i] + 1.0);
  return s;
}""",
    # the n-body kernel: dt / (d2 sqrt(d2)) over pairs of points on a line
    "inverse_cube_distance": """
double f(const double *x, int n) {
  double e = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double d = x[i] - x[j] + (j - i), d2 = d * d + 0.5;
      double mag = 0.01 / (d2 * sqrt(d2));
      e += mag * x[i] * x[j];
    }
  return e;
}""",
    # single precision: the folded 1/c is a float constant
    "float_reciprocal": """
double f(const double *x, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += 3.0f / ((float)x[i] + 0.5f);
  return (double)s;
}""",
    # both operands active, the divisor invariant in the loop (d/dy = -q * (1/y): the
    # reciprocal is hoisted, the reverse loop multiplies)
    "normalized_by_active_norm": """
double f(const double *x, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  double r = sqrt(s), e = 0.0;
  for (int i = 0; i < n; i++) e += (x[i] / r) * (x[i] / r) * (i + 1);
  return e;
}""",
    # a negative numerator that is not a power of two, and a division of a division
    "nested_constant_numerators": """
double f(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += -0.3 / (1.0 + 7.0 / (x[i] + 1.0));
  return s;
}""",
}

DRIVERS = """
void grad(const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
double tangent(const double *x, const double *t, int n) {
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, n);
}
"""

N = 7
_DP = ctypes.POINTER(ctypes.c_double)


def _p(a: np.ndarray) -> ctypes._Pointer[ctypes.c_double]:
    return a.ctypes.data_as(_DP)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_and_tangent(name: str, level: int) -> None:
    jit = compile_c_to_jit(HEADER + PROGRAMS[name] + DRIVERS, level)
    f = jit.get("f", ctypes.c_double, [_DP, ctypes.c_int])
    grad = jit.get("grad", None, [_DP, _DP, ctypes.c_int])
    tangent = jit.get("tangent", ctypes.c_double, [_DP, _DP, ctypes.c_int])
    tol = 2e-3 if name.startswith("float") else 1e-6
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = rng.uniform(0.3, 2.0, N)
        t = rng.standard_normal(N)
        dx = np.zeros(N)
        grad(_p(x), _p(dx), N)
        tan = float(tangent(_p(x), _p(t), N))
        h = 1e-3 if name.startswith("float") else 1e-6
        xp, xm = x + h * t, x - h * t
        fd = (float(f(_p(xp), N)) - float(f(_p(xm), N))) / (2 * h)
        assert math.isclose(tan, fd, rel_tol=tol, abs_tol=tol), (name, level, tan, fd)
        assert math.isclose(float(dx @ t), fd, rel_tol=tol, abs_tol=tol), (name, level)
        assert math.isclose(float(dx @ t), tan, rel_tol=1e-5, abs_tol=1e-9), (name, level)


BIG = """
double f(const double *x, int n) { (void)n; return 1e300 / x[0]; }
"""


@pytest.mark.parametrize("level", [0, 2])
def test_no_overflow_where_the_partial_is_finite(level: int) -> None:
    """d/dy (1e300 / y) at y = 1e140 is -1e20, though q * q = 1e320 overflows: the
    derivative multiplies q by (q * 1e-300), about 1/y, never q by q."""
    jit = compile_c_to_jit(HEADER + BIG + DRIVERS, level)
    grad = jit.get("grad", None, [_DP, _DP, ctypes.c_int])
    tangent = jit.get("tangent", ctypes.c_double, [_DP, _DP, ctypes.c_int])
    x, dx, t = np.array([1e140]), np.zeros(1), np.array([1.0])
    grad(_p(x), _p(dx), 1)
    assert math.isclose(dx[0], -1e20, rel_tol=1e-12), dx[0]
    assert math.isclose(float(tangent(_p(x), _p(t), 1)), -1e20, rel_tol=1e-12)


ONE_DIVISION = """
double f(const double *x, int n) { (void)n; return 3.0 / x[0]; }
"""
TWO_OPERANDS = """
double f(const double *x, int n) { (void)n; return x[0] / x[1]; }
"""


@pytest.mark.parametrize(("name", "source", "divisions"), [
    # in the gradient and in the tangent alike
    ("constant_numerator", ONE_DIVISION, 1),  # the primal's; -q/y made it 2
    # the primal's and 1/y (before: one two-lane division of (1, -q) by y): a loop that
    # divides by an invariant y now keeps only the primal's (1/y is hoisted)
    ("two_operands", TWO_OPERANDS, 2),
])
def test_divisions_per_derivative(tmp_path: Path, name: str, source: str,
                                  divisions: int) -> None:
    src = tmp_path / f"{name}.c"
    src.write_text(HEADER + source + DRIVERS)
    out = tmp_path / f"{name}.ll"
    done = subprocess.run([*irgrad_command(), "cc", "-O2", "-S", "-emit-llvm", str(src), "-o",
                           str(out)], capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    for fn in ("grad", "tangent"):
        body = re.search(rf"^define [^@]*@{fn}\(.*?^}}", text, re.S | re.M)
        assert body is not None, f"{name}: no {fn}"
        found = len(re.findall(r"= fdiv ", body.group(0)))
        assert found == divisions, f"{name}: {fn} has {found} divisions, expected {divisions}"
