"""Shared helpers of the numba AD tests: central finite differences of numba functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

EPS = 1e-6


def fd_grad(f: Callable[..., float], args: tuple[Any, ...]) -> list[Any]:
    """Central differences of a float-valued ``f`` w.r.t. every float64 scalar / array."""
    out: list[Any] = []
    for i, a in enumerate(args):
        if isinstance(a, float):
            lo = list(args)
            hi = list(args)
            lo[i], hi[i] = a - EPS, a + EPS
            out.append((f(*hi) - f(*lo)) / (2 * EPS))
        elif isinstance(a, np.ndarray) and a.dtype == np.float64:
            g = np.zeros_like(a)
            for k in np.ndindex(a.shape):
                hi_a, lo_a = a.copy(), a.copy()
                hi_a[k] += EPS
                lo_a[k] -= EPS
                hi = list(args)
                lo = list(args)
                hi[i], lo[i] = hi_a, lo_a
                g[k] = (f(*hi) - f(*lo)) / (2 * EPS)
            out.append(g)
    return out


def assert_close(got: Any, want: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def check_grad_against_fd(f: Any, args: tuple[Any, ...], level: int) -> None:
    """``irgrad.grad(f)`` at ``-O<level>`` against central differences of ``f``, on a
    gradient that is not all zeros."""
    import irgrad

    got = irgrad.grad(f, opt_level=level)(*args)
    got = got if isinstance(got, tuple) else (got,)
    want = fd_grad(f, args)
    assert any(np.abs(np.asarray(w)).max() > 1e-3 for w in want)  # not vacuous
    assert_close(got, want, rtol=1e-5, atol=1e-6)
