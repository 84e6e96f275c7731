"""Derivatives of the symmetric and triangular BLAS routines (symv, trmv, trsv, symm,
syrk, trmm, trsm) as BLAS calls, and of asum.

A symmetric operand is read from one triangle (``uplo``), so its adjoint is the adjoint
of that triangle: an off-diagonal entry stands for two entries of the matrix
(``tri_accumulate(symmetric=True)``). A triangular operand's adjoint is restricted to the
stored triangle, without the diagonal when it is a unit triangle (``diag = 'U'``, whose
diagonal is never read). Restricted outer products are O(n^2) loops; every product of
matrices is a BLAS call. ``s``: side is right; ``t``: op(A) = A^T.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.blas_emit import BlasEmitter
from irgrad.ad.rules.blas_loops import (
    copy_matrix,
    each,
    in_triangle,
    square,
    tri_accumulate,
    vec_elem,
)
from irgrad.ad.rules.blas_rule import BlasOperands, Needs, def_blas, needs_when

_F = ir.ConstantInt(ir.i1, 0)
_T = ir.ConstantInt(ir.i1, 1)


def _sign(e: BlasEmitter, x: ir.Value) -> ir.Value:
    b = e.b
    return b.select(b.fcmp("ogt", x, e.fp(0.0)), e.fp(1.0),
                    b.select(b.fcmp("olt", x, e.fp(0.0)), e.fp(-1.0), e.fp(0.0)))


# -- asum ----------------------------------------------------------------------------------
def _asum_count(e: BlasEmitter, o: BlasOperands) -> ir.Value:  # BLAS: 0 for inc <= 0
    v = o.v
    return e.b.select(e.b.icmp("sgt", v["incx"], e.i64(0)), v["n"], e.i64(0))


def _asum_fwd(e: BlasEmitter, o: BlasOperands) -> ir.Value | None:  # sum sign(x_i) dx_i
    v, dx = o.v, o.d.get("x")
    if dx is None:
        return None
    acc = e.b.alloca(e.el)
    e.b.store(e.fp(0.0), acc)
    n = _asum_count(e, o)

    def body(i: ir.Value) -> None:
        x = e.b.load(e.el, vec_elem(e, v["x"], v["incx"], n, i))
        t = e.b.load(e.el, vec_elem(e, dx, v["incx"], n, i))
        e.b.store(e.b.fadd(e.b.load(e.el, acc), e.b.fmul(_sign(e, x), t)), acc)
    e.loop(n, body)
    return e.b.load(e.el, acc)


def _asum_rev(e: BlasEmitter, o: BlasOperands) -> None:  # dx_i += dr sign(x_i)
    v, dx = o.v, o.d.get("x")
    if dx is None or o.dret is None:
        return
    n = _asum_count(e, o)
    dret = o.dret

    def body(i: ir.Value) -> None:
        x = e.b.load(e.el, vec_elem(e, v["x"], v["incx"], n, i))
        p = vec_elem(e, dx, v["incx"], n, i)
        e.b.store(e.b.fadd(e.b.load(e.el, p), e.b.fmul(_sign(e, x), dret)), p)
    e.loop(n, body)


# -- symv: y = alpha A x + beta y ----------------------------------------------------------
def _symv_needs(o: BlasOperands) -> Needs:
    return needs_when(o, "y", [("A", "in", ["x", "alpha"]), ("x", "in", ["A", "alpha"]),
                           ("y", "in", ["beta"])])


def _symv_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # before the call
    v, d = o.v, o.d
    dy = d.get("y")
    if dy is None:
        return
    n, u = v["n"], v["uplo"]
    e.scal(n, v["beta"], dy, v["incy"])
    if d.get("beta") is not None:
        e.axpy(n, d["beta"], v["y"], v["incy"], dy, v["incy"])  # type: ignore[arg-type]
    for s, a, x in ((d.get("alpha"), v["A"], v["x"]), (v["alpha"], d.get("A"), v["x"]),
                    (v["alpha"], v["A"], d.get("x"))):
        if s is not None and a is not None and x is not None:
            e.symv(u, n, s, a, v["lda"], x, v["incx"], e.fp(1.0), dy, v["incy"])


def _symv_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dy = d.get("y")
    if dy is None:
        return
    n, u, b = v["n"], v["uplo"], e.b
    if o.active("alpha"):
        tmp = o.temp(e, n)
        e.symv(u, n, e.fp(1.0), v["A"], v["lda"], v["x"], v["incx"], e.fp(0.0), tmp, e.i64(1))
        o.add(e, "alpha", e.dot(n, tmp, e.i64(1), dy, v["incy"]))
    da = d.get("A")
    if da is not None:  # the triangle: alpha (dy_i x_j + dy_j x_i), diagonal alpha dy_i x_i
        def body(i: ir.Value, j: ir.Value) -> None:
            yi = b.load(e.el, vec_elem(e, dy, v["incy"], n, i))
            yj = b.load(e.el, vec_elem(e, dy, v["incy"], n, j))
            xi = b.load(e.el, vec_elem(e, v["x"], v["incx"], n, i))
            xj = b.load(e.el, vec_elem(e, v["x"], v["incx"], n, j))
            both = b.fadd(b.fmul(yi, xj), b.fmul(yj, xi))
            val = b.fmul(v["alpha"], b.select(b.icmp("eq", i, j), b.fmul(yi, xi), both))
            p = e.at(da, v["lda"], i, j)
            old = b.load(e.el, p)
            b.store(b.select(in_triangle(e, u, None, i, j), b.fadd(old, val), old), p)
        each(e, n, body, lower_only=False)
    dx = d.get("x")
    if dx is not None:
        e.symv(u, n, v["alpha"], v["A"], v["lda"], dy, v["incy"], e.fp(1.0), dx, v["incx"])
    if o.active("beta"):
        o.add(e, "beta", e.dot(n, v["y"], v["incy"], dy, v["incy"]))
    e.scal(n, v["beta"], dy, v["incy"])


# -- trmv / trsv: x = op(A) x, x = op(A)^-1 x -----------------------------------------------
def _outer_on_triangle(e: BlasEmitter, o: BlasOperands, scale: float, u_vec: ir.Value,
                       w_vec: ir.Value) -> None:
    """dA += scale * (t ? w u^T : u w^T) on A's triangle, u = dx-like, w = x-like."""
    v, da, b = o.v, o.d["A"], e.b
    assert da is not None
    n, t = v["n"], v["trans"]

    def body(i: ir.Value, j: ir.Value) -> None:
        ui = b.load(e.el, vec_elem(e, u_vec, v["incx"], n, b.select(t, j, i)))
        wj = b.load(e.el, vec_elem(e, w_vec, v["incx"], n, b.select(t, i, j)))
        p = e.at(da, v["lda"], i, j)
        old = b.load(e.el, p)
        keep = in_triangle(e, v["uplo"], v["diag"], i, j)
        b.store(b.select(keep, b.fadd(old, b.fmul(e.fp(scale), b.fmul(ui, wj))), old), p)
    each(e, n, body, lower_only=False)


def _op_da_times(e: BlasEmitter, o: BlasOperands, x: ir.Value) -> ir.Value:
    """A scratch vector op(dA) x (dA's strict triangle when A is unit)."""
    v = o.v
    n, one = v["n"], e.i64(1)
    tmp = o.temp(e, n)
    e.copy(n, x, v["incx"], tmp, one)
    e.trmv(v["uplo"], v["trans"], v["diag"], n, o.d["A"], v["lda"], tmp, one)  # type: ignore[arg-type]
    neg = e.b.select(v["diag"], e.fp(-1.0), e.fp(0.0))  # unit: minus the identity part
    e.axpy(n, neg, x, v["incx"], tmp, one)
    return tmp


def _trmv_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # before: dx = op(A) dx + op(dA) x
    v, dx = o.v, o.d.get("x")
    if dx is None:
        return
    tmp = _op_da_times(e, o, v["x"]) if o.active("A") else None
    e.trmv(v["uplo"], v["trans"], v["diag"], v["n"], v["A"], v["lda"], dx, v["incx"])
    if tmp is not None:
        e.axpy(v["n"], e.fp(1.0), tmp, e.i64(1), dx, v["incx"])


def _trmv_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, dx = o.v, o.d.get("x")
    if dx is None:
        return
    if o.active("A"):  # dA += dx x_old^T (N) or x_old dx^T (T)
        _outer_on_triangle(e, o, 1.0, dx, v["x"])
    e.trmv(v["uplo"], e.flip(v["trans"]), v["diag"], v["n"], v["A"], v["lda"], dx, v["incx"])


def _trsv_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after: dx = op(A)^-1 (db - op(dA) x)
    v, dx = o.v, o.d.get("x")
    if dx is None:
        return
    if o.active("A"):
        tmp = _op_da_times(e, o, v["x"])
        e.axpy(v["n"], e.fp(-1.0), tmp, e.i64(1), dx, v["incx"])
    e.trsv(v["uplo"], v["trans"], v["diag"], v["n"], v["A"], v["lda"], dx, v["incx"])


def _trsv_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, dx = o.v, o.d.get("x")
    if dx is None:
        return
    e.trsv(v["uplo"], e.flip(v["trans"]), v["diag"], v["n"], v["A"], v["lda"], dx, v["incx"])
    if o.active("A"):  # dA -= db x^T (N) or x db^T (T)
        _outer_on_triangle(e, o, -1.0, dx, v["x"])


# -- symm: C = alpha A B + beta C (left) or alpha B A + beta C (right) -------------------------
def _symm_needs(o: BlasOperands) -> Needs:
    return needs_when(o, "C", [("A", "in", ["B", "alpha"]), ("B", "in", ["A", "alpha"]),
                           ("C", "in", ["beta"])])


def _symm_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # before the call
    v, d = o.v, o.d
    dc = d.get("C")
    if dc is None:
        return
    m, n = v["m"], v["n"]
    e.mat_scale(m, n, v["beta"], dc, v["ldc"])
    if d.get("beta") is not None:
        e.mat_axpy(m, n, d["beta"], v["C"], v["ldc"], dc, v["ldc"])  # type: ignore[arg-type]
    for s, a, bb in ((d.get("alpha"), v["A"], v["B"]), (v["alpha"], d.get("A"), v["B"]),
                     (v["alpha"], v["A"], d.get("B"))):
        if s is not None and a is not None and bb is not None:
            e.symm(v["side"], v["uplo"], m, n, s, a, v["lda"], bb, v["ldb"], e.fp(1.0), dc,
                   v["ldc"])


def _symm_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dc = d.get("C")
    if dc is None:
        return
    m, n, s, u = v["m"], v["n"], v["side"], v["uplo"]
    if o.active("alpha"):
        ld = e.b.select(e.row_major(), n, m)
        tmp = o.temp(e, e.b.mul(m, n))
        e.symm(s, u, m, n, e.fp(1.0), v["A"], v["lda"], v["B"], v["ldb"], e.fp(0.0), tmp, ld)
        o.add(e, "alpha", e.mat_dot(m, n, tmp, ld, dc, v["ldc"]))
    da = d.get("A")
    if da is not None:  # left: alpha dC B^T (m x m); right: alpha B^T dC (n x n)
        dim, k = e.b.select(s, n, m), e.b.select(s, m, n)
        g = square(e, o, dim)
        e.gemm(s, e.flip(s), dim, dim, k, v["alpha"], e.b.select(s, v["B"], dc),
               e.b.select(s, v["ldb"], v["ldc"]), e.b.select(s, dc, v["B"]),
               e.b.select(s, v["ldc"], v["ldb"]), e.fp(0.0), g, dim)
        tri_accumulate(e, dim, u, None, da, v["lda"], g, dim, symmetric=True)
    db = d.get("B")
    if db is not None:
        e.symm(s, u, m, n, v["alpha"], v["A"], v["lda"], dc, v["ldc"], e.fp(1.0), db,
               v["ldb"])
    if o.active("beta"):
        o.add(e, "beta", e.mat_dot(m, n, v["C"], v["ldc"], dc, v["ldc"]))
    e.mat_scale(m, n, v["beta"], dc, v["ldc"])


# -- syrk: C = alpha op(A) op(A)^T + beta C on one triangle ----------------------------------
def _syrk_needs(o: BlasOperands) -> Needs:
    return needs_when(o, "C", [("A", "in", ["A", "alpha"]), ("C", "in", ["beta"])])


def _tri_dot(e: BlasEmitter, o: BlasOperands, x: ir.Value, ldx: ir.Value, y: ir.Value,
             ldy: ir.Value) -> ir.Value:
    v, b = o.v, e.b
    acc = b.alloca(e.el)
    b.store(e.fp(0.0), acc)

    def body(i: ir.Value, j: ir.Value) -> None:
        prod = b.fmul(b.load(e.el, e.at(x, ldx, i, j)), b.load(e.el, e.at(y, ldy, i, j)))
        keep = in_triangle(e, v["uplo"], None, i, j)
        b.store(b.fadd(b.load(e.el, acc), b.select(keep, prod, e.fp(0.0))), acc)
    each(e, v["n"], body, lower_only=False)
    return b.load(e.el, acc)


def _syrk_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # before the call
    v, d = o.v, o.d
    dc = d.get("C")
    if dc is None:
        return
    n, k, u, t = v["n"], v["k"], v["uplo"], v["trans"]
    e.syrk(u, t, n, k, e.fp(0.0), v["A"], v["lda"], v["beta"], dc, v["ldc"])  # beta dC
    if d.get("beta") is not None:
        g, _ = copy_matrix(e, o, n, n, v["C"], v["ldc"])
        e.mat_scale(n, n, d["beta"], g, n)  # type: ignore[arg-type]
        tri_accumulate(e, n, u, None, dc, v["ldc"], g, n, symmetric=False)
    if d.get("alpha") is not None:
        e.syrk(u, t, n, k, d["alpha"], v["A"], v["lda"], e.fp(1.0), dc, v["ldc"])  # type: ignore[arg-type]
    da = d.get("A")
    if da is not None:
        e.syr2k(u, t, n, k, v["alpha"], da, v["lda"], v["A"], v["lda"], e.fp(1.0), dc,
                v["ldc"])


def _syrk_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d, b = o.v, o.d, e.b
    dc = d.get("C")
    if dc is None:
        return
    n, k, u, t = v["n"], v["k"], v["uplo"], v["trans"]
    if o.active("alpha"):
        g = square(e, o, n)
        e.syrk(u, t, n, k, e.fp(1.0), v["A"], v["lda"], e.fp(0.0), g, n)
        o.add(e, "alpha", _tri_dot(e, o, g, n, dc, v["ldc"]))
    da = d.get("A")
    if da is not None:  # dop(A) += alpha S op(A), S: dC's triangle mirrored, diagonal doubled
        s = square(e, o, n)

        def body(i: ir.Value, j: ir.Value) -> None:
            here = in_triangle(e, u, None, i, j)
            x = b.load(e.el, e.at(dc, v["ldc"], b.select(here, i, j), b.select(here, j, i)))
            b.store(b.select(b.icmp("eq", i, j), b.fadd(x, x), x), e.at(s, n, i, j))
        each(e, n, body, lower_only=False)
        # N: dA (n x k) += alpha S A; T: dA (k x n) += alpha A S
        e.gemm(_F, _F, b.select(t, k, n), b.select(t, n, k), n, v["alpha"],
               b.select(t, v["A"], s), b.select(t, v["lda"], n), b.select(t, s, v["A"]),
               b.select(t, n, v["lda"]), e.fp(1.0), da, v["lda"])
    if o.active("beta"):
        o.add(e, "beta", _tri_dot(e, o, v["C"], v["ldc"], dc, v["ldc"]))
    e.syrk(u, t, n, k, e.fp(0.0), v["A"], v["lda"], v["beta"], dc, v["ldc"])


# -- trmm / trsm: B = alpha op(A) B, alpha op(A)^-1 B (or from the right) ----------------------
def _tr3_needs(o: BlasOperands) -> Needs:
    return needs_when(o, "B", [("A", "in", ["B", "alpha", "A"]), ("B", "in", ["A", "alpha"])])


def _trsm_needs(o: BlasOperands) -> Needs:
    return needs_when(o, "B", [("A", "in", ["B", "A", "alpha"]), ("B", "out", ["A"]),
                           ("B", "in", ["alpha"])])


def _tr3_dims(e: BlasEmitter, o: BlasOperands) -> tuple[ir.Value, ir.Value]:
    """(order of A, the other dimension of B)."""
    v = o.v
    return e.b.select(v["side"], v["n"], v["m"]), e.b.select(v["side"], v["m"], v["n"])


def _op_da_product(e: BlasEmitter, o: BlasOperands, x: ir.Value, alpha: ir.Value) -> ir.Value:
    """A scratch alpha op(dA) X (or alpha X op(dA)), dA's strict triangle when unit."""
    v = o.v
    m, n = v["m"], v["n"]
    tmp, ld = copy_matrix(e, o, m, n, x, v["ldb"])
    e.trmm(v["side"], v["uplo"], v["transa"], m, n, alpha, o.d["A"], v["lda"], tmp, ld,  # type: ignore[arg-type]
           unit=v["diag"])
    neg = e.b.select(v["diag"], e.b.fneg(alpha), e.fp(0.0))
    e.mat_axpy(m, n, neg, x, v["ldb"], tmp, ld)
    return tmp


def _trmm_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # before the call
    v, d = o.v, o.d
    db = d.get("B")
    if db is None:
        return
    m, n = v["m"], v["n"]
    ld = e.b.select(e.row_major(), n, m)
    t1 = _op_da_product(e, o, v["B"], v["alpha"]) if o.active("A") else None
    t2 = None
    if d.get("alpha") is not None:
        t2, _ = copy_matrix(e, o, m, n, v["B"], v["ldb"])
        e.trmm(v["side"], v["uplo"], v["transa"], m, n, d["alpha"], v["A"], v["lda"], t2,  # type: ignore[arg-type]
               ld, unit=v["diag"])
    e.trmm(v["side"], v["uplo"], v["transa"], m, n, v["alpha"], v["A"], v["lda"], db,
           v["ldb"], unit=v["diag"])
    for tmp in (t1, t2):
        if tmp is not None:
            e.mat_axpy(m, n, e.fp(1.0), tmp, ld, db, v["ldb"])


def _triangle_adjoint(e: BlasEmitter, o: BlasOperands, first_if_same: ir.Value,
                      first_if_flipped: ir.Value, alpha: ir.Value) -> None:
    """dA += the triangle of alpha F S^T (left) or alpha F^T S (right), where F is
    ``first_if_same`` when side and trans agree and S the other operand."""
    v, b = o.v, e.b
    s, t = v["side"], v["transa"]
    dim, k = _tr3_dims(e, o)
    flipped = b.xor(s, t)
    first = b.select(flipped, first_if_flipped, first_if_same)
    second = b.select(flipped, first_if_same, first_if_flipped)
    g = square(e, o, dim)
    e.gemm(s, e.flip(s), dim, dim, k, alpha, first, v["ldb"], second, v["ldb"], e.fp(0.0),
           g, dim)
    tri_accumulate(e, dim, v["uplo"], v["diag"], o.d["A"], v["lda"], g, dim,  # type: ignore[arg-type]
                   symmetric=False)


def _trmm_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    db = d.get("B")
    if db is None:
        return
    m, n = v["m"], v["n"]
    if o.active("alpha"):
        tmp, ld = copy_matrix(e, o, m, n, v["B"], v["ldb"])
        e.trmm(v["side"], v["uplo"], v["transa"], m, n, e.fp(1.0), v["A"], v["lda"], tmp, ld,
               unit=v["diag"])
        o.add(e, "alpha", e.mat_dot(m, n, tmp, ld, db, v["ldb"]))
    if o.active("A"):  # left N: alpha dB B^T; left T: alpha B dB^T; right: transposed
        _triangle_adjoint(e, o, db, v["B"], v["alpha"])
    e.trmm(v["side"], v["uplo"], e.flip(v["transa"]), m, n, v["alpha"], v["A"], v["lda"], db,
           v["ldb"], unit=v["diag"])


def _trsm_pre(e: BlasEmitter, o: BlasOperands) -> None:  # before: dB = alpha dB + dalpha B
    v, d = o.v, o.d
    db = d.get("B")
    if db is None:
        return
    e.mat_scale(v["m"], v["n"], v["alpha"], db, v["ldb"])
    if d.get("alpha") is not None:
        e.mat_axpy(v["m"], v["n"], d["alpha"], v["B"], v["ldb"], db, v["ldb"])  # type: ignore[arg-type]


def _trsm_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # after: dX = op(A)^-1 (.. - op(dA) X)
    v, d = o.v, o.d
    db = d.get("B")
    if db is None:
        return
    m, n = v["m"], v["n"]
    if o.active("A"):
        ld = e.b.select(e.row_major(), n, m)
        tmp = _op_da_product(e, o, v["B"], e.fp(1.0))
        e.mat_axpy(m, n, e.fp(-1.0), tmp, ld, db, v["ldb"])
    e.trsm(v["side"], v["uplo"], v["transa"], m, n, e.fp(1.0), v["A"], v["lda"], db, v["ldb"],
           unit=v["diag"])


def _trsm_rev(e: BlasEmitter, o: BlasOperands) -> None:  # B: X (out); B_in for alpha
    v, d = o.v, o.d
    db = d.get("B")
    if db is None:
        return
    m, n = v["m"], v["n"]
    # Z = op(A)^-T Xbar (left) or Xbar op(A)^-T (right), in dB
    e.trsm(v["side"], v["uplo"], e.flip(v["transa"]), m, n, e.fp(1.0), v["A"], v["lda"], db,
           v["ldb"], unit=v["diag"])
    if o.active("alpha"):
        o.add(e, "alpha", e.mat_dot(m, n, v["B_in"], v["ldb"], db, v["ldb"]))
    if o.active("A"):  # left: -Z X^T (N), -X Z^T (T); right: -X^T Z (N), -Z^T X (T)
        _triangle_adjoint(e, o, db, v["B"], e.fp(-1.0))
    e.mat_scale(m, n, v["alpha"], db, v["ldb"])


def_blas("asum", lambda o: [("x", "in")] if o.active("x") else [], _asum_fwd, _asum_rev)
def_blas("symv", _symv_needs, _symv_fwd, _symv_rev, forward_before=True)
def_blas("trmv", lambda o: needs_when(o, "x", [("A", "in", ["x"]), ("x", "in", ["A"])]),
         _trmv_fwd, _trmv_rev, forward_before=True)
def_blas("trsv", lambda o: needs_when(o, "x", [("A", "in", ["x"]), ("x", "out", ["A"])]),
         _trsv_fwd, _trsv_rev)
def_blas("symm", _symm_needs, _symm_fwd, _symm_rev, forward_before=True)
def_blas("syrk", _syrk_needs, _syrk_fwd, _syrk_rev, forward_before=True)
def_blas("trmm", _tr3_needs, _trmm_fwd, _trmm_rev, forward_before=True)
def_blas("trsm", _trsm_needs, _trsm_fwd, _trsm_rev, forward_pre=_trsm_pre)
