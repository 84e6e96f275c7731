"""Pointers that travel through integers, turned back into pointers before AD.

LLVM's optimizer sometimes carries a pointer as an integer: when a Rust ``Result`` or
``Option`` of a ``NonNull`` shares one slot with an integer (``Vec::with_capacity`` gives
``Ok(ptr)`` or a dangling ``8``), SROA and InstCombine leave

    %i = ptrtoint ptr %block to i64
    %a = phi i64 [ %i, %ok ], [ 8, %empty ]
    %p = inttoptr i64 %a to ptr

Activity analysis gives shadows to pointers, not to integers (``ptrtoint`` ends a chain
of shadows), so ``%p`` would have no shadow although it is ``%block``. Enzyme follows such
chains with type analysis; irgrad rewrites them once, before analysing: ``%p`` becomes
``phi ptr [ %block, %ok ], [ inttoptr (i64 8 to ptr), %empty ]``. Only phis and selects
whose every leaf is a ``ptrtoint`` or a constant are rewritten: an address computed with
arithmetic stays an integer (and gets no shadow, which diagnostics then report).
"""

from __future__ import annotations

from collections.abc import Iterable

from irgrad import ir


def _convertible(v: ir.Value, seen: set[ir.Value]) -> bool:
    """``v`` is a pointer-sized integer made only of ``ptrtoint``s and constants."""
    if v in seen:
        return True
    if isinstance(v, ir.ConstantInt):
        return True
    if isinstance(v, ir.CastInst) and v.opcode == "ptrtoint":
        return v.value.type.is_pointer
    if isinstance(v, ir.PHINode | ir.SelectInst):
        seen.add(v)
        values = [x for x, _ in v.incoming] if isinstance(v, ir.PHINode) else \
            [v.true_value, v.false_value]
        return all(_convertible(x, seen) for x in values)
    return False


def _as_pointer(v: ir.Value, made: dict[ir.Value, ir.Value]) -> ir.Value:
    got = made.get(v)
    if got is not None:
        return got
    if isinstance(v, ir.ConstantInt):
        return ir.ConstantExpr("inttoptr", ir.ptr, [v])
    if isinstance(v, ir.CastInst):  # ptrtoint
        return v.value
    if isinstance(v, ir.PHINode):
        phi = ir.PHINode(ir.ptr, name=f"{v.name}.ptr" if v.name else None)
        phi.insert_before(v)
        made[v] = phi
        for x, block in v.incoming:
            phi.add_incoming(_as_pointer(x, made), block)
        return phi
    assert isinstance(v, ir.SelectInst)
    t, f = _as_pointer(v.true_value, made), _as_pointer(v.false_value, made)
    sel = ir.SelectInst(v.condition, t, f, name=f"{v.name}.ptr" if v.name else None)
    sel.insert_after(v)
    made[v] = sel
    return sel


def restore_pointers(fn: ir.Function) -> int:
    """Rewrite the ``inttoptr`` of integer-carried pointers in ``fn``; returns how many."""
    casts = [inst for bb in fn.blocks for inst in bb.instructions
             if isinstance(inst, ir.CastInst) and inst.opcode == "inttoptr"
             and inst.type.is_pointer and isinstance(inst.value, ir.PHINode | ir.SelectInst)]
    made: dict[ir.Value, ir.Value] = {}
    done = 0
    for cast in casts:
        if not _convertible(cast.value, set()):
            continue
        cast.replace_all_uses_with(_as_pointer(cast.value, made))
        cast.erase_from_parent()
        done += 1
    return done


def restore_pointers_in(functions: Iterable[ir.Function]) -> int:
    return sum(restore_pointers(fn) for fn in functions if not fn.is_declaration)


__all__ = ["restore_pointers", "restore_pointers_in"]
