"""``irgrad.grad(irgrad.grad(f))``: the inner gradient goes into the module as IR (its
``__enzyme_autodiff`` lowered inside the function the outer one differentiates: reverse
over reverse), checked against central differences of the first derivative and the
closed form, at -O0..-O3, from Python and from ``@njit`` code."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

import irgrad
from irgrad.errors import UsageError


@njit
def f(x):
    return math.sin(x) * x * x


def d2f(x: float) -> float:
    return 2 * math.sin(x) + 4 * x * math.cos(x) - x * x * math.sin(x)


@njit
def h(x, y, k):
    return math.exp(x * y) + k * x**3 * y


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_grad_of_grad_scalar(opt_level: int) -> None:
    g = irgrad.grad(f, opt_level=opt_level)
    gg = irgrad.grad(g, opt_level=opt_level)
    for x in (-0.7, 0.4, 1.3):
        (second,) = gg(x)
        eps = 1e-6
        fd = (g(x + eps)[0] - g(x - eps)[0]) / (2 * eps)
        assert second == pytest.approx(fd, rel=1e-7, abs=1e-8)
        assert second == pytest.approx(d2f(x), rel=1e-12)


@pytest.mark.parametrize("opt_level", [0, 2])
def test_grad_of_grad_with_argnums(opt_level: int) -> None:
    x, y, k = 0.5, 1.2, 2
    hx = irgrad.grad(h, argnums=0, opt_level=opt_level)
    hxx, hxy = irgrad.grad(hx, opt_level=opt_level)(x, y, k)
    assert hxx == pytest.approx(y * y * math.exp(x * y) + 6 * k * x * y, rel=1e-12)
    assert hxy == pytest.approx(math.exp(x * y) * (1 + x * y) + 3 * k * x * x, rel=1e-12)
    only_y = irgrad.grad(hx, argnums=1, opt_level=opt_level)(x, y, k)
    assert only_y == pytest.approx(hxy, rel=1e-14)
    eps = 1e-6
    fd = (hx(x, y + eps, k) - hx(x, y - eps, k)) / (2 * eps)
    assert only_y == pytest.approx(fd, rel=1e-7)


def test_grad_of_grad_inside_njit() -> None:
    gg = irgrad.grad(irgrad.grad(f))

    @njit
    def newton_step_on_derivative(x):  # a step of Newton's method for f'(x) = 0
        return x - irgrad_first(x)[0] / gg(x)[0]

    irgrad_first = irgrad.grad(f)
    x = 2.0
    want = x - irgrad_first(x)[0] / d2f(x)
    assert newton_step_on_derivative(x) == pytest.approx(want, rel=1e-12)


def test_grad_of_grad_needs_one_float() -> None:
    with pytest.raises(UsageError, match="inner gradient must be one float"):
        irgrad.grad(irgrad.grad(h))(0.5, 1.2, 2)  # the inner gradient is a pair
    with pytest.raises(UsageError, match="third derivative"):
        irgrad.grad(irgrad.grad(irgrad.grad(f)))
    with pytest.raises(UsageError, match="only as grad"):
        irgrad.vjp(irgrad.grad(f))

    @njit
    def with_array(x, a):
        return x * np.sum(a * a)

    with pytest.raises(UsageError, match="with respect to float scalars"):
        irgrad.grad(irgrad.grad(with_array, argnums=0))(1.0, np.ones(3))
    gg = irgrad.grad(irgrad.grad(with_array, argnums=0), argnums=0)
    assert gg(1.0, np.ones(3)) == 0.0  # d/dx of sum(a*a): zero, and not an error
