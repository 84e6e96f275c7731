"""Accesses to different fields of an array of structs never overlap.

``b[i].mass`` and ``b[j].vx`` have the same underlying object ``b`` and indices unknown at
compile time, yet they cannot overlap: both addresses are ``b + 56*k + c`` for an integer
``k``, with ``c`` = 48 for one and 24 for the other, and the two 8-byte ranges differ
modulo 56. This module writes an address reached through GEPs as ``base + G*k + c``
(``G`` the gcd of the strides of its variable indices, 0 when it has none) and decides
whether two such accesses may overlap.

The question it answers for the reverse pass: a load of a field that no store of the
function writes (a body's mass while positions and velocities are updated in place) can be
re-read in the reverse pass instead of taped.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from irgrad import ir
from irgrad.analysis.layout import alloc_size, struct_offsets

_MAX_CHAIN = 32


@dataclass(frozen=True)
class StridedAddress:
    """``base + stride*k + offset`` bytes, ``k`` any integer (``stride`` 0: exact)."""

    base: ir.Value
    stride: int
    offset: int


def _index_terms(idx: ir.Value) -> tuple[int, int] | None:
    """``idx`` as ``(constant, gcd of the multipliers of its unknown parts)``."""
    if isinstance(idx, ir.ConstantInt):
        return idx.signed_value, 0
    if isinstance(idx, ir.BinaryOperator) and isinstance(idx.operands[1], ir.ConstantInt):
        c = idx.operands[1].signed_value
        inner = _index_terms(idx.operands[0])
        if inner is None:
            return None
        k, g = inner
        if idx.opcode == "add":
            return k + c, g
        if idx.opcode == "mul":
            return k * c, abs(g * c)
        if idx.opcode == "shl" and 0 <= c < 32:
            return k << c, g << c
    if isinstance(idx, ir.Instruction | ir.Argument):
        return 0, 1
    return None


def _gep_chain(ptr: ir.Value) -> tuple[ir.Value, int, list[tuple[ir.Value, int]]] | None:
    """``ptr`` through GEPs and pointer casts: its base, the bytes of its constant struct
    field offsets, and each array index with its element's size; None for a vector-element
    GEP, a field chosen at run time or a chain too long."""
    offset = 0
    indices: list[tuple[ir.Value, int]] = []
    v = ptr
    for _ in range(_MAX_CHAIN):
        if isinstance(v, ir.CastInst) and v.opcode in ("bitcast", "addrspacecast"):
            v = v.value
            continue
        if not isinstance(v, ir.GetElementPtrInst):
            return v, offset, indices
        ty: ir.Type = v.source_type
        for n, idx in enumerate(v.indices):
            if n > 0 and ty.is_struct:
                if not isinstance(idx, ir.ConstantInt):
                    return None
                offset += struct_offsets(ty)[idx.value]  # type: ignore[arg-type]
                ty = ty.elements[idx.value]  # type: ignore[attr-defined]
                continue
            if n > 0:
                if not isinstance(ty, ir.ArrayType):
                    return None  # vector element GEPs: leave them alone
                ty = ty.element
            indices.append((idx, alloc_size(ty)))
        v = v.pointer
    return None


def strided_address(ptr: ir.Value) -> StridedAddress | None:
    """``ptr`` as ``base + G*k + c`` through GEPs and pointer casts, or None."""
    chain = _gep_chain(ptr)
    if chain is None:
        return None
    base, offset, indices = chain
    stride = 0
    for idx, size in indices:
        terms = _index_terms(idx)
        if terms is None:
            return None
        offset += terms[0] * size
        stride = gcd(stride, terms[1] * size)
    return StridedAddress(base, stride, offset)


def may_overlap(a: StridedAddress, size_a: int, b: StridedAddress, size_b: int) -> bool:
    """Whether ``size_a`` bytes at ``a`` and ``size_b`` bytes at ``b`` may overlap (same
    base assumed)."""
    g = gcd(a.stride, b.stride)
    delta = b.offset - a.offset  # b's start minus a's start, up to a multiple of g
    if g == 0:
        return -size_b < delta < size_a
    r = delta % g
    return r < size_a or r > g - size_b


@dataclass(frozen=True)
class AffineAddress:
    """``base + sum(coeff * v) + offset`` bytes, ``v`` integer SSA values (the leaves of
    the index arithmetic: induction variables, arguments, loaded values...). Two
    addresses with the same base and terms differ by the difference of their offsets."""

    base: ir.Value
    terms: frozenset[tuple[ir.Value, int]]
    offset: int

    def coefficient(self, v: ir.Value) -> int:
        return sum(c for t, c in self.terms if t is v)


def _affine_index(idx: ir.Value, scale: int, terms: dict[ir.Value, int], depth: int) -> int:
    """Add ``scale * idx`` to ``terms``; return its constant part. Additions, subtractions,
    products and shifts by constants and integer extensions are looked through (wrapping
    aside: the order this serves is a matter of speed, never of results)."""
    if isinstance(idx, ir.ConstantInt):
        return idx.signed_value * scale
    if depth < _MAX_CHAIN and isinstance(idx, ir.BinaryOperator):
        a, c = idx.operands
        if idx.opcode in ("add", "sub"):
            sign = 1 if idx.opcode == "add" else -1
            return (_affine_index(a, scale, terms, depth + 1)
                    + _affine_index(c, sign * scale, terms, depth + 1))
        if isinstance(c, ir.ConstantInt) and idx.opcode == "mul":
            return _affine_index(a, scale * c.signed_value, terms, depth + 1)
        if isinstance(c, ir.ConstantInt) and idx.opcode == "shl" and 0 <= c.value < 63:
            return _affine_index(a, scale << c.value, terms, depth + 1)
    if depth < _MAX_CHAIN and isinstance(idx, ir.CastInst) and idx.opcode in ("sext", "zext"):
        return _affine_index(idx.value, scale, terms, depth + 1)
    terms[idx] = terms.get(idx, 0) + scale
    return 0


def affine_address(ptr: ir.Value) -> AffineAddress | None:
    """``ptr`` as an :class:`AffineAddress` through GEPs and pointer casts, or None (a
    vector-element GEP, a chain too long)."""
    chain = _gep_chain(ptr)
    if chain is None:
        return None
    base, offset, indices = chain
    terms: dict[ir.Value, int] = {}
    for idx, size in indices:
        offset += _affine_index(idx, size, terms, 0)
    return AffineAddress(base, frozenset((t, c) for t, c in terms.items() if c), offset)


__all__ = ["AffineAddress", "StridedAddress", "affine_address", "may_overlap",
           "strided_address"]
