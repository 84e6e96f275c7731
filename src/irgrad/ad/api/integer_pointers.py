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

An ``inttoptr`` of an integer that is a constant wherever it comes from (an argument of a
function only called directly, which every caller passes a constant or such an argument
of its own) points at no object: Rust's ``NonNull::dangling()`` in
``RawVecInner::finish_grow``, which all ``Vec`` types of a crate share and which each
caller passes the element type's alignment (1 for a ``String``, 8 for a ``Vec<f64>``).
It becomes ``getelementptr i8, ptr null, i64 %align``, null-based, so its own shadow, as
null is. This is decided here, before AD, while every call in the module is the user's.
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


_MAX_TRACE = 64


def constant_everywhere(v: ir.Value) -> bool:
    """Is integer ``v`` a constant wherever it comes from: constants, through phis and
    selects, and arguments of functions with local linkage only called directly, whose
    every call passes such a value?"""
    work, seen = [v], set()
    while work:
        x = work.pop()
        if id(x) in seen or isinstance(x, ir.ConstantInt):
            continue
        seen.add(id(x))
        if len(seen) > _MAX_TRACE:
            return False
        if isinstance(x, ir.PHINode):
            work.extend(val for val, _ in x.incoming)
        elif isinstance(x, ir.SelectInst):
            work.extend((x.true_value, x.false_value))
        elif isinstance(x, ir.Argument) and x.parent is not None \
                and x.parent.has_local_linkage and x.parent.uses:
            for use in x.parent.uses:
                call = use.user
                if not (isinstance(call, ir.CallBase) and call.called_function is x.parent
                        and use.index == len(call.operands) - 1):  # callee, not argument
                    return False
                work.append(call.args[x.index])
        else:
            return False
    return True


def restore_pointers(fn: ir.Function) -> int:
    """Rewrite the ``inttoptr`` of integer-carried pointers in ``fn``, and of constant
    addresses (made null-based); returns how many."""
    casts = [inst for bb in fn.blocks for inst in bb.instructions
             if isinstance(inst, ir.CastInst) and inst.opcode == "inttoptr"
             and inst.type.is_pointer and not isinstance(inst.value, ir.Constant)]
    made: dict[ir.Value, ir.Value] = {}
    done = 0
    for cast in casts:
        if isinstance(cast.value, ir.PHINode | ir.SelectInst) \
                and _convertible(cast.value, set()):
            cast.replace_all_uses_with(_as_pointer(cast.value, made))
        elif constant_everywhere(cast.value):
            gep = ir.GetElementPtrInst(ir.i8, ir.ConstantPointerNull(ir.ptr), [cast.value],
                                       name=cast.name)
            gep.insert_before(cast)
            gep.set_metadata("dbg", cast.debug_loc)
            cast.replace_all_uses_with(gep)
        else:
            continue
        cast.erase_from_parent()
        done += 1
    return done


def restore_pointers_in(functions: Iterable[ir.Function]) -> int:
    return sum(restore_pointers(fn) for fn in functions if not fn.is_declaration)


__all__ = ["constant_everywhere", "restore_pointers", "restore_pointers_in"]
