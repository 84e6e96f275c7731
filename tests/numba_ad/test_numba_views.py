"""numba functions with array views and exception paths: ``reshape`` (numba's
``numba_attempt_nocopy_reshape`` computes the view's integer strides: inactive), ``ravel``,
slices and transposes of arguments, and ``raise`` on paths the inputs do not
take (inactive: they never return normally). Gradients against central differences at
-O0..-O3."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba_ad_helpers import assert_close, fd_grad

import irgrad


@njit
def pair_energy(d):
    r2 = np.sum(d * d)
    if r2 < 1e-12:
        raise ValueError("two particles at the same place", r2)
    s6 = 1.0 / r2**3
    return 4.0 * (s6 * s6 - s6)


@njit
def lennard_jones(x):
    """The Lennard-Jones energy of particles whose coordinates come as one flat array."""
    pos = x.reshape(-1, 3)
    n = pos.shape[0]
    if n < 2:  # (not `assert`: pytest rewrites asserts into code numba cannot compile)
        raise IndexError("need two particles")
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            e += pair_energy(pos[i] - pos[j])
    return e


@njit
def views(p):
    flat = p.ravel()
    steps = flat[1:] - flat[:-1]
    column = p.T[0, 1:]
    return np.sum(steps * steps) + np.sum(column * np.sin(p[1:, 2])) + np.sum(p[::2, ::2])


POSITIONS = np.array([0.0, 0.0, 0.0, 1.1, 0.1, 0.0, 0.2, 1.2, 0.1, 1.0, 1.0, 1.0, -0.9, 0.4, 0.3])


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_lennard_jones_with_reshape(opt_level: int) -> None:
    g = irgrad.grad(lennard_jones, opt_level=opt_level)(POSITIONS)
    want = fd_grad(lennard_jones, (POSITIONS,))
    assert np.max(np.abs(want[0])) > 1.0  # not vacuous
    assert_close(g, want, rtol=1e-6, atol=1e-7)


def test_lennard_jones_exception_path_still_raises() -> None:
    with pytest.raises(ValueError, match="same place"):
        irgrad.grad(lennard_jones)(np.zeros(6))
    with pytest.raises(IndexError, match="two particles"):
        irgrad.grad(lennard_jones)(np.ones(3))


@pytest.mark.parametrize("opt_level", [0, 2])
def test_ravel_slices_transpose(opt_level: int, rng) -> None:
    p = rng.normal(size=(5, 3))
    g = irgrad.grad(views, opt_level=opt_level)(p)
    assert_close(g, fd_grad(views, (p,)), rtol=1e-6, atol=1e-7)


def test_lennard_jones_forward_matches_reverse(rng) -> None:
    (g,) = irgrad.grad(lennard_jones)(POSITIONS)
    t = rng.normal(size=POSITIONS.shape)
    value, dvalue, _ = irgrad.jvp(lennard_jones)((POSITIONS,), (t,))
    assert value == pytest.approx(lennard_jones(POSITIONS))
    assert dvalue == pytest.approx(float(g @ t), rel=1e-12)
