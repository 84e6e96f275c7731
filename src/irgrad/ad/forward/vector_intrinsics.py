"""Forward mode of the vector intrinsics vectorized code calls (tables in
:mod:`irgrad.ad.rules.vector` and :mod:`irgrad.ad.rules.masked`).

* reductions: ``t = d_start * t_start + reduce.fadd(d_lanes * t_vec)``;
* lane maps (``hadd``): the same map on the tangents;
* masked loads and gathers read the tangent through the shadow pointers (the passthru's
  tangent in the disabled lanes); masked stores and scatters write it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.forward.tangents import zero_tangent
from irgrad.ad.rules.emit import fp_constant, type_suffix
from irgrad.ad.rules.masked import emit_masked_load, emit_masked_store, masked_access
from irgrad.ad.rules.vector import apply_lane_map, lane_map_terms, reduction, reduction_partials

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def is_vector_intrinsic(name: str | None) -> bool:
    return (reduction(name) is not None or lane_map_terms(name) is not None
            or (name or "").startswith("llvm.masked."))


def visit_vector_intrinsic(fp: ForwardPass, call: ir.CallBase, name: str) -> None:
    if fp.width != 1:
        raise fp.error(call, f"{name} in vector forward mode (enzyme_width > 1) is not "
                             "supported yet")
    b = fp.b
    red = reduction(name)
    if red is not None:
        p_start, p_vec = reduction_partials(b, red, list(call.args), call)
        vec = call.args[1] if red.has_start else call.args[0]
        total: ir.Value | None = None
        tv = fp.tangent(vec)
        if tv is not None:
            fn = b.get_or_insert_function(
                f"llvm.vector.reduce.fadd.{type_suffix(vec.type)}",
                ir.FunctionType(call.type, [call.type, vec.type]))
            total = b.call(fn, [fp_constant(call.type, -0.0), b.fmul(p_vec, tv)],
                           flags=("reassoc",))
        ts = fp.tangent(call.args[0]) if red.has_start else None
        if ts is not None and p_start is not None:
            part = b.fmul(p_start, ts)
            total = part if total is None else b.fadd(total, part)
        if total is not None:
            fp.tangents[call] = total
        return
    terms = lane_map_terms(name)
    if terms is not None:
        ops = [fp.tangent(a) for a in call.args[:2]]
        fp.tangents[call] = apply_lane_map(b, terms, ops, call.type)  # type: ignore[arg-type]
        return
    acc = masked_access(call)
    if acc is None:
        raise fp.error(call, f"No derivative found for {name}")
    sp = fp.tangent(acc.pointer)
    if sp is None:
        return
    ty = acc.data_type
    if acc.kind in ("load", "gather"):
        assert acc.passthru is not None
        pt = fp.tangent_or_zero(acc.passthru, ty)
        fp.tangents[call] = emit_masked_load(b, sp, acc.mask, pt, acc.pointer_attrs,  # type: ignore[arg-type]
                                             gather=acc.kind == "gather")
        return
    assert acc.value is not None
    tv = fp.tangent(acc.value)
    if tv is None:
        tv = zero_tangent(ty, 1)
        if ty.element.is_pointer:  # inactive pointers: the primal addresses
            tv = acc.value
    emit_masked_store(b, tv, sp, acc.mask, acc.pointer_attrs,  # type: ignore[arg-type]
                      scatter=acc.kind == "scatter")


__all__ = ["is_vector_intrinsic", "visit_vector_intrinsic"]
