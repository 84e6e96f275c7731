"""Wrong input to irgrad.grad/vjp/jvp of numba functions: clear irgrad errors."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import irgrad
from irgrad.errors import UsageError


@njit
def total(x, s):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * x[i] * s
    return acc


@njit
def returns_array(x):
    return x * 2.0


@njit
def returns_none(x, out):
    out[0] = x[0]


@njit
def may_raise(x, s):
    if s < 0.0:
        raise ValueError("s must be non-negative")
    return np.sum(x) * s


@pytest.mark.parametrize(
    "x, words",
    [
        (np.arange(4), ["argument 0 ('x')", "float64 and float32 arrays", "int64"]),
        (np.ones(4, dtype=np.complex128), ["argument 0 ('x')", "complex128"]),
        (np.array(1.0), ["argument 0 ('x')", "0-d array"]),
        ([1.0, 2.0], ["argument 0 ('x')", "reflected list"]),
    ],
)
def test_wrong_array_argument(x, words) -> None:
    with pytest.raises(UsageError) as info:
        irgrad.grad(total)(x, 1.0)
    for w in words:
        assert w in str(info.value)


def test_float16_scalar() -> None:
    with pytest.raises(UsageError, match=r"argument 1 \('s'\).*float16"):
        irgrad.grad(total)(np.ones(3), np.float16(2.0))


def test_wrong_argument_count() -> None:
    with pytest.raises(UsageError, match="takes 2 arguments, got 1"):
        irgrad.grad(total)(np.ones(3))


@njit
def returns_tuple(x):
    return x[0], x[1]


def test_array_return_needs_vjp_or_jvp() -> None:
    with pytest.raises(UsageError, match="returns an array; grad needs a float64"):
        irgrad.grad(returns_array)(np.ones(3))


def test_tuple_return_is_rejected() -> None:
    with pytest.raises(UsageError, match=r"returns UniTuple.*output argument"):
        irgrad.vjp(returns_tuple)((np.ones(3),), 1.0, (np.zeros(3),))


def test_grad_of_function_returning_none() -> None:
    with pytest.raises(UsageError, match="returns None; grad needs a float64"):
        irgrad.grad(returns_none)(np.ones(3), np.zeros(1))


def test_vjp_structure_errors() -> None:
    g = irgrad.vjp(total)
    with pytest.raises(UsageError, match="first argument must be a tuple of the 2"):
        g((np.ones(3),), 1.0, (np.zeros(3), 0.0))
    with pytest.raises(UsageError, match="one entry per float64"):
        g((np.ones(3), 2.0), 1.0, (np.zeros(3),))
    with pytest.raises(UsageError, match=r"ct_args\[0\].*float64 array of 1"):
        g((np.ones(3), 2.0), 1.0, (np.zeros((3, 1)), 0.0))
    with pytest.raises(ValueError, match="different shape"):
        g((np.ones(3), 2.0), 1.0, (np.zeros(4), 0.0))


def test_exception_in_function_is_reported() -> None:
    g = irgrad.grad(may_raise)
    assert g(np.ones(3), 2.0)[1] == pytest.approx(3.0)
    with pytest.raises(ValueError, match="s must be non-negative"):
        g(np.ones(3), -1.0)


gradient_total = irgrad.grad(total)


@njit
def calls_with_int_array(x):
    return gradient_total(x, 1.0)


def test_wrong_dtype_inside_njit() -> None:
    # numba lets the typing-time UsageError through unchanged
    with pytest.raises(UsageError, match="float32 arrays, got an array of int64"):
        calls_with_int_array(np.arange(3))


def test_not_a_function() -> None:
    with pytest.raises(UsageError, match="need a numba @njit function"):
        irgrad.grad(42)
