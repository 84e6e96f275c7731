"""Derivatives of LAPACK's Cholesky routines (``potrf``, ``potrs``), as BLAS calls.

With ``A = L L^T`` (``uplo = 'U'``: ``L = U^T``; every triangular operation flips its
transposition, :meth:`BlasOperands.lt`, and the "lower view" of a stored matrix reads the
transposed upper triangle) and ``Phi(X)`` the lower triangle of ``X`` with its diagonal
halved (Murray, "Differentiation of the Cholesky decomposition", 2016):

* potrf forward: ``dL = L Phi(L^-1 sym(dA) L^-T)``; reverse:
  ``S = L^-T Phi(L^T Lbar) L^-1``, ``Abar = tril(S + S^T)`` with the diagonal halved (the
  adjoint of the lower triangle potrf reads). The triangle potrf does not reference is
  passed through, so its derivative stays where it is.
* potrs (``X = A^-1 B`` in place) forward: ``dX = A^-1 (dB - (dL L^T + L dL^T) X)``;
  reverse: ``Z = A^-1 Xbar`` (the adjoint of B), ``Lbar += tril(-(Z X^T + X Z^T) L)``.

The O(n^3) work is trmm/trsm/gemm/potrs; triangle masks are O(n^2) loops.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.blas_emit import BlasEmitter
from irgrad.ad.rules.blas_loops import copy_matrix, each, square
from irgrad.ad.rules.blas_rule import BlasOperands, Needs, def_blas

_F = ir.ConstantInt(ir.i1, 0)
_T = ir.ConstantInt(ir.i1, 1)


def _lower_view(e: BlasEmitter, o: BlasOperands, base: ir.Value, ld: ir.Value,
                i: ir.Value, j: ir.Value) -> ir.Value:
    """Pointer to entry (i, j), i >= j, of the lower factor as stored (upper: (j, i))."""
    u = o.v["uplo"]
    return e.at(base, ld, e.b.select(u, j, i), e.b.select(u, i, j))


def _phi(e: BlasEmitter, n: ir.Value, t: ir.Value) -> None:
    """T := Phi(T): strict upper triangle zeroed, diagonal halved (T is n x n, ld n)."""
    half, zero = e.fp(0.5), e.fp(0.0)

    def body(i: ir.Value, j: ir.Value) -> None:
        p = e.at(t, n, i, j)
        x = e.b.load(e.el, p)
        below = e.b.icmp("sgt", i, j)
        diag = e.b.icmp("eq", i, j)
        e.b.store(e.b.select(below, x, e.b.select(diag, e.b.fmul(x, half), zero)), p)
    each(e, n, body, lower_only=False)


# -- potrf ---------------------------------------------------------------------------------
def _potrf_needs(o: BlasOperands) -> Needs:
    return [("A", "out")] if o.active("A") else []


def _potrf_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after the call (A holds L)
    v, d = o.v, o.d
    da = d.get("A")
    if da is None:
        return
    n, a, lda, u = v["n"], v["A"], v["lda"], v["uplo"]
    one = e.fp(1.0)
    t = square(e, o, n)

    def sym(i: ir.Value, j: ir.Value) -> None:  # T = sym(dA) from the referenced triangle
        x = e.b.load(e.el, _lower_view(e, o, da, lda, i, j))
        e.b.store(x, e.at(t, n, i, j))
        e.b.store(x, e.at(t, n, j, i))
    each(e, n, sym)
    e.trsm(_F, u, o.lt(e, False), n, n, one, a, lda, t, n)  # L^-1 T
    e.trsm(_T, u, o.lt(e, True), n, n, one, a, lda, t, n)  # ... L^-T
    _phi(e, n, t)
    e.trmm(_F, u, o.lt(e, False), n, n, one, a, lda, t, n)  # L Phi(...)

    def back(i: ir.Value, j: ir.Value) -> None:
        e.b.store(e.b.load(e.el, e.at(t, n, i, j)), _lower_view(e, o, da, lda, i, j))
    each(e, n, back)


def _potrf_rev(e: BlasEmitter, o: BlasOperands) -> None:  # A: the factor L (cached "out")
    v, d = o.v, o.d
    da = d.get("A")
    if da is None:
        return
    n, a, lda, u = v["n"], v["A"], v["lda"], v["uplo"]
    one = e.fp(1.0)
    t = square(e, o, n)

    def load_bar(i: ir.Value, j: ir.Value) -> None:  # T = Lbar (lower triangle)
        e.b.store(e.b.load(e.el, _lower_view(e, o, da, lda, i, j)), e.at(t, n, i, j))
    each(e, n, load_bar)
    e.trmm(_F, u, o.lt(e, True), n, n, one, a, lda, t, n)  # L^T Lbar
    _phi(e, n, t)
    e.trsm(_T, u, o.lt(e, False), n, n, one, a, lda, t, n)  # ... L^-1
    e.trsm(_F, u, o.lt(e, True), n, n, one, a, lda, t, n)  # L^-T ...

    def store_bar(i: ir.Value, j: ir.Value) -> None:  # Abar = tril(S + S^T), diag halved
        s_ij = e.b.load(e.el, e.at(t, n, i, j))
        s_ji = e.b.load(e.el, e.at(t, n, j, i))
        val = e.b.select(e.b.icmp("eq", i, j), s_ij, e.b.fadd(s_ij, s_ji))
        e.b.store(val, _lower_view(e, o, da, lda, i, j))
    each(e, n, store_bar)


# -- potrs ---------------------------------------------------------------------------------
def _potrs_needs(o: BlasOperands) -> Needs:
    if not o.active("B"):
        return []
    return [("A", "in"), *([("B", "out")] if o.active("A") else [])]


def _potrs_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after the call (B holds X)
    v, d = o.v, o.d
    db = d.get("B")
    if db is None:
        return
    n, nrhs, a, lda, u = v["n"], v["nrhs"], v["A"], v["lda"], v["uplo"]
    x, ldb = v["B"], v["ldb"]
    one, minus = e.fp(1.0), e.fp(-1.0)
    da = d.get("A")
    if da is not None:  # dB -= dL (L^T X) + L (dL^T X)
        w, ldw = copy_matrix(e, o, n, nrhs, x, ldb)
        e.trmm(_F, u, o.lt(e, True), n, nrhs, one, a, lda, w, ldw)
        e.trmm(_F, u, o.lt(e, False), n, nrhs, one, da, lda, w, ldw)
        e.mat_axpy(n, nrhs, minus, w, ldw, db, ldb)
        z, ldz = copy_matrix(e, o, n, nrhs, x, ldb)
        e.trmm(_F, u, o.lt(e, True), n, nrhs, one, da, lda, z, ldz)
        e.trmm(_F, u, o.lt(e, False), n, nrhs, one, a, lda, z, ldz)
        e.mat_axpy(n, nrhs, minus, z, ldz, db, ldb)
    e.potrs(u, n, nrhs, a, lda, db, ldb)


def _potrs_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    db = d.get("B")
    if db is None:
        return
    n, nrhs, a, lda, u = v["n"], v["nrhs"], v["A"], v["lda"], v["uplo"]
    ldb = v["ldb"]
    one, minus, zero = e.fp(1.0), e.fp(-1.0), e.fp(0.0)
    e.potrs(u, n, nrhs, a, lda, db, ldb)  # Z = A^-1 Xbar: the adjoint of B
    da = d.get("A")
    if da is None:
        return
    x = v["B"]
    g = square(e, o, n)
    w1, ldw = copy_matrix(e, o, n, nrhs, x, ldb)
    e.trmm(_F, u, o.lt(e, True), n, nrhs, one, a, lda, w1, ldw)  # L^T X
    e.gemm(_F, _T, n, n, nrhs, minus, db, ldb, w1, ldw, zero, g, n)  # -Z (L^T X)^T
    w2, _ = copy_matrix(e, o, n, nrhs, db, ldb)
    e.trmm(_F, u, o.lt(e, True), n, nrhs, one, a, lda, w2, ldw)  # L^T Z
    e.gemm(_F, _T, n, n, nrhs, minus, x, ldb, w2, ldw, one, g, n)  # -X (L^T Z)^T

    def add_bar(i: ir.Value, j: ir.Value) -> None:
        p = _lower_view(e, o, da, lda, i, j)
        e.b.store(e.b.fadd(e.b.load(e.el, p), e.b.load(e.el, e.at(g, n, i, j))), p)
    each(e, n, add_bar)


def_blas("potrf", _potrf_needs, _potrf_fwd, _potrf_rev)
def_blas("potrs", _potrs_needs, _potrs_fwd, _potrs_rev)
