"""Objects of one named struct type hold the same types (evidence without TBAA).

A front end names each record type once (clang: ``%struct.State``, ``%"class.std::vector"``
for one instantiation; flang and rustc likewise), so two objects of one named struct type
are two instances of one declared type: the bytes at an offset of one have the type the
same bytes of the other have. That is what TBAA's struct type descriptors tell the type
analysis at -O1 and above; clang emits no TBAA at -O0, and there the declared types of
allocas and of struct GEPs are what is left. A member ``std::vector<double>`` that the
program only copies (an empty history buffer, copied with its state: a run-time-length
``memmove`` reached through loads of its begin and end pointers) then has the element
type another ``std::vector<double>`` of the same function is read and written with.

Each place the IR says "this pointer points at an object of type T" (an ``alloca`` of T,
the base and the result of a ``getelementptr`` on T) is an *anchor*; every named struct
type inside T, at its offset, shares one memory tree per function with all other
instances of that type. Unions are left out (their bytes have several types).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from irgrad.analysis.layout import alloc_size, struct_offsets
from irgrad.analysis.type_tree import MAX_OFFSET, TypeTree
from irgrad.ir.constants import ConstantInt
from irgrad.ir.instructions import AllocaInst, GetElementPtrInst, Instruction
from irgrad.ir.types import ArrayType, IdentifiedStructType, Type
from irgrad.ir.values import Value

#: named sub-objects looked at per anchor type (arrays of records are long)
MAX_MEMBERS = 64

Member = tuple[int, str, int]  # (offset, type name, size)
_MEMBERS: dict[Type, tuple[Member, ...]] = {}


def _named(t: Type) -> bool:
    return (isinstance(t, IdentifiedStructType) and not t.opaque
            and not t.name.startswith("union.") and alloc_size(t) > 0)


def named_members(t: Type) -> tuple[Member, ...]:
    """``(offset, name, size)`` of every named struct object inside an object of type
    ``t`` (``t`` itself at offset 0 when it is one)."""
    got = _MEMBERS.get(t)
    if got is not None:
        return got
    out: list[Member] = []

    def walk(t: Type, base: int) -> None:
        if len(out) >= MAX_MEMBERS or base > MAX_OFFSET:
            return
        if _named(t):
            out.append((base, t.name, alloc_size(t)))  # type: ignore[attr-defined]
        if isinstance(t, ArrayType):
            size = alloc_size(t.element)
            for k in range(min(t.count, MAX_MEMBERS)):
                walk(t.element, base + k * size)
        elif t.is_struct and not getattr(t, "opaque", False):
            for off, e in zip(struct_offsets(t), t.elements, strict=True):  # type: ignore[attr-defined]
                walk(e, base + off)

    walk(t, 0)
    _MEMBERS[t] = got = tuple(out)
    return got


def _gep_anchors(gep: GetElementPtrInst) -> Iterable[tuple[Value, Type]]:
    first = gep.indices[0] if gep.indices else None
    if isinstance(first, ConstantInt) and first.value == 0:
        yield gep.pointer, gep.source_type
    t: Type = gep.source_type
    for idx in gep.indices[1:]:
        if t.is_struct:
            if not isinstance(idx, ConstantInt):
                return
            t = t.elements[idx.value]  # type: ignore[attr-defined]
        elif isinstance(t, ArrayType):
            t = t.element
        else:
            return
    yield gep, t


def anchors(insts: Iterable[Instruction]) -> list[tuple[Value, tuple[Member, ...]]]:
    """The pointers the IR says point at objects with named struct types in them, each
    with those members."""
    out: dict[Value, tuple[Member, ...]] = {}
    for inst in insts:
        found: Iterable[tuple[Value, Type]] = ()
        if isinstance(inst, AllocaInst) and inst.count is None:
            found = ((inst, inst.allocated_type),)
        elif isinstance(inst, GetElementPtrInst):
            found = _gep_anchors(inst)
        for p, t in found:
            members = named_members(t)
            if members and p.type.is_pointer:
                out[p] = tuple(sorted({*out.get(p, ()), *members}))
    return list(out.items())


class NamedObjects:
    """The memory tree of each named struct type of one function, shared by its
    instances; :meth:`step` exchanges facts between them and the anchors' pointees."""

    def __init__(self, insts: Iterable[Instruction]) -> None:
        self.anchors = anchors(insts)
        self.types: dict[str, TypeTree] = {}
        self._read: dict[Value, tuple[int, int]] = {}
        self._seen: dict[Value, tuple[int, ...]] = {}

    def step(self, pointee: Callable[[Value], TypeTree],
             update_pointee: Callable[[Value, TypeTree], None]) -> None:
        """One exchange: every anchor's pointee into the trees of its named members,
        then those trees back into the pointee."""
        if not self.anchors:
            return
        types = self.types
        for p, members in self.anchors:
            mem = pointee(p)
            if self._read.get(p) == (id(mem), mem.version):
                continue
            self._read[p] = (id(mem), mem.version)
            for off, name, size in members:
                t = types.get(name)
                if t is None:
                    t = types[name] = TypeTree()
                # (an entry for every offset of the whole object is left out: it may
                # say more of this object than of its members)
                t.or_in(TypeTree({q: ct for q, ct in mem.shift(off, size).mapping.items()
                                  if q[0] != -1}))
        for p, members in self.anchors:
            key = tuple(types[name].version for _, name, _ in members)
            if self._seen.get(p) == key:
                continue
            self._seen[p] = key
            back = TypeTree()
            for off, name, _ in members:
                back.or_in(types[name].shift(0, -1, off))
            update_pointee(p, back)


__all__ = ["NamedObjects", "anchors", "named_members"]
