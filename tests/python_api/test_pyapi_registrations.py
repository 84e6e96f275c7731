"""irgrad.compile honours Enzyme's registrations and attributes: a custom gradient and
forward derivative (the straight-through estimator of quantization-aware training,
whose derivative is deliberately not the true one, so the numbers show which was used),
``__attribute__((enzyme_inactive))`` on a function and a global, at -O0 and -O2; an
``enzyme`` attribute clang would drop is an error."""

from __future__ import annotations

import numpy as np
import pytest

import irgrad
import irgrad.errors
from irgrad import Const, Duplicated

SOURCE = r"""
#include <math.h>

/* round to a grid of step q: zero derivative almost everywhere, so quantization-aware
   training differentiates it as the identity (the straight-through estimator) */
double quantize(double x, double q) { return q * nearbyint(x / q); }

typedef struct { void *tape; double value; } Aug;
Aug quantize_aug(double x, double q) { Aug a = {0, quantize(x, q)}; return a; }
typedef struct { double dx, dq; } Grad;
Grad quantize_rev(double x, double q, double d_result, void *tape) {
  Grad g = {d_result, 0.0};
  return g;
}
typedef struct { double value, tangent; } Dual;
Dual quantize_fwd(double x, double dx, double q, double dq) {
  Dual d = {quantize(x, q), dx};
  return d;
}
void *__enzyme_register_gradient_quantize[] = {(void *)quantize, (void *)quantize_aug,
                                               (void *)quantize_rev};
void *__enzyme_register_derivative_quantize[] = {(void *)quantize, (void *)quantize_fwd};

__attribute__((enzyme_inactive)) double last_residual;
static int evaluations;
__attribute__((enzyme_inactive)) static void count(double r) { evaluations += r == r; }

double loss(const double *w, const double *x, double y, int n, double q) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += quantize(w[i], q) * x[i];
  double r = s - y;
  count(r);
  last_residual = r;
  return r * r;
}

int evaluation_count(void) { return evaluations; }
"""

N = 5
RNG = np.random.default_rng(3)


@pytest.fixture(scope="module", params=[0, 2], ids=lambda o: f"O{o}")
def lib(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> irgrad.Library:
    cache = tmp_path_factory.mktemp(f"registrations-O{request.param}")
    return irgrad.compile(source=SOURCE, language="c", opt_level=request.param, cache_dir=cache)


def _residual(w: np.ndarray, x: np.ndarray, y: float, q: float) -> float:
    return float(np.dot(q * np.rint(w / q), x) - y)


def test_custom_gradient_is_used(lib: irgrad.Library) -> None:
    w, x, y, q = RNG.normal(size=N), RNG.normal(size=N), 0.3, 0.25
    gw = lib.gradient("loss", wrt=0)(w, x, y, N, q)
    r = _residual(w, x, y, q)
    np.testing.assert_allclose(gw, 2 * r * x, rtol=1e-12)  # the straight-through gradient
    assert lib["evaluation_count"]() >= 1


def test_custom_forward_derivative_is_used(lib: irgrad.Library) -> None:
    w, x, y, q = RNG.normal(size=N), RNG.normal(size=N), -0.2, 0.5
    v = RNG.normal(size=N)
    tangent = lib.fwddiff("loss", Duplicated(w, v), Const(x), Const(y), N, Const(q))
    r = _residual(w, x, y, q)
    assert tangent == pytest.approx(2 * r * float(np.dot(x, v)), rel=1e-12)


def test_enzyme_attribute_clang_drops_is_an_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = "__attribute__((enzyme_nofree)) double twice(double x) { return 2 * x; }\n"
    with pytest.raises(irgrad.errors.IRGradError, match="does not reach irgrad"):
        irgrad.compile(source=src, language="c", cache_dir=tmp_path)
