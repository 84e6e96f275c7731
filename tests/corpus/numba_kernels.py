"""numba-compiled functions of the round-trip corpus, with the signatures to compile them for."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit
def logistic_loss(x: float, y: float, w: float) -> float:
    """Scalar math with libm calls and a branch."""
    z = y * w * x
    if z > 30.0:
        return math.exp(-z)
    return math.log1p(math.exp(-z)) + 0.5 * math.tanh(w) ** 2


@njit
def dot(a: np.ndarray, b: np.ndarray) -> float:
    """An array loop (bounds through the array structs)."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@njit
def gram_trace(m: np.ndarray) -> float:
    """Nested loops over a 2-D array: the trace of m^T m with a running maximum."""
    rows, cols = m.shape
    total = 0.0
    biggest = 0.0
    for j in range(cols):
        for i in range(rows):
            v = m[i, j] * m[i, j]
            total += v
            biggest = max(biggest, v)
    return total + 0.0 * biggest


@njit
def horner(c: np.ndarray, x: float) -> float:
    r = 0.0
    for k in range(c.shape[0] - 1, -1, -1):
        r = r * x + c[k]
    return r


@njit
def poly_sum(c: np.ndarray, xs: np.ndarray) -> float:
    """Calls another @njit function."""
    s = 0.0
    for x in xs:
        s += horner(c, x)
    return s


@njit
def min_max(a: np.ndarray) -> tuple[float, float]:
    """Returns a tuple."""
    lo = a[0]
    hi = a[0]
    for v in a[1:]:
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    return lo, hi


@njit
def cumulative(a: np.ndarray) -> np.ndarray:
    """Returns a freshly allocated array (NRT allocation, refcounts)."""
    out = np.empty_like(a)
    acc = 0.0
    for i in range(a.size):
        acc += a[i]
        out[i] = acc
    return out


@njit
def collatz_steps(n: int) -> int:
    """Integer arithmetic in a while loop."""
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


KERNELS = [
    (logistic_loss, "float64(float64, float64, float64)"),
    (dot, "float64(float64[:], float64[:])"),
    (gram_trace, "float64(float64[:, :])"),
    (poly_sum, "float64(float64[::1], float64[::1])"),
    (min_max, "UniTuple(float64, 2)(float64[::1])"),
    (cumulative, "float64[::1](float64[::1])"),
    (collatz_steps, "int64(int64)"),
]


def kernel_ir(func: object, signature: str) -> tuple[str, str]:
    """``(module_text, function_name)`` of one kernel, from irgrad's numba front end."""
    from irgrad.numba.capture import numba_ir

    return numba_ir(func, signature)  # type: ignore[arg-type]
