"""What the descriptors of flang's runtime calls hold, for the type analysis: the base
address (of ``real(8)``/``real(4)`` values when the routine's name or the type code the
function stores into the descriptor says so, of integers when the code is an integer,
logical or character type's) and integers everywhere else (the layout:
:mod:`irgrad.analysis.fortran_runtime`)."""

from __future__ import annotations

from functools import lru_cache

from irgrad import ir
from irgrad.analysis.fortran_runtime import (
    BASE_OFFSET,
    DIM_BYTES,
    ELEM_LEN_OFFSET,
    HEADER_BYTES,
    MAX_RANK,
    RANK_OFFSET,
    TYPE_DOUBLE,
    TYPE_FLOAT,
    TYPE_OFFSET,
    descriptor_arguments,
    fortran_routine,
    is_fortran_bookkeeping,
)
from irgrad.analysis.function_pointers import gep_constant_offset
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.type_tree import DOUBLE, FLOAT, INTEGER, POINTER, TypeTree
from irgrad.analysis.underlying_objects import underlying_object


@lru_cache(maxsize=64)
def descriptor_tree(element: str | None, rank: int = MAX_RANK) -> TypeTree:
    """What a descriptor of at most ``rank`` dimensions holds: the base address (of
    ``element`` values when known), the rest integers (lengths, codes, bounds, extents,
    strides)."""
    tree = TypeTree()
    tree.insert((BASE_OFFSET,), POINTER)
    if element is not None:
        tree.insert((BASE_OFFSET, -1), _ELEMENT_TYPES[element])
    tree.insert((ELEM_LEN_OFFSET,), INTEGER)
    tree.insert((16,), INTEGER)
    for off in range(RANK_OFFSET, HEADER_BYTES):
        tree.insert((off,), INTEGER)
    for off in range(HEADER_BYTES, HEADER_BYTES + rank * DIM_BYTES, 8):
        tree.insert((off,), INTEGER)
    return tree


_ELEMENT_TYPES = {"double": DOUBLE, "float": FLOAT, "integer": INTEGER}
# CFI type codes (flang/ISO_Fortran_binding.h): 1..24 the integers, 39 logical, 40/43/44
# the characters, 45..49 the unsigned integers: data without derivatives
_INTEGER_CODES = frozenset((*range(1, 25), 39, 40, 43, 44, *range(45, 50)))
_STORED_ELEMENTS = {TYPE_FLOAT: "float", TYPE_DOUBLE: "double",
                    **dict.fromkeys(_INTEGER_CODES, "integer")}


def stored_element(desc: ir.Value) -> str | None:
    """The kind of data a local descriptor holds, from the type code its function stores
    into it (flang fills descriptors field by field): ``"double"``, ``"float"``,
    ``"integer"`` (integers, logicals, characters), or None (unknown, another type, or
    codes that disagree)."""
    base = underlying_object(desc)
    if base is None:
        return None
    codes: set[int] = set()
    for use in base.uses:
        gep = use.user
        if not (isinstance(gep, ir.GetElementPtrInst) and gep.pointer is base
                and gep_constant_offset(gep.source_type, list(gep.operands[1:])) == TYPE_OFFSET):
            continue
        for u in gep.uses:
            st = u.user
            if (isinstance(st, ir.StoreInst) and st.pointer is gep
                    and isinstance(st.value, ir.ConstantInt)):
                codes.add(st.value.value)
    return _STORED_ELEMENTS.get(codes.pop()) if len(codes) == 1 else None


def _rank_bound(desc: ir.Value) -> int:
    """The most dimensions a descriptor can have: a local one is as large as its type."""
    base = underlying_object(desc)
    if isinstance(base, ir.AllocaInst | ir.GlobalVariable):
        ty = base.allocated_type if isinstance(base, ir.AllocaInst) else base.value_type
        size = alloc_size(ty)
        if size >= HEADER_BYTES:
            return min(MAX_RANK, (size - HEADER_BYTES) // DIM_BYTES)
    return MAX_RANK


def descriptor_trees(call: ir.CallBase) -> list[tuple[ir.Value, TypeTree]]:
    """The descriptor arguments of a runtime call irgrad knows (a rule's or a bookkeeping
    call's) with what they point to (a routine of any type: the type code its
    descriptors get, :func:`stored_element`)."""
    fn = call.called_function
    name = fn.name if fn is not None else None
    if is_fortran_bookkeeping(name) and call.args:
        d = call.args[0]
        return [(d, descriptor_tree(stored_element(d), _rank_bound(d)))]
    r = fortran_routine(name)
    if r is None:
        return []
    out: list[tuple[ir.Value, TypeTree]] = []
    for k in descriptor_arguments(call):
        a = call.args[k]
        element = r.element if r.params[k] != "mask" else None
        if r.element is None:
            element = stored_element(a)
        out.append((a, descriptor_tree(element, _rank_bound(a))))
    return out


__all__ = ["descriptor_tree", "descriptor_trees", "stored_element"]
