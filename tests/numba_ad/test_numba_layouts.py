"""F-order and strided (non-contiguous) array arguments: the derivative runs on
C-contiguous copies (numba compiles the function for C layout), the copies' contents go
back into writable arguments; gradients against central differences, forward against
reverse."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba_ad_helpers import assert_close, fd_grad

import irgrad


@njit
def weighted(a, w):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += np.sin(a[i, j]) * w[j] * (i + 1)
    return s


@njit
def square_into(y, out):
    for i in range(y.shape[0]):
        out[i] = y[i] * y[i]


def _layouts(rng):
    a = rng.normal(size=(4, 3))
    return {
        "C": a,
        "F": np.asfortranarray(a),
        "strided": rng.normal(size=(8, 6))[::2, ::2],
        "reversed": rng.normal(size=(4, 3))[::-1, :],
        "transposed": rng.normal(size=(3, 4)).T,
    }


@pytest.mark.parametrize(("layout", "opt_level"), [
    ("C", 2), ("F", 2), ("strided", 2), ("reversed", 2), ("transposed", 2), ("F", 0)])
def test_layouts(layout: str, opt_level: int, rng) -> None:
    a = _layouts(rng)[layout]
    w = rng.normal(size=6)[::2]  # a strided vector too
    g = irgrad.grad(weighted, opt_level=opt_level)(a, w)
    assert_close(g, fd_grad(weighted, (np.ascontiguousarray(a), np.ascontiguousarray(w))),
                 rtol=1e-6, atol=1e-8)
    want_a = np.cos(a) * w[None, :] * np.arange(1, 5)[:, None]  # exact
    np.testing.assert_allclose(g[0], want_a, rtol=1e-13)
    ta, tw = rng.normal(size=a.shape), rng.normal(size=3)
    value, tangent, _ = irgrad.jvp(weighted, opt_level=opt_level)((a, w), (ta, tw))
    assert value == pytest.approx(weighted(a, w), rel=1e-13)
    assert tangent == pytest.approx(float(np.sum(g[0] * ta) + g[1] @ tw), rel=1e-12)


def test_outputs_written_through_a_strided_view() -> None:
    y = np.arange(6.0)[::2]
    backing = np.zeros(6)
    out = backing[1::2]
    _, _, (ty, tout) = irgrad.jvp(square_into)((y, out), (np.ones(3), np.zeros(3)))
    np.testing.assert_array_equal(backing, [0.0, 0.0, 0.0, 4.0, 0.0, 16.0])
    np.testing.assert_array_equal(tout, 2 * y)
    np.testing.assert_array_equal(ty, np.ones(3))  # y is not written: its tangent stays
    dy, dout = irgrad.vjp(square_into)((y, out), 0.0, (np.zeros(3), np.ones(3)))
    np.testing.assert_array_equal(dy, 2 * y)
    np.testing.assert_array_equal(dout, np.zeros(3))  # out's initial contents are overwritten
