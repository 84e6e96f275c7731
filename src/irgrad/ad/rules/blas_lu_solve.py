"""Derivatives of LAPACK's ``gesv`` (factor and solve) and ``getri`` (the inverse from LU
factors), on the LU rules of :mod:`irgrad.ad.rules.blas_lu`.

``gesv`` overwrites A with its factors ``L\\U`` (``A = P L U``, pivots in ``ipiv``) and B
with ``X = A^-1 B``; it is ``getrf`` followed by ``getrs``, and so is its derivative, with
the product of the two simplified (``A_full`` is the matrix passed):

* forward: ``dX = A^-1 (dB - dA X)`` (a gemm and a ``getrs`` with the factors), then the
  tangent of the factors from dA (getrf's forward rule);
* reverse: the adjoint of A from that of its factors (getrf's reverse rule; zero when
  the program does not read the factors, as ``np.linalg.solve`` does not), then
  ``Z = A^-T Xbar`` (``getrs``, transposed: the adjoint of B) and ``Abar -= Z X^T``.

``getri`` (Fortran's ``dgetri_``, LAPACKE's, numba's ``numba_ez_xxgetri`` for
``np.linalg.inv``) overwrites the factors with ``Ainv = (P L U)^-1``. Its rule works on
the factors, so it composes with the ``getrf`` that made them (the tangent and adjoint in
A's shadow are those of the factors before the call, as getrf's rule leaves them):

* forward: before the call, the tangent of the factors becomes that of ``P L U``
  (``P (dL U + L dU)``); after it, ``dAinv = -Ainv dA Ainv`` (two gemms);
* reverse: ``G = -Ainv^T Ainvbar Ainv^T`` (two gemms) is the adjoint of ``P L U``, and
  the factors get ``Lbar = strict_lower(P^T G U^T)``, ``Ubar = upper(L^T P^T G)``.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.blas_emit import BlasEmitter
from irgrad.ad.rules.blas_loops import square
from irgrad.ad.rules.blas_lu import factors_to_full, full_to_factors, lu_forward, lu_reverse
from irgrad.ad.rules.blas_rule import BlasOperands, Needs, def_blas

_F = ir.ConstantInt(ir.i1, 0)
_T = ir.ConstantInt(ir.i1, 1)


# -- gesv ----------------------------------------------------------------------------------
def _gesv_needs(o: BlasOperands) -> Needs:
    if not (o.active("A") or o.active("B")):
        return []
    both = o.active("A") and o.active("B")
    return [("A", "out"), ("ipiv", "out"), *([("B", "out")] if both else [])]


def _gesv_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after: A holds L\U, B holds X
    v, da, db = o.v, o.d.get("A"), o.d.get("B")
    n, nrhs, a, lda, ipiv, ldb = v["n"], v["nrhs"], v["A"], v["lda"], v["ipiv"], v["ldb"]
    if db is not None:
        if da is not None:  # dB - dA X
            e.gemm(_F, _F, n, nrhs, n, e.fp(-1.0), da, lda, v["B"], ldb, e.fp(1.0), db, ldb)
        e.getrs(_F, n, nrhs, a, lda, ipiv, db, ldb)  # A^-1 ...
    if da is not None:  # the factors' tangent
        lu_forward(e, o, n, a, lda, ipiv, da)


def _gesv_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, da, db = o.v, o.d.get("A"), o.d.get("B")
    n, nrhs, a, lda, ipiv, ldb = v["n"], v["nrhs"], v["A"], v["lda"], v["ipiv"], v["ldb"]
    if da is not None:  # the factors' adjoint -> A's (assigned: the call overwrote A)
        lu_reverse(e, o, n, a, lda, ipiv, da)
    if db is None:
        return
    e.getrs(_T, n, nrhs, a, lda, ipiv, db, ldb)  # Z = A^-T Xbar, the adjoint of B
    if da is not None:  # Abar -= Z X^T
        e.gemm(_F, _T, n, n, nrhs, e.fp(-1.0), db, ldb, v["B"], ldb, e.fp(1.0), da, lda)


# -- getri ---------------------------------------------------------------------------------
def _getri_needs(o: BlasOperands) -> Needs:
    return [("A", "in"), ("A", "out"), ("ipiv", "in")] if o.active("A") else []


def _getri_pre(e: BlasEmitter, o: BlasOperands) -> None:  # before: A holds L\U
    v, da = o.v, o.d.get("A")
    if da is None:
        return
    n, lda = v["n"], v["lda"]
    full = factors_to_full(e, o, n, v["A"], lda, v["ipiv"], da, lda)
    e.mat_scale(n, n, e.fp(0.0), da, lda)
    e.mat_axpy(n, n, e.fp(1.0), full, n, da, lda)


def _getri_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after: A holds Ainv
    v, da = o.v, o.d.get("A")
    if da is None:
        return
    n, a, lda = v["n"], v["A"], v["lda"]
    t = square(e, o, n)
    e.gemm(_F, _F, n, n, n, e.fp(1.0), a, lda, da, lda, e.fp(0.0), t, n)  # Ainv dA
    e.gemm(_F, _F, n, n, n, e.fp(-1.0), t, n, a, lda, e.fp(0.0), da, lda)  # -(...) Ainv


def _getri_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, da = o.v, o.d.get("A")
    if da is None:
        return
    n, lda, inv, lu = v["n"], v["lda"], v["A_out"], v["A_in"]
    t, g = square(e, o, n), square(e, o, n)
    e.gemm(_T, _F, n, n, n, e.fp(1.0), inv, lda, da, lda, e.fp(0.0), t, n)  # Ainv^T Abar
    e.gemm(_F, _T, n, n, n, e.fp(-1.0), t, n, inv, lda, e.fp(0.0), g, n)  # -(...) Ainv^T
    full_to_factors(e, o, n, lu, lda, v["ipiv"], g, da, add=False)


def_blas("gesv", _gesv_needs, _gesv_fwd, _gesv_rev)
def_blas("getri", _getri_needs, _getri_fwd, _getri_rev, forward_pre=_getri_pre)

__all__: list[str] = []
