"""Central finite differences for the ADBench tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


def central_jacobian(f: Callable[[F64], F64], x: F64, h: float = 1e-6) -> F64:
    """(len(f(x)), len(x)) Jacobian of f at x; f takes and returns flat arrays."""
    x = np.array(x, dtype=np.float64)
    cols = []
    for i in range(x.size):
        step = h * max(1.0, abs(x[i]))
        xp, xm = x.copy(), x.copy()
        xp[i] += step
        xm[i] -= step
        cols.append((np.atleast_1d(f(xp)) - np.atleast_1d(f(xm))) / (2 * step))
    return np.stack(cols, axis=1)
