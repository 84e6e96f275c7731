"""Which object a pointer is based on (LLVM's ``getUnderlyingObject``).

``underlying_object(p)`` follows one chain of GEPs and pointer casts and gives up (None)
at a phi or select; ``underlying_objects(p)`` follows every branch of phis and selects and
calls that return their argument, and gives the set of possible bases.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.analysis.known_functions import callee_name, is_allocation, is_inactive_call

_MAX_CHAIN = 64


def underlying_object(v: ir.Value) -> ir.Value | None:
    """Strip GEPs and pointer casts; None when the base is not a single known value."""
    for _ in range(_MAX_CHAIN):
        if isinstance(v, ir.GetElementPtrInst):
            v = v.pointer
        elif isinstance(v, ir.CastInst) and v.opcode in ("bitcast", "addrspacecast"):
            v = v.value
        elif isinstance(v, ir.ConstantExpr) and v.operands and v.operands[0].type.is_pointer:
            v = v.operands[0]
        elif isinstance(v, ir.PHINode | ir.SelectInst):
            return None
        else:
            return v
    return None


def is_null_based(v: ir.Value) -> bool:
    """``null + n`` (the end of an empty ``std::vector`` when a branch kept it apart from
    the size test, an empty Rust slice): it points at no object, so its shadow is itself,
    like null's."""
    return isinstance(v, ir.GetElementPtrInst) and isinstance(underlying_object(v),
                                                               ir.ConstantPointerNull)


def underlying_objects(ptr: ir.Value) -> set[ir.Value]:
    """The objects a pointer may be based on (through GEPs, casts, phis, selects and calls
    whose first argument is ``returned``)."""
    out: set[ir.Value] = set()
    seen: set[int] = set()
    work = [ptr]
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, ir.GetElementPtrInst):
            work.append(v.pointer)
        elif isinstance(v, ir.Instruction) and v.opcode in ("bitcast", "addrspacecast",
                                                             "freeze"):
            work.append(v.operands[0])
        elif isinstance(v, ir.PHINode):
            work.extend(val for val, _ in v.incoming)
        elif isinstance(v, ir.SelectInst):
            work.extend((v.true_value, v.false_value))
        elif isinstance(v, ir.CallBase) and v.arg_attrs and "returned" in v.arg_attrs[0]:
            work.append(v.args[0])
        else:
            out.add(v)
    return out


def object_set(pointer: ir.Value) -> frozenset[ir.Value] | None:
    """:func:`underlying_objects` as a frozenset, or None when none is found (a cycle of
    phis)."""
    objects = underlying_objects(pointer)
    return frozenset(objects) if objects else None


def is_allocated_object(v: ir.Value | None) -> bool:
    """A stack or heap allocation made by the function itself: like LLVM's ``noalias``
    results, no other pointer of the function aliases it (realloc's old pointer is dead)."""
    if isinstance(v, ir.AllocaInst):
        return True
    return isinstance(v, ir.CallInst) and is_allocation(callee_name(v))


def from_inactive_library(v: ir.Value) -> bool:
    """Is every object pointer ``v`` may be based on the result of a library call that
    carries no derivatives (a ``std::string``'s character buffer from ``_M_create``,
    ``getenv``'s string, ``fopen``'s ``FILE``)? Its memory holds no derivatives, so the
    pointer stands for its own shadow, as an inactive pointer does under Enzyme's runtime
    activity: stored into a record that also holds active data (a map node keyed by a
    string), the record's shadow holds the same pointer."""
    if not v.type.is_pointer or isinstance(v, ir.Constant):
        return False
    objects = underlying_objects(v)
    return bool(objects) and all(
        isinstance(o, ir.CallBase) and is_inactive_call(callee_name(o)) for o in objects)


__all__ = ["from_inactive_library", "is_allocated_object", "is_null_based", "object_set",
           "underlying_object", "underlying_objects"]
