"""IRBuilder: create instructions at an insertion point, with LLVM's keywords as method names.

The insertion point is a block plus the instruction to insert before (``None`` = at the end).
Inserting before an instruction (rather than at an index) keeps the point stable while other
instructions are added or removed elsewhere in the block.

    b = IRBuilder(entry)
    s = b.fadd(x, y, name="s", flags=["fast"])
    b.ret(s)

Operands may be Python ``int``/``float`` where the other operand fixes the type
(``b.fmul(x, 2.0)``). Instructions whose type is ``void`` never get a name.

The emitters live in one module per kind of instruction, combined here:

==========================  ==================================================================
module                      what it emits
==========================  ==================================================================
``builder_base``            insertion point, ``insert``, ``constant_of`` (Python numbers)
``builder_values``          arithmetic, comparisons, ``select``, casts, aggregates, vectors
``builder_memory``          ``alloca``/``load``/``store``/``gep``, atomics, memset/memcpy
``builder_control``         phis, calls, invokes, intrinsics, terminators, landing pads
==========================  ==================================================================
"""

from __future__ import annotations

from .builder_base import aggregate_element_type, constant_of
from .builder_memory import MemoryBuilder
from .builder_values import FCMP_PREDICATES, ICMP_PREDICATES, ValueBuilder
from .types import StructType, Type


class IRBuilder(ValueBuilder, MemoryBuilder):
    """Creates instructions at the current insertion point (see the module docstring)."""


def literal_struct(*elements: Type) -> StructType:
    """Shorthand for a literal struct type (e.g. the return type of a gradient)."""
    return StructType(elements)


__all__ = ["FCMP_PREDICATES", "ICMP_PREDICATES", "IRBuilder", "aggregate_element_type",
           "constant_of", "literal_struct"]
