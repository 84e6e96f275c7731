"""The BLAS/LAPACK routines numba's helper library lacks, for derivatives of its LAPACK
helpers.

The derivatives of ``numba_xxgetrf``, ``numba_xgesv`` and ``numba_ez_xxgetri`` (what
``np.linalg.solve``, ``inv`` and ``det`` compile to) solve and multiply with triangular
factors: ``trsm``, ``trmm``, ``getrs``, ``swap``. numba's helpers have none of those, so
the emitter (:mod:`irgrad.ad.rules.blas_emit`) calls them as
``irgrad_scipy_<p><routine>`` in Fortran's convention, and this module binds each such
name to the routine of SciPy's ``cython_blas``/``cython_lapack`` -- the library numba's
own LAPACK helpers call (numba requires SciPy for ``np.linalg``), found the way numba's
documentation shows (``numba.extending.get_cython_function_address``).
"""

from __future__ import annotations

from typing import Any

from irgrad.ad.rules.blas_emit import SCIPY_PREFIX
from irgrad.errors import UsageError

_LAPACK_ROUTINES = ("getrs", "potrs", "getrf", "potrf")


def scipy_symbols(module: Any) -> dict[str, int]:
    """Addresses for the ``irgrad_scipy_*`` functions ``module`` (an llvmlite module)
    declares."""
    out: dict[str, int] = {}
    for fn in module.functions:
        name = fn.name
        if not fn.is_declaration or not name.startswith(SCIPY_PREFIX):
            continue
        out[name] = _address(name[len(SCIPY_PREFIX):])
    return out


def _address(routine: str) -> int:
    try:
        from numba.extending import get_cython_function_address
    except ImportError as exc:  # pragma: no cover - numba is imported by the caller
        raise UsageError(f"numba is needed for {routine}") from exc
    lib = "cython_lapack" if routine[1:] in _LAPACK_ROUTINES else "cython_blas"
    try:
        return int(get_cython_function_address(f"scipy.linalg.{lib}", routine))
    except (ImportError, ValueError) as exc:
        raise UsageError(
            f"the derivative of numba's LAPACK helpers calls {routine} from SciPy "
            f"(scipy.linalg.{lib}), which is not available: {exc}") from exc


__all__ = ["scipy_symbols"]
