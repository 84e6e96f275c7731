"""Derivatives of BLAS levels 1-3 as calls to BLAS again (the record and the operands:
:mod:`irgrad.ad.rules.blas_rule`; LAPACK: :mod:`irgrad.ad.rules.blas_lapack`).

Notation: ``op(A)`` is ``A`` or ``A^T`` (``trans`` true); every formula is on the logical
matrices, so it holds for CBLAS row-major and column-major alike (the emitter passes the
original layout). Scalars (``alpha``, ``beta``) are active or constant on their own: a
constant alpha costs no dot product, an inactive matrix no gemm.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.blas_emit import BlasEmitter
from irgrad.ad.rules.blas_rule import BlasOperands, Needs, def_blas, needs_when, no_needs


def _one(e: BlasEmitter) -> ir.Value:
    return e.i64(1)


def _sel(e: BlasEmitter, c: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
    return e.b.select(c, a, b)


# -- level 1 -------------------------------------------------------------------------------
def _no_tangent(e: BlasEmitter, o: BlasOperands) -> ir.Value | None:
    return None


def _no_adjoint(e: BlasEmitter, o: BlasOperands) -> None:
    return None


def _dot_needs(o: BlasOperands) -> Needs:
    return [*([("x", "in")] if o.active("y") else []), *([("y", "in")] if o.active("x") else [])]


def _dot_fwd(e: BlasEmitter, o: BlasOperands) -> ir.Value | None:
    v, d = o.v, o.d
    t: ir.Value | None = None
    for s, other, inc_s, inc_o in (("x", "y", "incx", "incy"), ("y", "x", "incy", "incx")):
        ds = d.get(s)
        if ds is not None:
            term = e.dot(v["n"], ds, v[inc_s], v[other], v[inc_o])
            t = term if t is None else e.b.fadd(t, term)
    return t


def _dot_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    if o.dret is None:
        return
    dx, dy = d.get("x"), d.get("y")
    if dx is not None:  # dx += dr y
        e.axpy(v["n"], o.dret, v["y"], v["incy"], dx, v["incx"])
    if dy is not None:  # dy += dr x
        e.axpy(v["n"], o.dret, v["x"], v["incx"], dy, v["incy"])


def _axpy_needs(o: BlasOperands) -> Needs:
    return [("x", "in")] if o.active("alpha") and o.active("y") else []


def _axpy_fwd(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dy = d.get("y")
    if dy is None:
        return
    if d.get("x") is not None:  # dy += a dx
        e.axpy(v["n"], v["alpha"], d["x"], v["incx"], dy, v["incy"])  # type: ignore[arg-type]
    if d.get("alpha") is not None:  # dy += da x
        e.axpy(v["n"], d["alpha"], v["x"], v["incx"], dy, v["incy"])  # type: ignore[arg-type]


def _axpy_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dy = d.get("y")
    if dy is None:
        return
    if o.active("alpha"):  # da += <x, dy>
        o.add(e, "alpha", e.dot(v["n"], v["x"], v["incx"], dy, v["incy"]))
    if d.get("x") is not None:  # dx += a dy
        e.axpy(v["n"], v["alpha"], dy, v["incy"], d["x"], v["incx"])  # type: ignore[arg-type]


def _scal_needs(o: BlasOperands) -> Needs:
    return [("x", "in")] if o.active("alpha") and o.active("x") else []


def _scal_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # before: dx = a dx + da x_old
    v, d = o.v, o.d
    dx = d.get("x")
    if dx is None:
        return
    e.scal(v["n"], v["alpha"], dx, v["incx"])
    if d.get("alpha") is not None:
        e.axpy(v["n"], d["alpha"], v["x"], v["incx"], dx, v["incx"])  # type: ignore[arg-type]


def _scal_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dx = d.get("x")
    if dx is None:
        return
    if o.active("alpha"):  # da += <x_old, dx>
        o.add(e, "alpha", e.dot(v["n"], v["x"], v["incx"], dx, v["incx"]))
    e.scal(v["n"], v["alpha"], dx, v["incx"])


def _copy_fwd(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dy = d.get("y")
    if dy is None:
        return
    if d.get("x") is not None:
        e.copy(v["n"], d["x"], v["incx"], dy, v["incy"])  # type: ignore[arg-type]
    else:
        e.scal(v["n"], e.fp(0.0), dy, v["incy"])


def _copy_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dy = d.get("y")
    if dy is None:
        return
    if d.get("x") is not None:  # dx += dy
        e.axpy(v["n"], e.fp(1.0), dy, v["incy"], d["x"], v["incx"])  # type: ignore[arg-type]
    e.scal(v["n"], e.fp(0.0), dy, v["incy"])


def _swap_both(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dx, dy = d.get("x"), d.get("y")
    if dx is not None and dy is not None:
        e.swap(v["n"], dx, v["incx"], dy, v["incy"])
    elif dx is not None:  # x now holds the constant y
        e.scal(v["n"], e.fp(0.0), dx, v["incx"])
    elif dy is not None:
        e.scal(v["n"], e.fp(0.0), dy, v["incy"])


def _nrm2_needs(o: BlasOperands) -> Needs:
    return [("x", "in")] if o.active("x") else []


def _nrm2_fwd(e: BlasEmitter, o: BlasOperands) -> ir.Value | None:  # d|x| = <x, dx> / |x|
    v, d = o.v, o.d
    if d.get("x") is None:
        return None
    dt = e.dot(v["n"], v["x"], v["incx"], d["x"], v["incx"])  # type: ignore[arg-type]
    return e.b.fdiv(dt, v["result"])


def _nrm2_rev(e: BlasEmitter, o: BlasOperands) -> None:  # dx += dr / |x| x
    v, d = o.v, o.d
    if d.get("x") is None or o.dret is None:
        return
    r = e.nrm2(v["n"], v["x"], v["incx"])
    e.axpy(v["n"], e.b.fdiv(o.dret, r), v["x"], v["incx"], d["x"], v["incx"])  # type: ignore[arg-type]


# -- level 2 -------------------------------------------------------------------------------
def _gemv_len(e: BlasEmitter, o: BlasOperands) -> tuple[ir.Value, ir.Value]:
    """(length of y, length of x) of ``y = alpha op(A) x + beta y``."""
    v = o.v
    return _sel(e, v["trans"], v["n"], v["m"]), _sel(e, v["trans"], v["m"], v["n"])


def _gemv_needs(o: BlasOperands) -> Needs:
    return needs_when(o, "y", [("A", "in", ["x", "alpha"]), ("x", "in", ["A", "alpha"]),
                               ("y", "in", ["beta"])])


def _gemv_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # before the call
    v, d = o.v, o.d
    dy = d.get("y")
    if dy is None:
        return
    ny, _ = _gemv_len(e, o)
    one = e.fp(1.0)
    e.scal(ny, v["beta"], dy, v["incy"])  # dy = beta dy
    if d.get("beta") is not None:  # + dbeta y_old
        e.axpy(ny, d["beta"], v["y"], v["incy"], dy, v["incy"])  # type: ignore[arg-type]
    for a_alpha, a, x in ((d.get("alpha"), v["A"], v["x"]), (v["alpha"], d.get("A"), v["x"]),
                          (v["alpha"], v["A"], d.get("x"))):
        if a_alpha is not None and a is not None and x is not None:
            e.gemv(v["trans"], v["m"], v["n"], a_alpha, a, v["lda"], x, v["incx"], one, dy,
                   v["incy"])


def _gemv_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dy = d.get("y")
    if dy is None:
        return
    ny, _ = _gemv_len(e, o)
    t = v["trans"]
    if o.active("alpha"):  # dalpha += <op(A) x, dy>
        tmp = o.temp(e, ny)
        e.gemv(t, v["m"], v["n"], e.fp(1.0), v["A"], v["lda"], v["x"], v["incx"], e.fp(0.0),
               tmp, _one(e))
        o.add(e, "alpha", e.dot(ny, tmp, _one(e), dy, v["incy"]))
    da = d.get("A")
    if da is not None:  # dA += alpha dy x^T (N) or alpha x dy^T (T)
        u, incu = _sel(e, t, v["x"], dy), _sel(e, t, v["incx"], v["incy"])
        w, incw = _sel(e, t, dy, v["x"]), _sel(e, t, v["incy"], v["incx"])
        e.ger(v["m"], v["n"], v["alpha"], u, incu, w, incw, da, v["lda"])
    dx = d.get("x")
    if dx is not None:  # dx += alpha op(A)^T dy
        e.gemv(e.flip(t), v["m"], v["n"], v["alpha"], v["A"], v["lda"], dy, v["incy"],
               e.fp(1.0), dx, v["incx"])
    if o.active("beta"):  # dbeta += <y_old, dy>
        o.add(e, "beta", e.dot(ny, v["y"], v["incy"], dy, v["incy"]))
    e.scal(ny, v["beta"], dy, v["incy"])


def _ger_needs(o: BlasOperands) -> Needs:
    if not o.active("A"):
        return []
    return [*([("x", "in")] if o.active("y") or o.active("alpha") else []),
            *([("y", "in")] if o.active("x") or o.active("alpha") else [])]


def _ger_fwd(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    da = d.get("A")
    if da is None:
        return
    for s, x, y in ((v["alpha"], d.get("x"), v["y"]), (v["alpha"], v["x"], d.get("y")),
                    (d.get("alpha"), v["x"], v["y"])):
        if s is not None and x is not None and y is not None:
            e.ger(v["m"], v["n"], s, x, v["incx"], y, v["incy"], da, v["lda"])


def _ger_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    da = d.get("A")
    if da is None:
        return
    one = e.fp(1.0)
    if d.get("x") is not None:  # dx += alpha dA y
        e.gemv(ir.ConstantInt(ir.i1, 0), v["m"], v["n"], v["alpha"], da, v["lda"], v["y"],
               v["incy"], one, d["x"], v["incx"])  # type: ignore[arg-type]
    if d.get("y") is not None:  # dy += alpha dA^T x
        e.gemv(ir.ConstantInt(ir.i1, 1), v["m"], v["n"], v["alpha"], da, v["lda"], v["x"],
               v["incx"], one, d["y"], v["incy"])  # type: ignore[arg-type]
    if o.active("alpha"):  # dalpha += x^T dA y
        tmp = o.temp(e, v["m"])
        e.gemv(ir.ConstantInt(ir.i1, 0), v["m"], v["n"], one, da, v["lda"], v["y"], v["incy"],
               e.fp(0.0), tmp, _one(e))
        o.add(e, "alpha", e.dot(v["m"], v["x"], v["incx"], tmp, _one(e)))


# -- level 3 -------------------------------------------------------------------------------
def _gemm_needs(o: BlasOperands) -> Needs:
    return needs_when(o, "C", [("A", "in", ["B", "alpha"]), ("B", "in", ["A", "alpha"]),
                               ("C", "in", ["beta"])])


def _gemm_fwd(e: BlasEmitter, o: BlasOperands) -> None:  # before the call
    v, d = o.v, o.d
    dc = d.get("C")
    if dc is None:
        return
    one = e.fp(1.0)
    e.mat_scale(v["m"], v["n"], v["beta"], dc, v["ldc"])
    if d.get("beta") is not None:  # + dbeta C_old
        e.mat_axpy(v["m"], v["n"], d["beta"], v["C"], v["ldc"], dc, v["ldc"])  # type: ignore[arg-type]
    for s, a, bb in ((d.get("alpha"), v["A"], v["B"]), (v["alpha"], d.get("A"), v["B"]),
                     (v["alpha"], v["A"], d.get("B"))):
        if s is not None and a is not None and bb is not None:
            e.gemm(v["transa"], v["transb"], v["m"], v["n"], v["k"], s, a, v["lda"], bb,
                   v["ldb"], one, dc, v["ldc"])


def _gemm_rev(e: BlasEmitter, o: BlasOperands) -> None:
    v, d = o.v, o.d
    dc = d.get("C")
    if dc is None:
        return
    ta, tb, m, n, k = v["transa"], v["transb"], v["m"], v["n"], v["k"]
    one, t_, f_ = e.fp(1.0), ir.ConstantInt(ir.i1, 1), ir.ConstantInt(ir.i1, 0)
    if o.active("alpha"):  # dalpha += <op(A) op(B), dC>
        ld = _sel(e, e.row_major(), n, m)
        tmp = o.temp(e, e.b.mul(m, n))
        e.gemm(ta, tb, m, n, k, one, v["A"], v["lda"], v["B"], v["ldb"], e.fp(0.0), tmp, ld)
        o.add(e, "alpha", e.mat_dot(m, n, tmp, ld, dc, v["ldc"]))
    da = d.get("A")
    if da is not None:
        # N: dA += alpha dC op(B)^T (m x k); T: dA += alpha op(B) dC^T (k x m)
        e.gemm(_sel(e, ta, tb, f_), _sel(e, ta, t_, e.flip(tb)), _sel(e, ta, k, m),
               _sel(e, ta, m, k), n, v["alpha"], _sel(e, ta, v["B"], dc),
               _sel(e, ta, v["ldb"], v["ldc"]), _sel(e, ta, dc, v["B"]),
               _sel(e, ta, v["ldc"], v["ldb"]), one, da, v["lda"])
    db = d.get("B")
    if db is not None:
        # N: dB += alpha op(A)^T dC (k x n); T: dB += alpha dC^T op(A) (n x k)
        e.gemm(_sel(e, tb, t_, e.flip(ta)), _sel(e, tb, ta, f_), _sel(e, tb, n, k),
               _sel(e, tb, k, n), m, v["alpha"], _sel(e, tb, dc, v["A"]),
               _sel(e, tb, v["ldc"], v["lda"]), _sel(e, tb, v["A"], dc),
               _sel(e, tb, v["lda"], v["ldc"]), one, db, v["ldb"])
    if o.active("beta"):  # dbeta += <C_old, dC>
        o.add(e, "beta", e.mat_dot(m, n, v["C"], v["ldc"], dc, v["ldc"]))
    e.mat_scale(m, n, v["beta"], dc, v["ldc"])


def_blas("dot", _dot_needs, _dot_fwd, _dot_rev)
def_blas("axpy", _axpy_needs, _axpy_fwd, _axpy_rev)
def_blas("scal", _scal_needs, _scal_fwd, _scal_rev, forward_before=True)
def_blas("copy", no_needs, _copy_fwd, _copy_rev)
def_blas("swap", no_needs, _swap_both, _swap_both)
def_blas("nrm2", _nrm2_needs, _nrm2_fwd, _nrm2_rev)
def_blas("gemv", _gemv_needs, _gemv_fwd, _gemv_rev, forward_before=True)
def_blas("ger", _ger_needs, _ger_fwd, _ger_rev)
def_blas("gemm", _gemm_needs, _gemm_fwd, _gemm_rev, forward_before=True)
# i?amax / i?amin: an index read off an array, written nowhere: no derivative work
for _index in ("iamax", "iamin"):
    def_blas(_index, no_needs, _no_tangent, _no_adjoint)

__all__: list[str] = []
