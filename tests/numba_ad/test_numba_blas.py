"""numba's BLAS helpers (``numba_xxdot``, ``numba_xxnrm2``, ``numba_xxgemv``,
``numba_xxgemm``: what ``np.dot``, ``@`` and ``np.linalg.norm`` compile to) differentiated
through the BLAS rules, whose derivatives call those helpers again: gradients against
central differences at -O0..-O3, and forward (jvp) against reverse."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba_ad_helpers import assert_close, check_grad_against_fd, fd_grad

import irgrad

LEVELS = [0, 1, 2, 3]


@njit
def dot_norm(x, y):
    return np.dot(x, y) * np.linalg.norm(x) + np.linalg.norm(y[::2])


@njit
def matvec(W, x):
    y = W @ x
    return np.sum(np.tanh(y)) + np.dot(y, y)


@njit
def three_matvecs(W, x):
    return np.sum(np.tanh(W @ x)) + np.dot(W.T @ (W @ x), x)


@njit
def matmul(A, B):
    C = np.dot(A, B)
    return np.sum(C * C) + np.linalg.norm(C[0])


@njit
def mlp_loss(W1, b1, w2, b2, X, y):
    """A one-hidden-layer perceptron's mean squared error (regression), the way NumPy
    code writes it: a gemm for the hidden layer, a gemv for the output."""
    h = np.tanh(np.dot(X, W1) + b1)
    out = np.dot(h, w2) + b2
    err = out - y
    return np.sum(err * err) / X.shape[0]


def _args(rng: np.random.Generator, name: str) -> tuple[object, ...]:
    if name == "dot_norm":
        return rng.normal(size=5), rng.normal(size=5)
    if name == "matvec":
        return rng.normal(size=(4, 3)) * 0.5, rng.normal(size=3)
    if name == "matmul":
        return rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    x = rng.normal(size=(6, 3))
    return (rng.normal(size=(3, 5)) * 0.5, rng.normal(size=5) * 0.1,
            rng.normal(size=5) * 0.5, 0.1, x, rng.normal(size=6))


FUNCS = {"dot_norm": dot_norm, "matvec": matvec, "matmul": matmul, "mlp_loss": mlp_loss}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(FUNCS))
def test_blas_gradient_matches_finite_differences(name: str, level: int,
                                                  rng: np.random.Generator) -> None:
    check_grad_against_fd(FUNCS[name], _args(rng, name), level)


@pytest.mark.parametrize("name", ["matvec", "mlp_loss"])
def test_blas_forward_matches_reverse(name: str, rng: np.random.Generator) -> None:
    f = FUNCS[name]
    args = _args(rng, name)
    grads = irgrad.grad(f)(*args)
    tangents = tuple(rng.normal(size=np.shape(a)) if isinstance(a, np.ndarray)
                     else float(rng.normal()) for a in args)
    _, jt, _ = irgrad.jvp(f)(args, tangents)
    want = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents, strict=True))
    assert abs(float(jt) - want) <= 1e-9 * (1 + abs(want))


def test_three_matvec_calls(rng: np.random.Generator) -> None:
    args = (rng.normal(size=(4, 3)), rng.normal(size=3))
    assert_close(irgrad.grad(three_matvecs)(*args), fd_grad(three_matvecs, args))
