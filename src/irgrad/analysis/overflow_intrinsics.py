"""Integer arithmetic with an overflow flag: ``{iN, i1} @llvm.sadd.with.overflow.iN(a, b)``
(and ``ssub``/``smul``/``uadd``/``usub``/``umul``).

Clang emits these where ``-fsanitize=signed-integer-overflow`` (part of
``-fsanitize=undefined``) checks ``int`` arithmetic, and for the offsets of
``-fsanitize=pointer-overflow``: the first field is the program's sum, the second the
flag the check branches on. For type analysis both are integers, exactly as the ``add nsw``
they replace -- unless an operand is a pointer's address (``ptrtoint`` arithmetic), where
the sum is left to the address rules.
"""

from __future__ import annotations

import re

from irgrad.analysis.layout import aggregate_offset
from irgrad.analysis.type_tree import INTEGER, TypeTree
from irgrad.ir.types import IntType, StructType, Type

_OVERFLOW_INTRINSIC = re.compile(r"^llvm\.[su](?:add|sub|mul)\.with\.overflow\.i\d+$")


def is_overflow_intrinsic(name: str | None) -> bool:
    return name is not None and _OVERFLOW_INTRINSIC.match(name) is not None


def overflow_result_tree(result: Type, address_operand: bool) -> TypeTree:
    """The type tree of the ``{iN, i1}`` result: the flag an integer, and the sum too
    unless an operand holds an address."""
    tree = TypeTree()
    assert isinstance(result, StructType) and isinstance(result.elements[0], IntType)
    tree.insert((aggregate_offset(result, [1])[0],), INTEGER)
    if not address_operand:
        tree.insert((0,), INTEGER)
    return tree


__all__ = ["is_overflow_intrinsic", "overflow_result_tree"]
