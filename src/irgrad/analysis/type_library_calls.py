"""What calls into libraries say about the types of their arguments' memory, for the type
analysis (:mod:`irgrad.analysis.type_analysis`): BLAS/LAPACK routines and Enzyme's type
hints (``__enzyme_double(p, bytes)`` and friends)."""

from __future__ import annotations

from typing import Protocol

from irgrad.analysis.blas import pointer_element
from irgrad.analysis.type_tree import DOUBLE, FLOAT, INTEGER, POINTER, ConcreteType, TypeTree
from irgrad.ir.constants import ConstantInt
from irgrad.ir.control import CallBase
from irgrad.ir.values import Value


class TypeFacts(Protocol):
    """The part of one function's type analysis that a library call updates."""

    def set_scalar(self, v: Value, ct: ConcreteType) -> None: ...

    def update_pointee(self, p: Value, mem: TypeTree) -> None: ...


#: Enzyme's type hints: (the type they declare, its size in bytes)
HINT_TYPES = {
    "__enzyme_double": (DOUBLE, 8),
    "__enzyme_float": (FLOAT, 4),
    "__enzyme_integer": (INTEGER, 1),
    "__enzyme_pointer": (POINTER, 8),
}


def visit_blas_call(facts: TypeFacts, call: CallBase) -> None:
    """A BLAS/LAPACK routine: its arrays and by-reference scalars hold its element type,
    its sizes and flags are integers (:func:`irgrad.analysis.blas.pointer_element`)."""
    for k, a in enumerate(call.args):
        what = pointer_element(call, k)
        if what is None:
            if a.type.is_integer:
                facts.set_scalar(a, INTEGER)
            continue
        ct = {"double": DOUBLE, "float": FLOAT}.get(what, INTEGER)
        if not a.type.is_pointer:
            if ct is INTEGER:
                facts.set_scalar(a, INTEGER)
            continue
        facts.set_scalar(a, POINTER)
        facts.update_pointee(a, TypeTree({(-1,): ct}))


def visit_type_hint(facts: TypeFacts, args: list[Value], ct: ConcreteType, size: int) -> None:
    """``__enzyme_double(p, bytes)`` and friends: what the memory at ``p`` holds."""
    count = args[1] if len(args) > 1 else None
    total = count.unsigned_value if isinstance(count, ConstantInt) else size
    mem = TypeTree()
    for offset in range(0, max(total, size), size):
        mem.insert((offset,), ct)
    facts.set_scalar(args[0], POINTER)
    facts.update_pointee(args[0], mem)


__all__ = ["HINT_TYPES", "TypeFacts", "visit_blas_call", "visit_type_hint"]
