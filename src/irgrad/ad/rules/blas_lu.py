"""Derivatives of LAPACK's LU routines (``getrf``, ``getrs``) as BLAS calls.

``getrf`` factors ``A = P L U`` in place (``L`` unit lower, ``U`` upper, both in A; the
pivots in ``ipiv``); for square A:

* forward: ``X = L^-1 P^T dA U^-1``, ``dL = L strict_lower(X)``, ``dU = upper(X) U``;
* reverse: ``Abar = P L^-T (strict_lower(L^T Lbar) + upper(Ubar U^T)) U^-T``.

A rectangular A (m x n, ``k = min(m, n)``: L is m x k, U is k x n) splits into the
leading k x k block, which takes the square rule, and the rest of L (m > n) or of U
(m < n), which is a triangular solve with the block's factors (see :func:`_getrf_fwd`).

``getrs`` solves ``op(A) X = B`` in place with those factors (``A_full = P L U``):

* forward: ``dX = op(A)^-1 (dB - op(dA_full) X)``, ``dA_full = P (dL U + L dU)``;
* reverse: ``Z = op(A)^-T Xbar`` (the adjoint of B), ``Abar_full = -Z X^T`` (N) or
  ``-X Z^T`` (T), then ``Lbar += strict_lower(P^T Abar U^T)``, ``Ubar += upper(L^T P^T
  Abar)``.

Products with L and U are trmm/trsm on A (``diag = 'U'`` for L), row interchanges are
swaps, triangle masks are loops.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.blas_emit import BlasEmitter
from irgrad.ad.rules.blas_loops import copy_matrix, each, square
from irgrad.ad.rules.blas_rule import BlasOperands, Needs, def_blas

_F = ir.ConstantInt(ir.i1, 0)
_T = ir.ConstantInt(ir.i1, 1)


def _split(e: BlasEmitter, n: ir.Value, src: ir.Value, ld: ir.Value, lower: ir.Value,
           upper: ir.Value) -> None:
    """lower := the strict lower triangle of src, upper := its upper triangle (n x n,
    ld n; zeros elsewhere)."""
    b = e.b

    def body(i: ir.Value, j: ir.Value) -> None:
        x = b.load(e.el, e.at(src, ld, i, j))
        below = b.icmp("sgt", i, j)
        b.store(b.select(below, x, e.fp(0.0)), e.at(lower, n, i, j))
        b.store(b.select(below, e.fp(0.0), x), e.at(upper, n, i, j))
    each(e, n, body, lower_only=False)


def _merge(e: BlasEmitter, n: ir.Value, lower: ir.Value, upper: ir.Value, dst: ir.Value,
           ld: ir.Value, *, add: bool = False) -> None:
    """dst (=|+=) strict_lower(lower) + upper(upper)."""
    b = e.b

    def body(i: ir.Value, j: ir.Value) -> None:
        below = b.icmp("sgt", i, j)
        x = b.select(below, b.load(e.el, e.at(lower, n, i, j)),
                     b.load(e.el, e.at(upper, n, i, j)))
        p = e.at(dst, ld, i, j)
        b.store(b.fadd(b.load(e.el, p), x) if add else x, p)
    each(e, n, body, lower_only=False)


def _lu_l(e: BlasEmitter, right: ir.Value, trans: ir.Value, a: ir.Value, lda: ir.Value,
          n: ir.Value, cols: ir.Value, x: ir.Value, ldx: ir.Value, *, solve: bool = False,
          rows: ir.Value | None = None) -> None:
    """X := op(L) X (or X op(L); ``solve``: op(L)^-1), L the unit lower factor in A."""
    op = e.trsm if solve else e.trmm
    op(right, _F, trans, rows if rows is not None else n, cols, e.fp(1.0), a, lda, x, ldx,
       unit=_T)


def _lu_u(e: BlasEmitter, right: ir.Value, trans: ir.Value, a: ir.Value, lda: ir.Value,
          n: ir.Value, cols: ir.Value, x: ir.Value, ldx: ir.Value, *, solve: bool = False,
          rows: ir.Value | None = None) -> None:
    """X := op(U) X (or X op(U); ``solve``: op(U)^-1), U the upper factor in A."""
    op = e.trsm if solve else e.trmm
    op(right, _T, trans, rows if rows is not None else n, cols, e.fp(1.0), a, lda, x, ldx,
       unit=_F)


# -- getrf ---------------------------------------------------------------------------------
def _getrf_needs(o: BlasOperands) -> Needs:
    return [("A", "out"), ("ipiv", "out")] if o.active("A") else []


def _mask(e: BlasEmitter, k: ir.Value, t: ir.Value, *, upper: bool) -> None:
    """T (k x k, ld k) := upper(T) or strict_lower(T)."""
    b = e.b

    def body(i: ir.Value, j: ir.Value) -> None:
        p = e.at(t, k, i, j)
        below = b.icmp("sgt", i, j)
        x = b.load(e.el, p)
        b.store(b.select(below, e.fp(0.0), x) if upper else b.select(below, x, e.fp(0.0)), p)
    each(e, k, body, lower_only=False)


def _getrf_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after the call: A holds L\U
    """With ``k = min(m, n)``, ``P^T A = [A1; A2] = [L1; L2] U1`` (m > n) or ``[A1 A2] =
    L1 [U1 U2]`` (m < n): the square rule on ``A1``, then ``dL2 = (dA2 - L2 dU1) U1^-1``
    or ``dU2 = L1^-1 (dA2 - dL1 U2)``."""
    v, da = o.v, o.d.get("A")
    if da is None:
        return
    m, n, a, lda, ipiv = v["m"], v["n"], v["A"], v["lda"], v["ipiv"]
    b = e.b
    k = b.select(b.icmp("slt", m, n), m, n)
    x, ldx = copy_matrix(e, o, m, n, da, lda)
    e.swap_rows(k, n, x, ldx, ipiv, forward=True)  # P^T dA
    _lu_l(e, _F, _F, a, lda, k, k, x, ldx, solve=True)  # X = L1^-1 dA1 ...
    _lu_u(e, _T, _F, a, lda, k, k, x, ldx, solve=True)  # ... U1^-1
    lo, up = square(e, o, k), square(e, o, k)
    _split(e, k, x, ldx, lo, up)
    _lu_l(e, _F, _F, a, lda, k, k, lo, k)  # dL1 = L1 strict_lower(X)
    _lu_u(e, _T, _F, a, lda, k, k, up, k)  # dU1 = upper(X) U1
    rows, cols = b.sub(m, k), b.sub(n, k)  # one of them is zero
    x2, l2 = e.at(x, ldx, k, e.i64(0)), e.at(a, lda, k, e.i64(0))  # below the block
    e.gemm(_F, _F, rows, k, k, e.fp(-1.0), l2, lda, up, k, e.fp(1.0), x2, ldx)
    _lu_u(e, _T, _F, a, lda, k, k, x2, ldx, solve=True, rows=rows)  # dL2
    x3, u2 = e.at(x, ldx, e.i64(0), k), e.at(a, lda, e.i64(0), k)  # right of the block
    e.gemm(_F, _F, k, cols, k, e.fp(-1.0), lo, k, u2, lda, e.fp(1.0), x3, ldx)
    _lu_l(e, _F, _F, a, lda, k, cols, x3, ldx, solve=True)  # dU2
    _merge(e, k, lo, up, x, ldx)
    e.mat_scale(m, n, e.fp(0.0), da, lda)
    e.mat_axpy(m, n, e.fp(1.0), x, ldx, da, lda)


def lu_forward(e: BlasEmitter, o: BlasOperands, n: ir.Value, a: ir.Value, lda: ir.Value,
               ipiv: ir.Value, da: ir.Value) -> None:
    """da := the tangent of the factors L\\U (n x n, in a, with ipiv) from that of A."""
    x, ldx = copy_matrix(e, o, n, n, da, lda)
    e.swap_rows(n, n, x, ldx, ipiv, forward=True)  # P^T dA
    _lu_l(e, _F, _F, a, lda, n, n, x, ldx, solve=True)  # L^-1 ...
    _lu_u(e, _T, _F, a, lda, n, n, x, ldx, solve=True)  # ... U^-1
    lo, up = square(e, o, n), square(e, o, n)
    _split(e, n, x, ldx, lo, up)
    _lu_l(e, _F, _F, a, lda, n, n, lo, n)  # dL = L strict_lower(X)
    _lu_u(e, _T, _F, a, lda, n, n, up, n)  # dU = upper(X) U
    _zero_then(e, n, da, lda)
    _merge(e, n, lo, up, da, lda, add=True)


def _zero_then(e: BlasEmitter, n: ir.Value, dst: ir.Value, ld: ir.Value) -> None:
    e.mat_scale(n, n, e.fp(0.0), dst, ld)


def _getrf_rev(e: BlasEmitter, o: BlasOperands) -> None:  # A: L\U, ipiv (cached "out")
    """The transpose of :func:`_getrf_fwd`: ``Abar2 = Lbar2 U1^-T`` and ``Ubar1 -=
    upper(L2^T Abar2)`` (m > n), or ``Abar2 = L1^-T Ubar2`` and ``Lbar1 -=
    strict_lower(Abar2 U2^T)`` (m < n); then the square rule gives ``Abar1``."""
    v, da = o.v, o.d.get("A")
    if da is None:
        return
    m, n, a, lda, ipiv = v["m"], v["n"], v["A"], v["lda"], v["ipiv"]
    b = e.b
    k = b.select(b.icmp("slt", m, n), m, n)
    g, ldg = copy_matrix(e, o, m, n, da, lda)
    lo, up = square(e, o, k), square(e, o, k)
    _split(e, k, g, ldg, lo, up)  # Lbar1, Ubar1
    rows, cols = b.sub(m, k), b.sub(n, k)  # one of them is zero
    g2, l2 = e.at(g, ldg, k, e.i64(0)), e.at(a, lda, k, e.i64(0))
    _lu_u(e, _T, _T, a, lda, k, k, g2, ldg, solve=True, rows=rows)  # Abar2 = Lbar2 U1^-T
    e.gemm(_T, _F, k, k, rows, e.fp(-1.0), l2, lda, g2, ldg, e.fp(1.0), up, k)
    _mask(e, k, up, upper=True)
    g3, u2 = e.at(g, ldg, e.i64(0), k), e.at(a, lda, e.i64(0), k)
    _lu_l(e, _F, _T, a, lda, k, cols, g3, ldg, solve=True)  # Abar2 = L1^-T Ubar2
    e.gemm(_F, _T, k, k, cols, e.fp(-1.0), g3, ldg, u2, lda, e.fp(1.0), lo, k)
    _mask(e, k, lo, upper=False)
    _lu_l(e, _F, _T, a, lda, k, k, lo, k)  # L1^T Lbar1
    _lu_u(e, _T, _T, a, lda, k, k, up, k)  # Ubar1 U1^T
    _merge(e, k, lo, up, g, ldg)
    _lu_l(e, _F, _T, a, lda, k, k, g, ldg, solve=True)  # Abar1 = L1^-T ...
    _lu_u(e, _T, _T, a, lda, k, k, g, ldg, solve=True)  # ... U1^-T
    e.swap_rows(k, n, g, ldg, ipiv, forward=False)  # P ...
    e.mat_scale(m, n, e.fp(0.0), da, lda)
    e.mat_axpy(m, n, e.fp(1.0), g, ldg, da, lda)


def lu_reverse(e: BlasEmitter, o: BlasOperands, n: ir.Value, a: ir.Value, lda: ir.Value,
               ipiv: ir.Value, da: ir.Value) -> None:
    """da := the adjoint of A from that of its factors L\\U (n x n, in a, with ipiv)."""
    lo, up = square(e, o, n), square(e, o, n)
    _split(e, n, da, lda, lo, up)  # Lbar, Ubar
    _lu_l(e, _F, _T, a, lda, n, n, lo, n)  # L^T Lbar
    _lu_u(e, _T, _T, a, lda, n, n, up, n)  # Ubar U^T
    m = square(e, o, n)
    _merge(e, n, lo, up, m, n)
    _lu_l(e, _F, _T, a, lda, n, n, m, n, solve=True)  # L^-T ...
    _lu_u(e, _T, _T, a, lda, n, n, m, n, solve=True)  # ... U^-T
    e.swap_rows(n, n, m, n, ipiv, forward=False)  # P ...
    _zero_then(e, n, da, lda)
    e.mat_axpy(n, n, e.fp(1.0), m, n, da, lda)


def full_to_factors(e: BlasEmitter, o: BlasOperands, n: ir.Value, a: ir.Value,
                    lda: ir.Value, ipiv: ir.Value, g: ir.Value, da: ir.Value, *,
                    add: bool) -> None:
    """The adjoint of the factors L\\U (in a, with ipiv) from ``g`` (n x n, ld n), the
    adjoint of ``P L U``: ``Lbar = strict_lower(P^T G U^T)``, ``Ubar = upper(L^T P^T G)``,
    stored (``add``: added) into da. ``g`` is overwritten."""
    e.swap_rows(n, n, g, n, ipiv, forward=True)  # P^T G
    w1, _ = copy_matrix(e, o, n, n, g, n)
    _lu_u(e, _T, _T, a, lda, n, n, w1, n)  # P^T G U^T: Lbar
    w2, _ = copy_matrix(e, o, n, n, g, n)
    _lu_l(e, _F, _T, a, lda, n, n, w2, n)  # L^T P^T G: Ubar
    _merge(e, n, w1, w2, da, lda, add=add)


def factors_to_full(e: BlasEmitter, o: BlasOperands, n: ir.Value, a: ir.Value,
                    lda: ir.Value, ipiv: ir.Value, d: ir.Value, ldd: ir.Value) -> ir.Value:
    """``P (dL U + L dU)`` (n x n, ld n, a scratch matrix) from the tangent of the factors
    dL\\dU in ``d`` (L\\U in a, with ipiv)."""
    lo, up = square(e, o, n), square(e, o, n)
    _split(e, n, d, ldd, lo, up)
    _lu_u(e, _T, _F, a, lda, n, n, lo, n)  # dL U
    _lu_l(e, _F, _F, a, lda, n, n, up, n)  # L dU
    e.mat_axpy(n, n, e.fp(1.0), up, n, lo, n)
    e.swap_rows(n, n, lo, n, ipiv, forward=False)  # P ...
    return lo


# -- getrs ---------------------------------------------------------------------------------
def _getrs_needs(o: BlasOperands) -> Needs:
    if not o.active("B"):
        return []
    return [("A", "in"), ("ipiv", "in"), *([("B", "out")] if o.active("A") else [])]


def _op_da_full_x(e: BlasEmitter, o: BlasOperands) -> tuple[ir.Value, ir.Value]:
    """S = op(dA_full) X as a scratch matrix (n x nrhs): (S, its leading dimension)."""
    v, da = o.v, o.d["A"]
    assert da is not None
    n, nrhs, a, lda, x = v["n"], v["nrhs"], v["A"], v["lda"], v["B"]
    s, lds = copy_matrix(e, o, n, nrhs, x, v["ldb"])
    e.mat_scale(n, nrhs, e.fp(0.0), s, lds)

    def notrans() -> None:  # P (dL U X + L dU X)
        w, ld = copy_matrix(e, o, n, nrhs, x, v["ldb"])
        _lu_u(e, _F, _F, a, lda, n, nrhs, w, ld)  # U X
        w2, _ = copy_matrix(e, o, n, nrhs, w, ld)
        _lu_l(e, _F, _F, da, lda, n, nrhs, w2, ld)  # (I + dL) U X
        e.mat_axpy(n, nrhs, e.fp(-1.0), w, ld, w2, ld)
        w3, _ = copy_matrix(e, o, n, nrhs, x, v["ldb"])
        _lu_u(e, _F, _F, da, lda, n, nrhs, w3, ld)  # dU X
        _lu_l(e, _F, _F, a, lda, n, nrhs, w3, ld)  # L dU X
        e.mat_axpy(n, nrhs, e.fp(1.0), w2, ld, s, lds)
        e.mat_axpy(n, nrhs, e.fp(1.0), w3, ld, s, lds)
        e.swap_rows(n, nrhs, s, lds, v["ipiv"], forward=False)

    def trans() -> None:  # (dU^T L^T + U^T dL^T) P^T X
        y, ld = copy_matrix(e, o, n, nrhs, x, v["ldb"])
        e.swap_rows(n, nrhs, y, ld, v["ipiv"], forward=True)
        w, _ = copy_matrix(e, o, n, nrhs, y, ld)
        _lu_l(e, _F, _T, a, lda, n, nrhs, w, ld)  # L^T Y
        _lu_u(e, _F, _T, da, lda, n, nrhs, w, ld)  # dU^T L^T Y
        w2, _ = copy_matrix(e, o, n, nrhs, y, ld)
        _lu_l(e, _F, _T, da, lda, n, nrhs, w2, ld)  # (I + dL^T) Y
        e.mat_axpy(n, nrhs, e.fp(-1.0), y, ld, w2, ld)
        _lu_u(e, _F, _T, a, lda, n, nrhs, w2, ld)  # U^T dL^T Y
        e.mat_axpy(n, nrhs, e.fp(1.0), w, ld, s, lds)
        e.mat_axpy(n, nrhs, e.fp(1.0), w2, ld, s, lds)
    e.branch(v["trans"], o.scoped(e, trans), o.scoped(e, notrans))
    return s, lds


def _getrs_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after the call: B holds X
    v, db = o.v, o.d.get("B")
    if db is None:
        return
    n, nrhs = v["n"], v["nrhs"]
    if o.active("A"):
        s, lds = _op_da_full_x(e, o)
        e.mat_axpy(n, nrhs, e.fp(-1.0), s, lds, db, v["ldb"])
    e.getrs(v["trans"], n, nrhs, v["A"], v["lda"], v["ipiv"], db, v["ldb"])


def _getrs_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, db, da = o.v, o.d.get("B"), o.d.get("A")
    if db is None:
        return
    n, nrhs, a, lda, t = v["n"], v["nrhs"], v["A"], v["lda"], v["trans"]
    e.getrs(e.flip(t), n, nrhs, a, lda, v["ipiv"], db, v["ldb"])  # Z, the adjoint of B
    if da is None:
        return
    x, b = v["B"], e.b
    g = square(e, o, n)  # Abar_full: -Z X^T (N) or -X Z^T (T)
    e.gemm(_F, _T, n, n, nrhs, e.fp(-1.0), b.select(t, x, db), v["ldb"],
           b.select(t, db, x), v["ldb"], e.fp(0.0), g, n)
    full_to_factors(e, o, n, a, lda, v["ipiv"], g, da, add=True)


def_blas("getrf", _getrf_needs, _getrf_fwd, _getrf_rev)
def_blas("getrs", _getrs_needs, _getrs_fwd, _getrs_rev)
