"""irgrad.vjp / irgrad.jvp of numba functions: finite differences, the dot-product test
<t, J^T c> = <J t, c> between the modes, functions writing output arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from numba_ad_helpers import fd_grad

import irgrad
from irgrad.errors import UsageError


@njit
def rhs(y, p, out):
    # a small ODE right-hand side writing its result into `out` (returns None)
    out[0] = p[0] * y[0] - p[1] * y[0] * y[1]
    out[1] = -p[2] * y[1] + p[3] * y[0] * y[1]


@njit
def energy(y, p, out):
    rhs(y, p, out)
    return math.sqrt(out[0] ** 2 + out[1] ** 2) + np.sum(np.exp(-y) * p[:2])


def _outputs(f, y, p):
    """(return value, final out) of f on copies, as one flat vector."""
    out = np.zeros(2)
    r = f(y.copy(), p.copy(), out)
    return np.concatenate([[0.0 if r is None else r], out])


@pytest.mark.parametrize("f", [rhs, energy])
def test_dot_product_forward_vs_reverse(f, rng) -> None:
    y, p = rng.uniform(0.5, 1.5, 2), rng.uniform(0.5, 1.5, 4)
    ty, tp = rng.normal(size=2), rng.normal(size=4)
    c_ret, c_out = rng.normal(), rng.normal(size=2)
    value, dvalue, (ty_out, tp_out, tout) = irgrad.jvp(f)((y, p, np.zeros(2)),
                                                          (ty, tp, np.zeros(2)))
    dy, dp, dout = irgrad.vjp(f)((y, p, np.zeros(2)), c_ret, (np.zeros(2), np.zeros(4), c_out))
    jt = (dvalue or 0.0) * c_ret + float(np.dot(tout, c_out)) if f is energy else float(
        np.dot(tout, c_out))
    jtc = float(np.dot(ty, dy) + np.dot(tp, dp))
    assert jt == pytest.approx(jtc, rel=1e-10, abs=1e-12)
    np.testing.assert_array_equal(ty_out, ty)  # inputs are not written: tangents unchanged
    np.testing.assert_array_equal(tp_out, tp)
    np.testing.assert_array_equal(dout, 0.0)  # `out` is overwritten: no initial-value adjoint
    # forward mode against central differences
    eps = 1e-6
    fd = (_outputs(f, y + eps * ty, p + eps * tp) - _outputs(f, y - eps * ty, p - eps * tp)) / (
        2 * eps)
    got = np.concatenate([[dvalue or 0.0], tout])
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)
    if f is energy:
        assert value == pytest.approx(_outputs(f, y, p)[0])
    else:
        assert value is None and dvalue is None


@njit
def scaled_sum(x, s):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += math.sin(x[i] * s)
    return acc


def test_vjp_scales_by_the_return_cotangent(rng) -> None:
    x = rng.uniform(-1, 1, 5)
    gx, gs = irgrad.grad(scaled_sum)(x, 1.5)
    vx, vs = irgrad.vjp(scaled_sum)((x, 1.5), -2.5, (np.zeros(5), 0.0))
    np.testing.assert_allclose(vx, -2.5 * gx, rtol=1e-13)
    assert vs == pytest.approx(-2.5 * gs, rel=1e-13)


def test_jvp_matches_finite_differences(rng) -> None:
    x = rng.uniform(-1, 1, 5)
    tx = rng.normal(size=5)
    value, dvalue, _ = irgrad.jvp(scaled_sum)((x, 1.5), (tx, 0.7))
    want_grad = fd_grad(scaled_sum, (x, 1.5))
    assert value == pytest.approx(scaled_sum(x, 1.5))
    assert dvalue == pytest.approx(float(np.dot(want_grad[0], tx) + want_grad[1] * 0.7),
                                   rel=1e-6)


vjp_rhs = irgrad.vjp(rhs)
jvp_rhs = irgrad.jvp(rhs)


@njit
def vjp_and_jvp_in_njit(y, p, c, t):
    grads = vjp_rhs((y, p, np.zeros(2)), 0.0, (np.zeros(2), np.zeros(4), c))
    tangents = jvp_rhs((y, p, np.zeros(2)), (t, np.zeros(4), np.zeros(2)))[2]
    return np.dot(grads[0], t), np.dot(tangents[2], c)


def test_vjp_and_jvp_called_from_njit(rng) -> None:
    y, p = rng.uniform(0.5, 1.5, 2), rng.uniform(0.5, 1.5, 4)
    c, t = rng.normal(size=2), rng.normal(size=2)
    a, b = vjp_and_jvp_in_njit(y, p, c, t)
    assert a == pytest.approx(b, rel=1e-12)


@njit
def returns_matrix(a, w):
    out = np.empty((a.shape[0], 2))
    for i in range(a.shape[0]):
        out[i, 0] = a[i] * w + math.sin(a[i])
        out[i, 1] = math.exp(a[i] * w)
    return out


@njit
def returns_expression(x, s):
    return np.sin(x) * s + x * x


@pytest.mark.parametrize("f", [returns_matrix, returns_expression])
def test_returned_array(f, rng) -> None:
    x, s = rng.uniform(-1, 1, 4), 0.8
    tx, ts = rng.normal(size=4), 0.3
    value, tvalue, _ = irgrad.jvp(f)((x, s), (tx, ts))
    np.testing.assert_array_equal(value, f(x, s))
    eps = 1e-6
    fd = (f(x + eps * tx, s + eps * ts) - f(x - eps * tx, s - eps * ts)) / (2 * eps)
    np.testing.assert_allclose(tvalue, fd, rtol=1e-6, atol=1e-8)
    c = rng.normal(size=value.shape)
    dx, ds = irgrad.vjp(f)((x, s), c, (np.zeros(4), 0.0))
    assert float(np.sum(tvalue * c)) == pytest.approx(float(np.dot(dx, tx) + ds * ts),
                                                      rel=1e-10)


def test_returned_array_cotangent_shape_is_checked() -> None:
    with pytest.raises(ValueError, match="ct_return has a different shape"):
        irgrad.vjp(returns_matrix)((np.ones(3), 1.0), np.ones((2, 3)), (np.zeros(3), 0.0))
    with pytest.raises(UsageError, match="ct_return must be a float64 array"):
        irgrad.vjp(returns_matrix)((np.ones(3), 1.0), 1.0, (np.zeros(3), 0.0))


@pytest.mark.parametrize("opt_level", [0, 1, 3])
def test_modes_agree_at_optimization_levels(opt_level, rng) -> None:
    x, s = rng.uniform(-1, 1, 4), 0.8
    tx, c = rng.normal(size=4), rng.normal(size=(4, 2))
    _, tvalue, _ = irgrad.jvp(returns_matrix, opt_level=opt_level)((x, s), (tx, 0.0))
    dx, _ = irgrad.vjp(returns_matrix, opt_level=opt_level)((x, s), c, (np.zeros(4), 0.0))
    assert float(np.sum(tvalue * c)) == pytest.approx(float(np.dot(dx, tx)), rel=1e-10)
