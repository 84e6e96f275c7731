"""Sizes, alignments and element offsets of IR types for the x86-64 System V data layout
(what clang-22 and llvmlite target here), used by type analysis to place types at byte
offsets."""

from __future__ import annotations

from irgrad.ir.types import ArrayType, FloatType, IntType, Type, VectorType

_FLOAT_SIZE = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "x86_fp80": 16, "fp128": 16,
               "ppc_fp128": 16}
_FLOAT_STORE = {"x86_fp80": 10}
MAX_LEAVES = 64


def abi_align(t: Type) -> int:
    if isinstance(t, IntType):
        if t.width <= 8:
            return 1
        return min(16, 1 << ((t.width - 1) // 8).bit_length())
    if isinstance(t, FloatType):
        return _FLOAT_SIZE[t.kind]
    if t.is_pointer:
        return 8
    if isinstance(t, VectorType):
        return _pow2_at_least(alloc_size(t.element) * t.count)
    if isinstance(t, ArrayType):
        return abi_align(t.element)
    if t.is_struct:
        if getattr(t, "packed", False):
            return 1
        return max((abi_align(e) for e in t.elements), default=1)  # type: ignore[attr-defined]
    return 1


def _pow2_at_least(n: int) -> int:
    k = 1
    while k < n:
        k <<= 1
    return k


def store_size(t: Type) -> int:
    """Bytes written by a store of ``t``."""
    if isinstance(t, FloatType):
        return _FLOAT_STORE.get(t.kind, _FLOAT_SIZE[t.kind])
    if isinstance(t, IntType):
        return (t.width + 7) // 8
    return alloc_size(t)


def alloc_size(t: Type) -> int:
    """Bytes between consecutive elements of ``t`` in an array."""
    if isinstance(t, IntType):
        size = (t.width + 7) // 8
        return -(-size // abi_align(t)) * abi_align(t)
    if isinstance(t, FloatType):
        return _FLOAT_SIZE[t.kind]
    if t.is_pointer:
        return 8
    if isinstance(t, VectorType):
        return _pow2_at_least(alloc_size(t.element) * t.count)
    if isinstance(t, ArrayType):
        return t.count * alloc_size(t.element)
    if t.is_struct:
        offsets = struct_offsets(t)
        elements = t.elements  # type: ignore[attr-defined]
        if not elements:
            return 0
        end = offsets[-1] + alloc_size(elements[-1])
        a = abi_align(t)
        return -(-end // a) * a
    return 0


def struct_offsets(t: Type) -> list[int]:
    """Byte offset of each element of a struct type."""
    out = []
    off = 0
    packed = getattr(t, "packed", False)
    for e in t.elements:  # type: ignore[attr-defined]
        a = 1 if packed else abi_align(e)
        off = -(-off // a) * a
        out.append(off)
        off += alloc_size(e)
    return out


def scalar_leaves(t: Type, base: int = 0) -> list[tuple[int, Type]]:
    """``(offset, scalar type)`` for every scalar inside ``t`` (vectors count as their
    element at each lane). Long arrays of scalars are summarized as offset ``-1``."""
    if isinstance(t, VectorType):
        es = alloc_size(t.element)
        return [(base + k * es, t.element) for k in range(min(t.count, MAX_LEAVES))]
    if isinstance(t, ArrayType):
        inner = scalar_leaves(t.element, 0)
        if len(inner) * t.count > MAX_LEAVES:
            kinds = {str(et) for _, et in inner}
            return [(-1, inner[0][1])] if len(kinds) == 1 and inner else []
        es = alloc_size(t.element)
        return [(base + k * es + o, et) for k in range(t.count) for o, et in inner]
    if t.is_struct:
        out: list[tuple[int, Type]] = []
        for off, e in zip(struct_offsets(t), t.elements, strict=True):  # type: ignore[attr-defined]
            out.extend(scalar_leaves(e, base + off))
        return out
    return [(base, t)]


def aggregate_offset(t: Type, indices: list[int]) -> tuple[int, Type]:
    """Byte offset and type reached by ``extractvalue``-style constant indices."""
    off = 0
    for k in indices:
        if t.is_struct:
            off += struct_offsets(t)[k]
            t = t.elements[k]  # type: ignore[attr-defined]
        else:
            t = t.element  # type: ignore[attr-defined]
            off += k * alloc_size(t)
    return off, t


__all__ = ["abi_align", "aggregate_offset", "alloc_size", "scalar_leaves", "store_size",
           "struct_offsets"]
