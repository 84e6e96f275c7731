"""``argnums`` like JAX (an int gives the one derivative, a tuple gives a tuple in that
order; the other floats and arrays are constant) and float32 scalars and arrays (their
derivatives come back as float32), against central differences at -O0..-O3."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba_ad_helpers import assert_close, fd_grad

import irgrad
from irgrad.errors import UsageError


@njit
def model(x, s, k, y):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += np.sin(x[i]) * y[i] * s
    return acc + k * s * s


X = np.linspace(0.1, 1.0, 5)
Y = np.linspace(1.0, 2.0, 5)
ARGS = (X, 1.5, 3, Y)


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_argnums(opt_level: int) -> None:
    dx, ds, dy = fd_grad(model, ARGS)
    assert np.max(np.abs(dy)) > 0.1
    g1 = irgrad.grad(model, argnums=1, opt_level=opt_level)(*ARGS)
    assert isinstance(g1, float) and g1 == pytest.approx(ds, rel=1e-7)
    g30 = irgrad.grad(model, argnums=(3, 0), opt_level=opt_level)(*ARGS)
    assert_close(g30, (dy, dx))
    (only_y,) = irgrad.grad(model, argnums=(-1,), opt_level=opt_level)(*ARGS)
    assert_close((only_y,), (dy,))
    assert_close(irgrad.grad(model, opt_level=opt_level)(*ARGS), (dx, ds, dy))


def test_argnums_inside_njit() -> None:
    g = irgrad.grad(model, argnums=0)

    @njit
    def descent_step(x, s, k, y):
        return x - 0.1 * g(x, s, k, y)

    np.testing.assert_allclose(descent_step(*ARGS), X - 0.1 * fd_grad(model, ARGS)[0],
                               rtol=1e-7)


def test_argnums_errors() -> None:
    with pytest.raises(UsageError, match="argument 2 \\('k'\\), which is not a float"):
        irgrad.grad(model, argnums=2)(*ARGS)
    with pytest.raises(UsageError, match="out of range"):
        irgrad.grad(model, argnums=4)
    with pytest.raises(UsageError, match="names an argument twice"):
        irgrad.grad(model, argnums=(0, -4))
    with pytest.raises(UsageError, match="int or a non-empty tuple"):
        irgrad.grad(model, argnums=[0])


@njit
def energy32(x, s):
    acc = np.float32(0.0)
    for i in range(x.shape[0]):
        acc += x[i] * x[i] * s + np.float32(0.5) * np.sin(x[i])
    return acc


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_float32(opt_level: int) -> None:
    x = np.linspace(0.2, 1.4, 6).astype(np.float32)
    s = np.float32(0.75)
    dx, ds = irgrad.grad(energy32, opt_level=opt_level)(x, s)
    assert dx.dtype == np.float32
    x64 = x.astype(np.float64)
    want_dx = 2 * x64 * float(s) + 0.5 * np.cos(x64)  # exact, in float64
    np.testing.assert_allclose(dx, want_dx, rtol=2e-6)
    assert ds == pytest.approx(float(np.sum(x64 * x64)), rel=2e-6)
    # float64 central differences of the same function compiled for float64
    fd = fd_grad(energy32, (x64, 0.75))
    np.testing.assert_allclose(dx, fd[0], rtol=1e-5)
    value, tangent, _ = irgrad.jvp(energy32, opt_level=opt_level)(
        (x, s), (np.ones(6, np.float32), np.float32(0.0)))
    assert value == pytest.approx(float(energy32(x, s)), rel=1e-6)
    assert tangent == pytest.approx(float(np.sum(dx)), rel=1e-5)


def test_float32_mixed_with_float64(rng) -> None:
    @njit
    def mixed(x32, w64):
        return np.sum(x32 * w64)

    x = rng.normal(size=4).astype(np.float32)
    w = rng.normal(size=4)
    dx, dw = irgrad.grad(mixed)(x, w)
    assert dx.dtype == np.float32 and dw.dtype == np.float64
    np.testing.assert_allclose(dx, w.astype(np.float32), rtol=1e-6)
    np.testing.assert_allclose(dw, x.astype(np.float64), rtol=1e-12)
