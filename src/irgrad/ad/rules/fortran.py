"""Derivatives of flang's array intrinsics (:mod:`irgrad.analysis.fortran_runtime`), as
calls of the runtime again wherever it has the operation: the tangent of ``sum(a)`` is
``sum`` of the tangent array, those of ``dot_product`` and ``matmul`` are the routine with
one operand replaced by its tangent, and the adjoints of ``matmul`` are two more
``matmul`` calls on transposed views (``dA += dR B^T``, ``dB += A^T dR``, a vector seen as
a 1 x n or n x 1 matrix). What the runtime has no routine for -- ``y += alpha x`` over two
descriptors, the position of a ``maxval`` -- the helpers of
:mod:`irgrad.ad.rules.fortran_helpers` do. The record: :mod:`irgrad.ad.rules.fortran_rule`.
"""

from __future__ import annotations

from collections.abc import Callable

from irgrad import ir
from irgrad.ad.rules.fortran_emit import DescriptorEmitter
from irgrad.ad.rules.fortran_helpers import c64, counted_loop, field_ptr, rank
from irgrad.ad.rules.fortran_rule import (
    FortranOperands,
    FortranRule,
    Saves,
    def_fortran,
    shadow_of,
    views,
)
from irgrad.analysis.fortran_runtime import ATTRIBUTE_OTHER, MAX_RANK, RANK_OFFSET


# -- sum -----------------------------------------------------------------------------------
def _sum_saves(o: FortranOperands) -> Saves:
    has_mask = not isinstance(o.v.get("mask"), ir.ConstantPointerNull | None)
    return [*views(o, "array"), *(["copy:mask"] if has_mask else [])]


def _sum_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("array"):
        return None
    return o.again(e, array=e.tangent(o.v["array"], shadow_of(o, "array")))


def _sum_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("array") and o.dret is not None:  # every (unmasked) element += dr
        e.update(shadow_of(o, "array"), None, o.dret, mask=o.copies.get("mask"))


def_fortran(FortranRule("sum", _sum_saves, _sum_forward, _sum_reverse, slot_rank="array"))


# -- maxval, minval: the derivative flows to the first extremal element ------------------
def _extremum_at(e: DescriptorEmitter, o: FortranOperands) -> ir.Value:
    """The shadow element of the first maximum (minimum), or null."""
    b = e.b
    off = e.extremum(o.v["array"], o.v["mask"], o.function.name.startswith(
        "_FortranAMaxval"))
    base = e.shadow_base(o.v["array"], shadow_of(o, "array"))
    at = b.gep(ir.i8, base, [off])
    none = b.or_(b.icmp("slt", off, c64(0)), b.icmp("eq", base, ir.ConstantPointerNull(ir.ptr)))
    return b.select(none, ir.ConstantPointerNull(ir.ptr), at)


def _extremum_augment(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("array"):
        o.saved["at"] = _extremum_at(e, o)


def _extremum_saves(o: FortranOperands) -> Saves:
    return ["value:at"] if o.active("array") else []


def _extremum_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("array"):
        return None
    b = e.b
    at = _extremum_at(e, o)
    slot = e.new_slot(e.el)
    b.store(e.fp(0.0), slot)
    _, join = e.if_then(b.icmp("ne", at, ir.ConstantPointerNull(ir.ptr)), "extremum")
    b.store(b.load(e.el, at), slot)
    e.join(join)
    return b.load(e.el, slot)


def _extremum_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    at = o.saved.get("at")
    if at is None or o.dret is None:
        return
    b = e.b
    _, join = e.if_then(b.icmp("ne", at, ir.ConstantPointerNull(ir.ptr)), "extremum")
    b.store(b.fadd(b.load(e.el, at), o.dret), at)
    e.join(join)


def_fortran(FortranRule("maxval", _extremum_saves, _extremum_forward, _extremum_reverse,
                        augment=_extremum_augment), "minval")


# -- dot_product -----------------------------------------------------------------------------
def _bilinear_saves(o: FortranOperands, *result: str) -> Saves:
    return [*views(o, *result, "x", "y"), *(["copy:y"] if o.active("x") else []),
            *(["copy:x"] if o.active("y") else [])]


def _dot_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    t: ir.Value | None = None
    for role in ("x", "y"):
        if o.active(role):
            term = o.again(e, **{role: e.tangent(o.v[role], shadow_of(o, role))})
            t = term if t is None else e.b.fadd(t, term)
    return t


def _dot_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.dret is None:
        return
    if o.active("x"):  # dx += dr y
        e.update(shadow_of(o, "x"), o.copies["y"], o.dret)
    if o.active("y"):  # dy += dr x
        e.update(shadow_of(o, "y"), o.copies["x"], o.dret)


def_fortran(FortranRule("dot_product", _bilinear_saves, _dot_forward, _dot_reverse,
                        slot_rank=1))


# -- norm2: d|x| = <x, dx> / |x| ------------------------------------------------------------------
def _norm2_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("array") or o.result is None:
        return None
    inner = e.dot(o.v["array"], e.tangent(o.v["array"], shadow_of(o, "array")))
    t = e.b.fdiv(inner, e.to_double(o.result))
    return t if e.el == ir.double else e.b.fptrunc(t, e.el)


def _norm2_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("array") or o.dret is None:  # dx += dr x / |x| (|x|: the runtime again)
        return
    x = o.copies["array"]
    norm = o.again(e, array=x)
    e.update(shadow_of(o, "array"), x, e.b.fdiv(e.to_double(o.dret), e.to_double(norm)))


def_fortran(FortranRule(
    "norm2", lambda o: [*views(o, "array"), *(["copy:array"] if o.active("array") else [])],
    _norm2_forward, _norm2_reverse, slot_rank="array"))


# -- results the runtime allocates (matmul, transpose) -------------------------------------
def zeroed_result(e: DescriptorEmitter, o: FortranOperands) -> None:
    """Reverse mode: the shadow of an allocated result is a zeroed block of its size."""
    if o.active("result"):
        e.view_into(shadow_of(o, "result"), o.v["result"], e.zeroed_block(o.v["result"]))


def _sum_into(e: DescriptorEmitter, terms: list[ir.Value]) -> ir.Value:
    """The first of the allocated ``terms`` plus the others (freed)."""
    for t in terms[1:]:
        e.add(terms[0], t)
        e.free(e.base(t))
    return terms[0]


# -- matmul, matmul(transpose(a), b) ---------------------------------------------------------
def _matmul_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("result"):
        return None
    terms: list[ir.Value] = []
    for role in ("x", "y"):
        if o.active(role):
            t = e.result_template(o.v["result"], 2)
            o.again(e, result=t, **{role: e.tangent(o.v[role], shadow_of(o, role))})
            terms.append(t)
    if terms:
        e.view_into(shadow_of(o, "result"), o.v["result"], e.base(_sum_into(e, terms)))
    else:
        zeroed_result(e, o)
    return None


def _matmul_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("result"):
        return
    transpose_x = o.function.name.startswith("_FortranAMatmulTranspose")
    x_any = o.d.get("x") or o.copies.get("x")
    if x_any is None:  # no operand is active
        return
    left_vector = ir.ConstantInt(ir.i1, 0) if transpose_x else e.is_vector(x_any)
    r2 = e.matrix(shadow_of(o, "result"), left_vector)

    def left(d: ir.Value) -> ir.Value:  # the left factor as a matrix (A = x or x^T)
        return e.transposed(d) if transpose_x else e.matrix(d, ir.ConstantInt(ir.i1, 1))

    def product(a: ir.Value, c: ir.Value) -> ir.Value:
        t = e.result_template(shadow_of(o, "result"), 2)
        e.matmul(t, a, c)
        return t
    if o.active("x"):  # dA += dR B^T
        t = product(r2, e.transposed(e.matrix(o.copies["y"], ir.ConstantInt(ir.i1, 0))))
        e.add(left(shadow_of(o, "x")), t)
        e.free(e.base(t))
    if o.active("y"):  # dB += A^T dR
        t = product(e.transposed(left(o.copies["x"])), r2)
        e.add(e.matrix(shadow_of(o, "y"), ir.ConstantInt(ir.i1, 0)), t)
        e.free(e.base(t))


def_fortran(FortranRule("matmul", lambda o: _bilinear_saves(o, "result"), _matmul_forward,
                        _matmul_reverse, augment=zeroed_result), "matmul_transpose")


# -- transpose --------------------------------------------------------------------------------
def _transpose_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("result"):
        return None
    if not o.active("matrix"):
        zeroed_result(e, o)
        return None
    t = e.result_template(o.v["result"], 2)
    o.again(e, result=t, matrix=e.tangent(o.v["matrix"], shadow_of(o, "matrix")))
    e.view_into(shadow_of(o, "result"), o.v["result"], e.base(t))
    return None


def _transpose_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("result") and o.active("matrix"):  # dM += dR^T
        e.add(shadow_of(o, "matrix"), e.transposed(shadow_of(o, "result")))


def_fortran(FortranRule("transpose", lambda o: views(o, "result", "matrix"),
                        _transpose_forward, _transpose_reverse, augment=zeroed_result))


# -- reshape: the elements in array element order, into a new shape --------------------------
def _reshape_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    b = e.b
    null = ir.ConstantPointerNull(ir.ptr)
    given = b.or_(b.icmp("ne", o.v["pad"], null), b.icmp("ne", o.v["order"], null))
    _, join = e.if_then(given, "pad.order")
    e.fatal("irgrad: the derivative of RESHAPE with PAD= or ORDER= is not supported")
    e.b.position_at_end(join)


def _reshape_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("result"):
        return None
    if not o.active("array"):
        zeroed_result(e, o)
        return None
    t = e.result_template(o.v["result"], 1)
    o.again(e, result=t, array=e.tangent(o.v["array"], shadow_of(o, "array")))
    e.view_into(shadow_of(o, "result"), o.v["result"], e.base(t))
    return None


def _reshape_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("result") and o.active("array"):  # element k of the result is source's k
        e.add(shadow_of(o, "array"), shadow_of(o, "result"))


def_fortran(FortranRule("reshape", lambda o: views(o, "result", "array"), _reshape_forward,
                        _reshape_reverse, before=_reshape_before, augment=zeroed_result,
                        slot_rank=MAX_RANK))


# -- spread, sum(a, dim=k): copies along a dimension, and their sum -----------------------------
def _dim0(e: DescriptorEmitter, o: FortranOperands) -> ir.Value:
    """The zero-based dimension of a ``dim`` argument (Fortran's is 1-based)."""
    return e.b.sub(e.b.sext(o.v["dim"], ir.i64), c64(1))


def _along(e: DescriptorEmitter, n: ir.Value, body: Callable[[ir.Value], None]) -> None:
    """``for c in 0..n-1: body(c)`` in the derivative."""
    counted_loop(e.b, n, lambda _b, c: body(c), "along")


def _by_dim_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    """Spread and sum-dim are linear in the array: the routine on its tangent."""
    if not o.active("result"):
        return None
    if not o.active("array"):
        zeroed_result(e, o)
        return None
    t = e.result_template(o.v["result"], 1)
    o.again(e, result=t, array=e.tangent(o.v["array"], shadow_of(o, "array")))
    e.view_into(shadow_of(o, "result"), o.v["result"], e.base(t))
    return None


def _spread_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not (o.active("result") and o.active("array")):  # dsource += every copy's adjoint
        return
    dres, dim = shadow_of(o, "result"), _dim0(e, o)
    _along(e, e.extent(dres, dim), lambda c: e.add(shadow_of(o, "array"), e.slice(dres, dim, c)))


def _sum_dim_saves(o: FortranOperands) -> Saves:
    return [*views(o, "result", "array"), *[s for s in _sum_saves(o) if s.startswith("copy")]]


def _sum_dim_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not (o.active("result") and o.active("array")):  # each section += the adjoint
        return
    da, dim = shadow_of(o, "array"), _dim0(e, o)
    mask = o.copies.get("mask")

    def section(c: ir.Value) -> None:
        if mask is None:
            e.add(e.slice(da, dim, c), shadow_of(o, "result"))
            return
        b = e.b
        given = b.icmp("ne", mask, ir.ConstantPointerNull(ir.ptr))
        m = b.select(given, e.slice(b.select(given, mask, da), dim, c),
                     ir.ConstantPointerNull(ir.ptr))
        e.update(e.slice(da, dim, c), shadow_of(o, "result"), ir.ConstantFP(ir.double, 1.0), mask=m)
    _along(e, e.extent(da, dim), section)


def_fortran(FortranRule("spread", lambda o: views(o, "result", "array"), _by_dim_forward,
                        _spread_reverse, augment=zeroed_result, slot_rank=MAX_RANK))
def_fortran(FortranRule("sum_dim", _sum_dim_saves, _by_dim_forward, _sum_dim_reverse,
                        augment=zeroed_result, slot_rank=MAX_RANK))


# -- cshift of a vector: a rotation, undone by the opposite one ---------------------------------
def _cshift_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not (o.active("result") and o.active("array")):
        return
    t = e.result_template(shadow_of(o, "result"), 1)
    o.again(e, result=t, array=shadow_of(o, "result"), shift=e.b.neg(o.v["shift"]))
    e.add(shadow_of(o, "array"), t)
    e.free(e.base(t))


def_fortran(FortranRule("cshift_vector", lambda o: views(o, "result", "array"),
                        _by_dim_forward, _cshift_reverse, augment=zeroed_result, slot_rank=1))


# -- pack: the elements where the mask is true, in array element order ----------------------
def _pack_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    b = e.b
    vector = b.icmp("ne", o.v["vector"], ir.ConstantPointerNull(ir.ptr))
    scalar = b.icmp("eq", rank(b, o.v["mask"]), c64(0))
    _, join = e.if_then(b.or_(vector, scalar), "pack.vector")
    e.fatal("irgrad: the derivative of PACK with VECTOR= or a scalar MASK is not supported")
    e.b.position_at_end(join)


def _pack_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    """``darray += unpack(dresult, mask, 0)``: the runtime's UNPACK scatters the result's
    adjoints back to the positions they came from (a scalar zero fills the others)."""
    if not (o.active("result") and o.active("array")):
        return
    b, da = e.b, shadow_of(o, "array")
    zero = e.result_template(da, 0)
    e.set_attribute(zero, ATTRIBUTE_OTHER)
    b.store(e.zeroed_block(zero), zero)
    t = e.result_template(da, 1)
    b.store(b.trunc(rank(b, da), ir.i8), field_ptr(b, t, RANK_OFFSET))
    e.runtime("_FortranAUnpack", ir.void,
              [t, shadow_of(o, "result"), o.copies["mask"], zero, e.source, e.line])
    e.add(da, t)
    e.free(e.base(t))
    e.free(e.base(zero))


def_fortran(FortranRule(
    "pack", lambda o: [*views(o, "result", "array"),
                       *(["copy:mask"] if o.active("result") and o.active("array") else [])],
    _by_dim_forward, _pack_reverse, before=_pack_before, augment=zeroed_result,
    slot_rank=MAX_RANK))


__all__ = ["zeroed_result"]
