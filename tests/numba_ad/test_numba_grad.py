"""irgrad.grad of numba @njit functions, checked against central finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from numba_ad_helpers import assert_close, fd_grad

import irgrad


@njit
def scalar_mix(x, y):
    return x * y + math.sin(x) / y + x**3 - math.exp(-y * y) + math.sqrt(x * x + 1.0)


@njit
def loop_math(x, a):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.sin(x[i]) * a + np.exp(0.1 * x[i]) + math.log(1.0 + x[i] * x[i]) + x[i] ** 2.5
    return s


@njit
def branches(x, y):
    r = 0.0
    for i in range(x.shape[0]):
        if x[i] > y:
            r += math.log(x[i]) * y**3
        elif x[i] > 0.5 * y:
            r -= math.cos(x[i]) * y
        else:
            r += x[i] ** 2
    return r


@njit
def helper(a, b):
    return a * math.tanh(b) + b * b


@njit
def calls_helper(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += helper(x[i], y) * helper(y, x[i])
    return s


@njit
def matrix(a, w):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j] * w[j] * (i + 1) + math.atan(a[i, j])
    return s


@njit
def array_expressions(x, y):
    t = np.exp(x) * y + x * x
    return np.sum(t) + np.sum(np.sin(t))


@njit
def temporary(x):
    t = np.empty_like(x)
    for i in range(len(x)):
        t[i] = x[i] ** 2
    acc = 0.0
    for i in range(len(x)):
        acc += t[i] * t[len(x) - 1 - i]
    return acc


@njit
def with_int(x, n, scale):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i] * scale
    return s


@njit
def in_place_then_sum(x, w):
    # writes into an argument, then reads it back: the shadow of w follows
    for i in range(x.shape[0]):
        w[i] = w[i] * x[i]
    return np.sum(w * w)


@njit
def prints_and_copies(x, s):
    # print: numba_gil_* and CPython calls on active values (inactive for AD);
    # .copy() of an argument reassigned in a loop (memcpy whose type comes through a phi)
    print("value", s)
    y = x.copy()
    for _ in range(3):
        y = y * s + np.sin(y)
    return np.sum(y)


def test_print_and_copy(rng, capfd) -> None:
    x = rng.uniform(-1, 1, 4)
    got = irgrad.grad(prints_and_copies)(x, 0.7)
    assert "value 0.7" in capfd.readouterr().out
    assert_close(got, fd_grad(prints_and_copies, (x, 0.7)))


def test_scalars() -> None:
    args = (0.7, 1.3)
    assert_close(irgrad.grad(scalar_mix)(*args), fd_grad(scalar_mix, args))


@pytest.mark.parametrize(
    "f, extra",
    [(loop_math, (0.8,)), (branches, (0.9,)), (calls_helper, (0.4,)),
     (array_expressions, (1.7,))],
)
def test_array_and_scalar(f, extra, rng) -> None:
    x = rng.uniform(0.1, 2.0, 7)
    args = (x, *extra)
    got = irgrad.grad(f)(*args)
    assert isinstance(got, tuple) and len(got) == 2
    assert got[0].shape == x.shape
    assert_close(got, fd_grad(f, args))


def test_two_dimensional(rng) -> None:
    args = (rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, 4))
    assert_close(irgrad.grad(matrix)(*args), fd_grad(matrix, args))


def test_array_allocated_inside(rng) -> None:
    x = rng.uniform(-1, 1, 6)
    assert_close(irgrad.grad(temporary)(x), fd_grad(temporary, (x,)))


def test_integer_argument_is_constant(rng) -> None:
    x = rng.uniform(-1, 1, 5)
    dx, dscale = irgrad.grad(with_int)(x, 3, 2.5)
    want_dx = np.zeros(5)
    want_dx[:3] = 2 * x[:3] * 2.5
    assert_close((dx, dscale), (want_dx, float(np.sum(x[:3] ** 2))))


def test_argument_written_in_place(rng) -> None:
    x, w = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4)

    def fresh(x, w):
        return in_place_then_sum(x, w.copy())

    got = irgrad.grad(in_place_then_sum)(x, w.copy())
    assert_close(got, fd_grad(fresh, (x, w)))


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_optimization_levels(opt_level, rng) -> None:
    x = rng.uniform(0.1, 2.0, 5)
    got = irgrad.grad(branches, opt_level=opt_level)(x, 0.9)
    assert_close(got, fd_grad(branches, (x, 0.9)))


gradient_of_loop = irgrad.grad(loop_math)


@njit
def uses_gradient(x, a):
    # the derivative is itself callable from @njit code
    dx, da = gradient_of_loop(x, a)
    return np.sum(dx * dx) + da


def test_grad_called_from_njit(rng) -> None:
    x = rng.uniform(0.1, 2.0, 4)
    dx, da = gradient_of_loop(x, 0.3)
    assert uses_gradient(x, 0.3) == pytest.approx(float(np.sum(dx * dx) + da), rel=1e-12)
    # and its value is right
    assert_close((dx, da), fd_grad(loop_math, (x, 0.3)))


def test_plain_python_function_is_compiled_by_numba() -> None:
    def cube(x):
        return x * x * x

    (d,) = irgrad.grad(cube)(2.0)
    assert d == pytest.approx(12.0)


def test_derivative_is_cached_per_signature(rng) -> None:
    g = irgrad.grad(loop_math)
    x = rng.uniform(0.1, 1.0, 3)
    first = g(x, 0.5)
    second = g(x, 0.5)
    assert_close(first, second, rtol=0, atol=0)
    assert len(g.dispatcher.overloads) == 1


gradient_of_temporary = irgrad.grad(array_expressions)


@njit(nogil=True)
def many_gradients(x, count):
    acc = np.zeros_like(x)
    for _ in range(count):
        acc += gradient_of_temporary(x, 1.7)[0]
    return acc


def test_concurrent_calls_without_gil(rng) -> None:
    # derivative modules keep NRT temporaries in a per-module arena guarded by a lock
    # (without it this test crashes the process: heap corruption)
    from concurrent.futures import ThreadPoolExecutor

    x = rng.uniform(-1, 1, 6)
    want = 2000 * gradient_of_temporary(x, 1.7)[0]
    many_gradients(x, 1)  # compile once before the threads start
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: many_gradients(x, 2000), range(8)))
    for got in results:
        np.testing.assert_allclose(got, want, rtol=1e-12)


@njit
def flag_and_count(x, flag, k):
    s = 0.0
    for i in range(k):
        s += x[i] ** 2 if flag else 3.0 * x[i]
    return s


def test_bool_and_int32_arguments_are_constant() -> None:
    x = np.array([1.0, 2.0, 3.0])
    (d1,) = irgrad.grad(flag_and_count)(x, True, 2)
    (d2,) = irgrad.grad(flag_and_count)(x, False, np.int32(3))
    np.testing.assert_allclose(d1, [2.0, 4.0, 0.0])
    np.testing.assert_allclose(d2, [3.0, 3.0, 3.0])


def test_same_derivative_object_for_the_same_function() -> None:
    assert irgrad.grad(loop_math) is irgrad.grad(loop_math)
    assert irgrad.grad(loop_math) is not irgrad.grad(loop_math, opt_level=1)
    assert irgrad.vjp(loop_math) is not irgrad.grad(loop_math)
