"""Byte counts of heap allocations, from the allocator's record in the table of known
functions (shared by forward and reverse mode when they allocate shadows)."""

from __future__ import annotations

from collections.abc import Sequence

from irgrad import ir
from irgrad.analysis.known_functions import Allocator
from irgrad.ir.builder import IRBuilder


def as_i64(b: IRBuilder, v: ir.Value) -> ir.Value:
    return v if v.type == ir.i64 else b.zext(v, ir.i64)


def allocation_bytes(b: IRBuilder, alloc: Allocator, args: Sequence[ir.Value]) -> ir.Value:
    """The number of bytes ``alloc(args...)`` returns (the product of its size arguments)."""
    total: ir.Value | None = None
    for k in alloc.size_args:
        v = as_i64(b, args[k])
        total = v if total is None else b.mul(total, v)
    assert total is not None, alloc.name
    return total


__all__ = ["allocation_bytes", "as_i64"]
