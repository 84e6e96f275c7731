"""ctypes bridge to the C library built by build.py: objectives and hand-written
derivatives on the NumPy inputs of data.py.

    lib = AdbenchLib(build_library(out_dir))
    e = lib.gmm_objective(read_gmm(path))
    e, grad = lib.gmm_gradient_manual(inp)

Gradients come back flat in ADBench's order (GMM: alphas, means, icf; LSTM: main_params,
extra_params); the BA Jacobian as CSR; the Hand Jacobian dense, column-major like
ADBench (returned as an (nrows, ncols) array). The ``*_enzyme`` methods call the
Enzyme-style entry points and need a library that contains them (ENZYME_SOURCES
compiled by ``irgrad cc``, see ``build.build_irgrad_library``). They return the
derivative only -- the same type and layout as the last element of the matching
``*_manual`` tuple (flat gradient, ``CSR``, dense column-major Jacobian) -- because the
entry points pass the output as ``enzyme_dupnoneed`` and never produce the primal.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .data import F64, I32, BAInput, GMMInput, HandInput, LSTMInput

_D = ctypes.POINTER(ctypes.c_double)
_I = ctypes.POINTER(ctypes.c_int)
_int = ctypes.c_int
_dbl = ctypes.c_double

_SIGNATURES: dict[str, list[Any]] = {
    "gmm_objective": [_int, _int, _int, _D, _D, _D, _D, _dbl, _int, _D],
    "gmm_objective_grad_manual": [_int, _int, _int, _D, _D, _D, _D, _dbl, _int, _D, _D, _D, _D],
    "gmm_objective_grad_enzyme": [_int, _int, _int, _D, _D, _D, _D, _dbl, _int, _D, _D, _D],
    "lstm_objective": [_int, _int, _int, _D, _D, _D, _D, _D],
    "lstm_objective_grad_manual": [_int, _int, _int, _D, _D, _D, _D, _D, _D, _D],
    "lstm_objective_grad_enzyme": [_int, _int, _int, _D, _D, _D, _D, _D, _D],
    "ba_objective": [_int, _int, _int, _D, _D, _D, _I, _D, _D, _D],
    "ba_jacobian_manual": [_int, _int, _int, _D, _D, _D, _I, _D, _D, _D, _I, _I, _D],
    "ba_jacobian_enzyme": [_int, _int, _int, _D, _D, _D, _I, _D, _I, _I, _D],
    "hand_objective": [_int, _I, _D, _D, _int, _D, _D, _D, _int, _I, _D, _D],
    "hand_objective_complicated": [_int, _I, _D, _D, _int, _D, _D, _I, _D, _D, _int, _I, _D, _D],
    "hand_jacobian_manual": [_int, _I, _D, _D, _int, _D, _D, _D, _int, _I, _D, _D, _D],
    "hand_jacobian_complicated_manual": [
        *[_int, _I, _D, _D, _int, _D, _D, _I, _D, _D, _int, _I, _D, _D, _D],
    ],
    "hand_jacobian_enzyme": [_int, _I, _D, _D, _int, _D, _D, _D, _int, _I, _D, _D],
    "hand_jacobian_complicated_enzyme": [
        *[_int, _I, _D, _D, _int, _D, _D, _I, _D, _D, _int, _I, _D, _D],
    ],
    "hand_jacobian_enzyme_fwd": [_int, _I, _D, _D, _int, _D, _D, _D, _int, _I, _D, _D],
    "hand_jacobian_complicated_enzyme_fwd": [
        *[_int, _I, _D, _D, _int, _D, _D, _I, _D, _D, _int, _I, _D, _D],
    ],
}


def _d(a: F64) -> Any:
    if a.dtype != np.float64 or not a.flags.c_contiguous:
        raise TypeError("expected a C-contiguous float64 array")
    return a.ctypes.data_as(_D)


def _i(a: I32) -> Any:
    if a.dtype != np.int32 or not a.flags.c_contiguous:
        raise TypeError("expected a C-contiguous int32 array")
    return a.ctypes.data_as(_I)


@dataclass
class CSR:
    """A sparse matrix in compressed sparse row form (ADBench's BASparseMat)."""

    shape: tuple[int, int]
    rows: I32  # (nrows + 1,)
    cols: I32  # (nnz,)
    vals: F64  # (nnz,)

    def to_dense(self) -> F64:
        out = np.zeros(self.shape)
        for r in range(self.shape[0]):
            lo, hi = self.rows[r], self.rows[r + 1]
            out[r, self.cols[lo:hi]] += self.vals[lo:hi]
        return out


class AdbenchLib:
    """The C objectives and derivatives of one shared library."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lib = ctypes.CDLL(str(self.path))
        for name, argtypes in _SIGNATURES.items():
            fn = getattr(self._lib, name, None)
            if fn is not None:
                fn.argtypes = argtypes
                fn.restype = None

    def has(self, name: str) -> bool:
        return hasattr(self._lib, name)

    def _fn(self, name: str) -> Any:
        if not self.has(name):
            raise AttributeError(f"{self.path} has no function {name!r}")
        return getattr(self._lib, name)

    # ------------------------------------------------------------------- GMM
    def _gmm_args(self, g: GMMInput) -> list[Any]:
        return [g.d, g.k, g.n, _d(g.alphas), _d(g.means), _d(g.icf), _d(g.x), g.gamma, g.m]

    def gmm_objective(self, g: GMMInput) -> float:
        err = np.zeros(1)
        self._fn("gmm_objective")(*self._gmm_args(g), _d(err))
        return float(err[0])

    def gmm_gradient_manual(self, g: GMMInput) -> tuple[float, F64]:
        err = np.zeros(1)
        grad = np.zeros(g.n_params)
        da, dm, di = self._gmm_split(g, grad)
        self._fn("gmm_objective_grad_manual")(*self._gmm_args(g), _d(err), _d(da), _d(dm), _d(di))
        return float(err[0]), grad

    def gmm_gradient_enzyme(self, g: GMMInput) -> F64:
        grad = np.zeros(g.n_params)
        da, dm, di = self._gmm_split(g, grad)
        self._fn("gmm_objective_grad_enzyme")(*self._gmm_args(g), _d(da), _d(dm), _d(di))
        return grad

    @staticmethod
    def _gmm_split(g: GMMInput, grad: F64) -> tuple[F64, F64, F64]:
        a, b = g.k, g.k + g.k * g.d
        return grad[:a], grad[a:b], grad[b:]

    # ------------------------------------------------------------------- LSTM
    def _lstm_args(self, s: LSTMInput) -> list[Any]:
        return [s.l, s.c, s.b, _d(s.main_params), _d(s.extra_params)]

    def lstm_objective(self, s: LSTMInput) -> float:
        loss = np.zeros(1)
        self._fn("lstm_objective")(*self._lstm_args(s), _d(s.state), _d(s.sequence), _d(loss))
        return float(loss[0])

    def lstm_gradient_manual(self, s: LSTMInput) -> tuple[float, F64]:
        loss = np.zeros(1)
        grad = np.zeros(s.n_params)
        dm, de = grad[: 8 * s.l * s.b], grad[8 * s.l * s.b :]
        self._fn("lstm_objective_grad_manual")(
            *self._lstm_args(s), _d(s.state), _d(s.sequence), _d(loss), _d(dm), _d(de)
        )
        return float(loss[0]), grad

    def lstm_gradient_enzyme(self, s: LSTMInput) -> F64:
        grad = np.zeros(s.n_params)
        dm, de = grad[: 8 * s.l * s.b], grad[8 * s.l * s.b :]
        self._fn("lstm_objective_grad_enzyme")(
            *self._lstm_args(s), _d(s.state), _d(s.sequence), _d(dm), _d(de)
        )
        return grad

    # ------------------------------------------------------------------- BA
    def _ba_args(self, a: BAInput) -> list[Any]:
        return [a.n, a.m, a.p, _d(a.cams), _d(a.x), _d(a.w), _i(a.obs), _d(a.feats)]

    def ba_objective(self, a: BAInput) -> tuple[F64, F64]:
        """Reprojection errors (p, 2) and weight errors (p,)."""
        reproj = np.zeros((a.p, 2))
        werr = np.zeros(a.p)
        self._fn("ba_objective")(*self._ba_args(a), _d(reproj), _d(werr))
        return reproj, werr

    def _csr(self, a: BAInput) -> CSR:
        nnz = a.jacobian_nnz
        return CSR(
            shape=a.jacobian_shape,
            rows=np.zeros(3 * a.p + 1, dtype=np.int32),
            cols=np.zeros(nnz, dtype=np.int32),
            vals=np.zeros(nnz),
        )

    def ba_jacobian_manual(self, a: BAInput) -> tuple[F64, F64, CSR]:
        reproj = np.zeros((a.p, 2))
        werr = np.zeros(a.p)
        j = self._csr(a)
        self._fn("ba_jacobian_manual")(
            *self._ba_args(a), _d(reproj), _d(werr), _i(j.rows), _i(j.cols), _d(j.vals)
        )
        return reproj, werr, j

    def ba_jacobian_enzyme(self, a: BAInput) -> CSR:
        j = self._csr(a)
        self._fn("ba_jacobian_enzyme")(*self._ba_args(a), _i(j.rows), _i(j.cols), _d(j.vals))
        return j

    # ------------------------------------------------------------------- Hand
    @staticmethod
    def _hand_model_args(h: HandInput) -> list[Any]:
        md = h.model
        return [
            md.n_bones,
            _i(md.parents),
            _d(md.base_relatives),
            _d(md.inverse_base_absolutes),
            md.n_vertices,
            _d(md.base_positions),
            _d(md.weights),
        ]

    def hand_objective(self, h: HandInput) -> F64:
        """Residuals (3N,) of the simple or complicated variant (by ``h.us``)."""
        err = np.zeros(3 * len(h.correspondences))
        corr = [len(h.correspondences), _i(h.correspondences), _d(h.points), _d(err)]
        if h.us is None:
            self._fn("hand_objective")(*self._hand_model_args(h), _d(h.theta), *corr)
        else:
            self._fn("hand_objective_complicated")(
                *self._hand_model_args(h), _i(h.model.triangles), _d(h.theta), _d(h.us), *corr
            )
        return err

    def hand_jacobian_manual(self, h: HandInput) -> tuple[F64, F64]:
        """Residuals (3N,) and the analytic Jacobian, laid out like hand_jacobian_enzyme."""
        nrows = 3 * len(h.correspondences)
        err = np.zeros(nrows)
        jac = np.zeros((nrows, 26 if h.us is None else 28), order="F")
        out = [_d(err), jac.ctypes.data_as(_D)]
        corr = [len(h.correspondences), _i(h.correspondences), _d(h.points), *out]
        if h.us is None:
            self._fn("hand_jacobian_manual")(*self._hand_model_args(h), _d(h.theta), *corr)
        else:
            self._fn("hand_jacobian_complicated_manual")(
                *self._hand_model_args(h), _i(h.model.triangles), _d(h.theta), _d(h.us), *corr
            )
        return err, jac

    def hand_jacobian_enzyme(self, h: HandInput, vector_forward: bool = False) -> F64:
        """Dense Jacobian (3N, 26) or (3N, 28), stored column-major like ADBench: one
        reverse sweep per residual, or (``vector_forward``) one vector forward sweep with
        all 26/28 tangents (hand_grad_enzyme_fwd.c)."""
        nrows = 3 * len(h.correspondences)
        ncols = 26 if h.us is None else 28
        jac = np.zeros((nrows, ncols), order="F")
        out = jac.ctypes.data_as(_D)
        corr = [len(h.correspondences), _i(h.correspondences), _d(h.points), out]
        suffix = "_fwd" if vector_forward else ""
        if h.us is None:
            self._fn("hand_jacobian_enzyme" + suffix)(*self._hand_model_args(h), _d(h.theta), *corr)
        else:
            self._fn("hand_jacobian_complicated_enzyme" + suffix)(
                *self._hand_model_args(h), _i(h.model.triangles), _d(h.theta), _d(h.us), *corr
            )
        return jac
