"""Offsets of addresses in type trees: how the type analysis maps the memory seen through
one pointer onto the memory seen through another (a constant offset, a field of the
``i``-th record, a pointer walking an array, a byte counter stepping through it)."""

from __future__ import annotations

import math

from irgrad.analysis.function_pointers import gep_constant_offset
from irgrad.analysis.layout import alloc_size, struct_offsets
from irgrad.analysis.type_tree import MAX_OFFSET, TypeTree
from irgrad.ir.constants import ConstantInt
from irgrad.ir.instructions import (
    BinaryOperator,
    CastInst,
    GetElementPtrInst,
    Instruction,
    LoadInst,
    PHINode,
    SelectInst,
    StoreInst,
)
from irgrad.ir.types import ArrayType, Type, VectorType
from irgrad.ir.values import Value


def struct_field_offset(t: Type, field: int) -> int:
    return struct_offsets(t)[field]


def linear_offset(v: Value, depth: int = 0) -> tuple[int, int]:
    """``(c, g)`` such that integer ``v`` is ``c`` plus a multiple of ``g`` (g = 0: the
    constant ``c``; g = 1: nothing known), from its add/mul/shl/cast arithmetic."""
    if isinstance(v, ConstantInt):
        return v.signed_value, 0
    if depth > 8:
        return 0, 1
    if isinstance(v, CastInst) and v.opcode in ("sext", "zext", "trunc"):
        return linear_offset(v.value, depth + 1)
    if isinstance(v, PHINode):
        # a byte counter stepping through an array (``i += 8``), or values merged at a
        # join: ``c`` plus multiples of the gcd of the steps and of the differences
        base: int | None = None
        g = 0
        for inc, _ in v.incoming:
            if (isinstance(inc, BinaryOperator) and inc.opcode in ("add", "sub")
                    and inc.lhs is v and isinstance(inc.rhs, ConstantInt)):
                g = math.gcd(g, abs(inc.rhs.signed_value))
                continue
            c, cg = linear_offset(inc, depth + 1)
            base = c if base is None else base
            g = math.gcd(g, math.gcd(cg, abs(c - base)))
        return (0, 1) if base is None else (base, g)
    if isinstance(v, BinaryOperator):
        op = v.opcode
        if op in ("add", "sub", "or") and (op != "or" or "disjoint" in v.flags):
            a0, ag = linear_offset(v.lhs, depth + 1)
            b0, bg = linear_offset(v.rhs, depth + 1)
            return (a0 + b0 if op != "sub" else a0 - b0), math.gcd(ag, bg)
        if op in ("mul", "shl") and isinstance(v.rhs, ConstantInt):
            c = v.rhs.signed_value if op == "mul" else 1 << min(v.rhs.value, 62)
            x0, xg = linear_offset(v.lhs, depth + 1)
            return x0 * c, abs(xg * c)
    return 0, 1


def uniform_record(rec: TypeTree, stride: int) -> bool:
    """Do ``rec``'s first-level entries tile ``[0, stride)`` with one float or pointer type
    (a record of doubles, or one double): then every offset of the array holds it."""
    first = {p[0]: ct for p, ct in rec.mapping.items() if len(p) == 1 and p[0] >= 0}
    kinds = set(first.values())
    if len(kinds) != 1:
        return False
    ct = next(iter(kinds))
    size = 8 if ct.is_pointer else _FLOAT_BYTES.get(ct.float_kind or "", 0)
    return size > 0 and stride % size == 0 and set(first) == set(range(0, stride, size))


_FLOAT_BYTES = {"half": 2, "bfloat": 2, "float": 4, "double": 8}


def array_of_records(rec: TypeTree, stride: int) -> TypeTree:
    """The memory of an array of ``stride``-byte records seen through one record ``rec``:
    its one type at every offset when :func:`uniform_record`, else ``rec`` itself."""
    return any_offset(rec) if uniform_record(rec, stride) else rec


def periodic(mem: TypeTree, start: int, stride: int) -> TypeTree:
    """The memory of one element of an array of ``stride``-byte records at ``start``:
    what every element's bytes say, folded onto offsets ``[0, stride)``."""
    out = TypeTree()
    for p, ct in sorted(mem.mapping.items()):
        if p[0] == -1:
            out.insert(p, ct)
        elif p[0] >= start:
            out.insert(((p[0] - start) % stride, *p[1:]), ct)
    return out


def array_elements(rec: TypeTree, start: int, stride: int, count: int) -> TypeTree:
    """The memory of ``count`` elements of ``stride`` bytes from ``start``, each as ``rec``
    says (its one type at every offset when the array starts the memory and the record
    is :func:`uniform_record`)."""
    if start == 0 and uniform_record(rec, stride):
        return any_offset(rec)
    out = TypeTree()
    last = min(count, (MAX_OFFSET - start) // stride + 1)
    for k in range(max(last, 0)):
        out.or_in(rec.shift(0, stride, start + k * stride))
    return out


def inner_array_index(gep: GetElementPtrInst) -> tuple[int, int, int] | None:
    """``(start, stride, count)`` when the one variable index of ``gep`` selects an
    element of an array inside the object (``a[k][i]``, ``s.v[i].x``): ``count``
    elements of ``stride`` bytes, the first ``start`` bytes from the base pointer."""
    t: Type = gep.source_type
    off = 0
    found: tuple[int, int, int] | None = None
    for k, idx in enumerate(gep.indices):
        if k == 0:
            if not isinstance(idx, ConstantInt):
                return None
            off += idx.signed_value * alloc_size(t)
            continue
        if t.is_struct:
            if not isinstance(idx, ConstantInt):
                return None
            off += struct_offsets(t)[idx.value]
            t = t.elements[idx.value]  # type: ignore[attr-defined]
            continue
        if not isinstance(t, ArrayType | VectorType):
            return None
        count, t = t.count, t.element
        stride = alloc_size(t)
        if isinstance(idx, ConstantInt):
            off += idx.signed_value * stride
        elif found is None and stride > 0:
            found = (off, stride, count)
        else:
            return None
    return found


def rotated(mem: TypeTree, by: int, stride: int) -> TypeTree:
    """The first ``stride`` bytes of ``mem`` (one record of an array of ``stride``-byte
    records) seen ``by`` bytes further on: offset ``o`` becomes ``(o + by) mod stride``,
    the bytes of the neighbouring record that the shift brings into view."""
    out = TypeTree()
    for p, ct in sorted(mem.mapping.items()):
        if p[0] == -1:
            out.insert(p, ct)
        elif p[0] < stride:
            out.insert(((p[0] + by) % stride, *p[1:]), ct)
    return out


def walk_step(p: Value, cache: dict[Instruction, bool], slots: list[SlotMap]) -> int | None:
    """The record size of the array that pointer ``p`` walks: ``p`` is (a phi of) ``q + c``
    with ``q`` flowing back from ``p`` (``--last`` in ``std::move_backward``); None when
    ``p`` walks nothing."""
    candidates = [p, *(x for x, _ in p.incoming)] if isinstance(p, PHINode) else [p]
    for c in candidates:
        if isinstance(c, GetElementPtrInst):
            off = gep_constant_offset(c.source_type, list(c.indices))
            if off and is_pointer_recurrence(c, cache, slots):
                return abs(off)
    return None


def any_offset(mem: TypeTree) -> TypeTree:
    """Every first-level offset becomes ``-1``."""
    out = TypeTree()
    for p, ct in sorted(mem.mapping.items()):
        out.insert((-1, *p[1:]), ct)
    return out


def minus_one_only(mem: TypeTree) -> TypeTree:
    return TypeTree({p: ct for p, ct in mem.mapping.items() if p[0] == -1})


def is_pointer_recurrence(gep: GetElementPtrInst, cache: dict[Instruction, bool],
                          slots: list[SlotMap] | None = None) -> bool:
    """Does the GEP's result flow back into its own base: ``p++`` in a loop (through
    phis), or a pointer bumped where it is kept (``end = end + 1`` stored into the slot it
    was loaded from: a std::vector's ``_M_finish`` at each ``push_back``)? ``slots``: where
    the function's stored pointers are remembered between calls (filled when needed)."""
    if gep in cache:
        return cache[gep]
    seen: set[int] = set()
    work: list[Value] = [gep.pointer]
    found = False
    while work and not found:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v is gep:
            found = True
        elif isinstance(v, PHINode):
            work.extend(x for x, _ in v.incoming)
        elif isinstance(v, SelectInst):
            work.extend((v.true_value, v.false_value))
        elif isinstance(v, GetElementPtrInst):
            work.append(v.pointer)
        elif isinstance(v, CastInst) and v.opcode in ("bitcast", "addrspacecast"):
            work.append(v.value)
        elif isinstance(v, LoadInst) and v.type.is_pointer:
            if slots is None:
                slots = []
            if not slots:
                slots.append(_pointer_slots(gep))
            work.extend(slots[0].get(_slot(v.pointer), ()))
    cache[gep] = found
    return found


def _slot(p: Value) -> tuple[int, int]:
    """A memory location as (base object, constant byte offset): constant GEPs stripped,
    so that two GEPs to the same field of the same object name the same slot."""
    off = 0
    while isinstance(p, GetElementPtrInst):
        step = _constant_gep_offset(p)
        if step is None:
            break
        off += step
        p = p.pointer
    return (id(p), off)


def _constant_gep_offset(g: GetElementPtrInst) -> int | None:
    if not all(isinstance(i, ConstantInt) for i in g.indices):
        return None
    if len(g.indices) != 1:
        return None
    idx = g.indices[0]
    assert isinstance(idx, ConstantInt)
    return idx.signed_value * alloc_size(g.source_type)


SlotMap = dict[tuple[int, int], list[Value]]


def _pointer_slots(inst: Instruction) -> SlotMap:
    """The pointers stored into each slot of ``inst``'s function."""
    fn = inst.parent.parent if inst.parent is not None else None
    out: SlotMap = {}
    if fn is None:
        return out
    for bb in fn.blocks:
        for i in bb.instructions:
            if isinstance(i, StoreInst) and i.value.type.is_pointer:
                out.setdefault(_slot(i.pointer), []).append(i.value)
    return out


__all__ = ["any_offset", "array_elements", "array_of_records", "inner_array_index",
           "is_pointer_recurrence", "linear_offset", "minus_one_only", "periodic", "rotated",
           "struct_field_offset", "uniform_record", "walk_step"]
