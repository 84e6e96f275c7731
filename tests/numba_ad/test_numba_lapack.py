"""numba's LAPACK helpers (``numba_xgesv``, ``numba_xxgetrf``, ``numba_ez_xxgetri``,
``numba_xxpotrf``: what ``np.linalg.solve``, ``inv``, ``det``, ``slogdet`` and
``cholesky`` compile to) differentiated through the LU and Cholesky rules: gradients
against central differences at -O0..-O3, forward (jvp) against reverse, float32, a
singular matrix raising numba's own ``LinAlgError`` from the derivative, and the helpers
without a rule (svd, eig, eigh, lstsq, qr) as errors at the line of the ``@njit`` code
that name the numpy function."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from numba import njit
from numba_ad_helpers import check_grad_against_fd

import irgrad
from irgrad.errors import DifferentiationError

LEVELS = [0, 1, 2, 3]


@njit
def ridge(A, b, lam):
    """Regularized least squares through the normal equations, as numba code writes it."""
    n = A.shape[1]
    x = np.linalg.solve(A.T @ A + lam * np.eye(n), A.T @ b)
    return np.sum(x**2)


@njit
def solve_many(A, B):
    """Several right-hand sides at once (a 2-d B)."""
    X = np.linalg.solve(A, B)
    return np.sum(np.sin(X)) + X[0, 1] * X[2, 0]


@njit
def inverse(A):
    Ainv = np.linalg.inv(A)
    return np.sum(Ainv * Ainv) + Ainv[0, 1]


@njit
def determinant(A):
    return np.linalg.det(A) + np.linalg.det(A @ A.T) * 0.1


@njit
def newton_step(A, x):
    """Solves inside a loop, with inv and solve on matrices built in the function."""
    for _ in range(2):
        J = A + np.diag(np.cos(x))
        x = x - np.linalg.solve(J, np.sin(x) + A @ x - 1.0)
    return np.sum(x * x) + np.sum(np.linalg.inv(J))


@njit
def cholesky(A, w):
    """np.linalg.cholesky of a matrix made symmetric positive definite."""
    L = np.linalg.cholesky(A @ A.T + 2.0 * np.eye(A.shape[0]))
    return np.sum(L * w) + np.log(L[1, 1])


@njit
def gaussian_logpdf(L, x):
    """A multivariate normal's log density with covariance L L^T + I, as statistics code
    writes it: the log determinant from slogdet, the precision matrix from inv."""
    S = L @ L.T + np.eye(L.shape[0])
    _sign, logdet = np.linalg.slogdet(S)
    P = np.linalg.inv(S)
    return -0.5 * (x @ P @ x) - 0.5 * logdet - 0.5 * x.shape[0] * np.log(2 * np.pi)


@njit
def log_abs_det(A):
    """slogdet of a matrix with a negative determinant (the sign is -1)."""
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet


def _args(rng: np.random.Generator, name: str) -> tuple[object, ...]:
    n = 4
    a = rng.normal(size=(n, n)) + 3.0 * np.eye(n)
    if name == "ridge":
        return rng.normal(size=(6, 3)), rng.normal(size=6), 0.3
    if name == "solve_many":
        return a, rng.normal(size=(n, 3))
    if name == "newton_step":
        return a, rng.normal(size=n) * 0.3
    if name == "cholesky":
        return rng.normal(size=(n, n)), rng.normal(size=(n, n))
    if name == "gaussian_logpdf":
        return rng.normal(size=(n, n)) * 0.5, rng.normal(size=n)
    if name == "log_abs_det":
        a[[0, 1]] = a[[1, 0]]  # a row swap: det < 0
        assert np.linalg.det(a) < 0
    return (a,)


FUNCS = {"ridge": ridge, "solve_many": solve_many, "inverse": inverse,
         "determinant": determinant, "newton_step": newton_step, "cholesky": cholesky,
         "gaussian_logpdf": gaussian_logpdf, "log_abs_det": log_abs_det}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(FUNCS))
def test_lapack_gradient_matches_finite_differences(name: str, level: int,
                                                    rng: np.random.Generator) -> None:
    check_grad_against_fd(FUNCS[name], _args(rng, name), level)


@pytest.mark.parametrize("name", list(FUNCS))
def test_lapack_forward_matches_reverse(name: str, rng: np.random.Generator) -> None:
    f = FUNCS[name]
    args = _args(rng, name)
    grads = irgrad.grad(f)(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    tangents = tuple(rng.normal(size=np.shape(a)) if isinstance(a, np.ndarray)
                     else float(rng.normal()) for a in args)
    _, jt, _ = irgrad.jvp(f)(args, tangents)
    want = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents, strict=True))
    assert abs(float(jt) - want) <= 1e-8 * (1 + abs(want))


@njit
def solve_into(A, b, out):
    """Writes the solution into ``out``: vjp's cotangent is that of out's contents."""
    out[:] = np.linalg.solve(A, b)


def test_lapack_vjp_of_an_output_array(rng: np.random.Generator) -> None:
    a = rng.normal(size=(3, 3)) + 2.0 * np.eye(3)
    b, c = rng.normal(size=3), rng.normal(size=3)
    da, db, _ = irgrad.vjp(solve_into)((a, b, np.zeros(3)), 0.0,
                                       (np.zeros((3, 3)), np.zeros(3), c))
    z = np.linalg.solve(a.T, c)  # Abar = -Z x^T, bbar = Z
    np.testing.assert_allclose(db, z, rtol=1e-10)
    np.testing.assert_allclose(da, -np.outer(z, np.linalg.solve(a, b)), rtol=1e-10)


@njit
def solve32(A, b):
    x = np.linalg.solve(A, b)
    return np.sum(x * x)


def test_float32_solve(rng: np.random.Generator) -> None:
    a = (rng.normal(size=(3, 3)) + 3.0 * np.eye(3)).astype(np.float32)
    b = rng.normal(size=3).astype(np.float32)
    da, db = irgrad.grad(solve32)(a, b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    x = np.linalg.solve(a64, b64)
    z = np.linalg.solve(a64.T, 2 * x)
    assert da.dtype == np.float32 and db.dtype == np.float32
    np.testing.assert_allclose(db, z, rtol=1e-4)
    np.testing.assert_allclose(da, -np.outer(z, x), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("f", [ridge, inverse])
def test_singular_matrix_raises_numbas_error(f: object) -> None:
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    args = (np.zeros((4, 3)), np.ones(4), 0.0) if f is ridge else (singular,)
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        f(*args)  # numba's own behaviour ...
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        irgrad.grad(f)(*args)  # ... is the derivative's
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        irgrad.jvp(f)(args, tuple(np.zeros_like(np.asarray(a)) if isinstance(a, np.ndarray)
                                  else 0.0 for a in args))


@njit
def det_only(A):
    return np.linalg.det(A)


def test_det_of_a_singular_matrix_has_nan_derivatives() -> None:
    """numba's det returns 0 without raising; LU has a zero pivot, so the derivative is
    not finite (documented in README's BLAS section), never a finite wrong number."""
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    assert det_only(singular) == 0.0
    assert np.isnan(irgrad.grad(det_only)(singular)[0]).all()


@njit
def inv_det_slogdet(A, w):
    return np.sum(np.linalg.inv(A) * w) + np.linalg.det(A) + np.linalg.slogdet(A)[1]


def test_float32_inv_det_slogdet(rng: np.random.Generator) -> None:
    """float32 in, float32 derivatives out, close to the float64 gradient: d/dA of
    sum(A^-1 * W) + det A + log|det A| is -A^-T W A^-T + (det A + 1) A^-T."""
    a = rng.normal(size=(4, 4)) + 3.0 * np.eye(4)
    w = rng.normal(size=(4, 4))
    da, dw = irgrad.grad(inv_det_slogdet)(a.astype(np.float32), w.astype(np.float32))
    assert da.dtype == np.float32 and dw.dtype == np.float32
    ait = np.linalg.inv(a).T
    want = -ait @ w @ ait + (np.linalg.det(a) + 1.0) * ait
    np.testing.assert_allclose(da, want, rtol=2e-4, atol=2e-5 * np.abs(want).max())
    np.testing.assert_allclose(dw, ait.T, rtol=2e-4, atol=1e-6)
    t = rng.normal(size=(4, 4))
    _, jt, _ = irgrad.jvp(inv_det_slogdet)((a.astype(np.float32), w.astype(np.float32)),
                                           (t.astype(np.float32), np.zeros((4, 4), np.float32)))
    assert abs(float(jt) - float(np.sum(want * t))) <= 1e-3 * (1 + abs(float(np.sum(want * t))))


@njit
def top_singular_value(A):
    _u, s, _vt = np.linalg.svd(A)  # LINE
    return s[0]


@njit
def smallest_eigenvalue(A):
    w, _v = np.linalg.eigh(A @ A.T)  # LINE
    return w[0]


@njit
def spectral_abscissa(A):
    w = np.linalg.eigvals(A)  # LINE
    return np.max(w.real)


@njit
def lstsq_fit(A, b):
    x, _res, _rank, _sv = np.linalg.lstsq(A, b)  # LINE
    return np.sum(x * x)


@njit
def r_diagonal(A):
    _q, r = np.linalg.qr(A)  # LINE
    return np.sum(np.abs(np.diag(r)))


NO_RULE = [(top_singular_value, "np.linalg.svd"), (smallest_eigenvalue, "np.linalg.eigh"),
           (spectral_abscissa, "np.linalg.eigvals"), (lstsq_fit, "np.linalg.lstsq"),
           (r_diagonal, "np.linalg.qr")]


@pytest.mark.parametrize(("f", "numpy_name"), NO_RULE,
                         ids=[name for _, name in NO_RULE])
def test_helper_without_rule_names_the_numpy_function(f: object, numpy_name: str,
                                                      rng: np.random.Generator) -> None:
    lines, first = inspect.getsourcelines(f.py_func)  # type: ignore[attr-defined]
    line = first + next(k for k, text in enumerate(lines) if "# LINE" in text)
    a = rng.normal(size=(4, 4)) + 3.0 * np.eye(4)
    args = (a, rng.normal(size=4)) if f is lstsq_fit else (a,)
    modes = [lambda: irgrad.grad(f)(*args)]
    if f is top_singular_value:  # forward mode says the same
        modes.append(lambda: irgrad.jvp(f)(args, tuple(np.ones_like(x) for x in args)))
    for run in modes:
        with pytest.raises(DifferentiationError) as info:
            run()
        text = str(info.value)
        assert f"{__file__}:{line}:" in text, text
        assert numpy_name in text and "no derivative in irgrad yet" in text, text
