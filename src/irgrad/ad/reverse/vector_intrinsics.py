"""Reverse mode of the vector intrinsics vectorized code calls (tables in
:mod:`irgrad.ad.rules.vector` and :mod:`irgrad.ad.rules.masked`).

* reductions: ``diffe(start) += d * d_start``, ``diffe(vec) += splat(d) * d_lanes``;
* lane maps (``hadd``): the transpose of the map;
* ``masked.load``: ``shadow[p] += d`` on the enabled lanes, the passthru gets the others;
  ``masked.store``: the stored value's adjoint is read from the enabled lanes of the
  shadow, which are zeroed; ``gather``/``scatter``: the same through the shadow pointers,
  one lane at a time (two lanes may name the same element).

Forward pass: a vector of pointers has a vector of shadow pointers (the same GEP on the
shadows); a scatter or masked store of pointers into shadowed memory is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.reverse.adjoints import shadow_add, zero_of
from irgrad.ad.rules.emit import splat
from irgrad.ad.rules.masked import (
    emit_masked_load,
    emit_masked_store,
    lanewise_add_scatter,
    lanewise_take_scatter,
    masked_access,
)
from irgrad.ad.rules.vector import lane_map_terms, reduction, reduction_partials, transpose_lane_map
from irgrad.analysis.known_functions import callee_name
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


def is_vector_intrinsic(name: str | None) -> bool:
    return (reduction(name) is not None or lane_map_terms(name) is not None
            or (name or "").startswith("llvm.masked."))


def reverse_vector_intrinsic(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    name = callee_name(call)
    red = reduction(name)
    bb = call.parent
    assert bb is not None
    if red is not None:
        if not gu.is_varied(call):
            return
        d = gu.diffe(call, b)
        args = [gu.lookup_primal(a, bb) for a in call.args]
        p_start, p_vec = reduction_partials(b, red, args, gu.lookup_primal(call, bb))
        vec = call.args[1] if red.has_start else call.args[0]
        if red.has_start and p_start is not None and gu.is_varied(call.args[0]):
            gu.add_to_diffe(call.args[0], b.fmul(d, p_start), b)
        if gu.is_varied(vec):
            gu.add_to_diffe(vec, b.fmul(splat(b, d, vec.type), p_vec), b)
        return
    terms = lane_map_terms(name)
    if terms is not None:
        if not gu.is_varied(call):
            return
        d = gu.diffe(call, b)
        for k, op in enumerate(call.args[:2]):
            if gu.is_varied(op):
                adj = transpose_lane_map(b, terms, d, k, op.type)
                if adj is not None:
                    gu.add_to_diffe(op, adj, b)
        return
    _reverse_masked(gu, call, b)


def _reverse_masked(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    acc = masked_access(call)
    if acc is None:
        raise gu.error(f"No derivative found for {callee_name(call)}", call)
    ty = acc.data_type
    if not isinstance(ty.element, ir.FloatType) or not gu.is_shadowed(acc.pointer):
        return
    bb = call.parent
    assert bb is not None
    mask = gu.lookup_primal(acc.mask, bb)
    sp = gu.lookup_shadow(acc.pointer, bb, call)
    if acc.kind in ("load", "gather"):
        if not gu.is_varied(call):
            return
        d = gu.diffe(call, b)
        if acc.kind == "load":
            old = emit_masked_load(b, sp, mask, zero_of(ty), acc.pointer_attrs)
            emit_masked_store(b, shadow_add(b, old, d), sp, mask, acc.pointer_attrs)
        else:
            lanewise_add_scatter(b, sp, mask, d, acc.pointer_attrs)
        assert acc.passthru is not None
        if gu.is_varied(acc.passthru):
            gu.add_to_diffe(acc.passthru, b.select(mask, zero_of(ty), d), b)
        return
    if acc.kind == "store":
        got = emit_masked_load(b, sp, mask, zero_of(ty), acc.pointer_attrs)
        emit_masked_store(b, zero_of(ty), sp, mask, acc.pointer_attrs)
    else:
        got = lanewise_take_scatter(b, sp, mask, ty, acc.pointer_attrs)
    assert acc.value is not None
    if gu.is_varied(acc.value):
        gu.add_to_diffe(acc.value, got, b)


def check_masked_pointer_store(gu: GradientUtils, call: ir.CallBase) -> None:
    """Forward pass: pointers stored by a masked store or scatter would need their
    shadows stored too (not supported: an error rather than lost shadows)."""
    acc = masked_access(call)
    if acc is None or acc.kind not in ("store", "scatter") or acc.value is None:
        return
    elem = acc.data_type.element
    if elem.is_pointer and gu.is_shadowed(acc.pointer):
        raise gu.error("a masked store of pointers into active memory is not supported",
                       call)


__all__ = ["check_masked_pointer_store", "is_vector_intrinsic", "reverse_vector_intrinsic"]
