"""Derivatives of LAPACK's LU routines (``getrf``, ``getrs``) as BLAS calls.

``getrf`` factors ``A = P L U`` in place (``L`` unit lower, ``U`` upper, both in A; the
pivots in ``ipiv``); its derivative is defined for square A (a rectangular one aborts with
a message at run time):

* forward: ``X = L^-1 P^T dA U^-1``, ``dL = L strict_lower(X)``, ``dU = upper(X) U``;
* reverse: ``Abar = P L^-T (strict_lower(L^T Lbar) + upper(Ubar U^T)) U^-T``.

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


def _square_only(e: BlasEmitter, o: BlasOperands) -> None:
    e.fail_unless(e.b.icmp("eq", o.v["m"], o.v["n"]),
                  f"irgrad: the derivative of {e.p}getrf is defined for square matrices "
                  "only (m != n at run time)")


def _getrf_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after the call: A holds L\U
    v, da = o.v, o.d.get("A")
    if da is None:
        return
    _square_only(e, o)
    lu_forward(e, o, v["n"], v["A"], v["lda"], v["ipiv"], da)


def lu_forward(e: BlasEmitter, o: BlasOperands, n: ir.Value, a: ir.Value, lda: ir.Value,
               ipiv: ir.Value, da: ir.Value) -> None:
    """da := the tangent of the factors L\\U (in a, with ipiv) from the tangent of A."""
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
    v, da = o.v, o.d.get("A")
    if da is None:
        return
    _square_only(e, o)
    lu_reverse(e, o, v["n"], v["A"], v["lda"], v["ipiv"], da)


def lu_reverse(e: BlasEmitter, o: BlasOperands, n: ir.Value, a: ir.Value, lda: ir.Value,
               ipiv: ir.Value, da: ir.Value) -> None:
    """da := the adjoint of A from the adjoint of its factors L\\U (in a, with ipiv)."""
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
