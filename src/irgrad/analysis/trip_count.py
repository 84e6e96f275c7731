"""Induction variables and trip counts of natural loops.

An induction variable here is a header phi that is a simple add-recurrence: one start
value flowing in from outside the loop and ``phi + step`` (or ``phi - c``) flowing back
from every in-loop predecessor, with a loop-invariant step.

The trip count of a loop is the **number of times its header executes** (so a canonical
induction variable 0, 1, ... takes the values 0 .. trip_count - 1). It is known when the
loop has a single exiting block whose conditional branch tests an add-recurrence (the phi
itself or its incremented value) against a loop-invariant bound with ``icmp``. This covers
LLVM's rotated do-while form (test of ``iv.next`` in the latch) and the header-exit form
(test of ``iv`` in the header). With the test value at header execution ``k`` being
``t_k = start + (k + off) * step`` (``off`` = 1 when the incremented value is tested) and
the loop continuing while ``pred(t_k, bound)``::

    trip_count = 1 + max(0, ceil(D / |step|) - off)

where ``D`` is the distance from ``start`` to ``bound`` in the direction of ``step``
(``+1`` for the inclusive predicates ``sle ule sge uge``), clamped at 0 (not for ``ne``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from irgrad.analysis.strided_access import strided_address
from irgrad.ir.constants import ConstantInt
from irgrad.ir.control import BranchInst
from irgrad.ir.function import BasicBlock
from irgrad.ir.instructions import (
    BinaryOperator,
    GetElementPtrInst,
    ICmpInst,
    Instruction,
    PHINode,
    SelectInst,
)
from irgrad.ir.printer import value_ref
from irgrad.ir.types import IntType, PointerType, Type
from irgrad.ir.values import Value

if TYPE_CHECKING:
    from irgrad.analysis.loops import Loop

SWAPPED = {"eq": "eq", "ne": "ne", "slt": "sgt", "sgt": "slt", "sle": "sge", "sge": "sle",
           "ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule"}
INVERSE = {"eq": "ne", "ne": "eq", "slt": "sge", "sge": "slt", "sle": "sgt", "sgt": "sle",
           "ult": "uge", "uge": "ult", "ule": "ugt", "ugt": "ule"}
_UP = {"slt", "sle", "ult", "ule", "ne"}
_DOWN = {"sgt", "sge", "ugt", "uge", "ne"}
_INCLUSIVE = {"sle", "ule", "sge", "uge"}


@dataclass(frozen=True)
class InductionVariable:
    """``phi = [start, outside], [increment, latches]`` with ``increment = phi + step``."""

    phi: PHINode
    start: Value
    step: int | Value  # int when constant
    increment: Instruction

    @property
    def constant_step(self) -> int | None:
        return self.step if isinstance(self.step, int) else None


def _value_key(v: Value) -> object:
    """Identity, except that equal integer constants are the same value."""
    if isinstance(v, ConstantInt):
        return ("int", v.type, v.unsigned_value)
    return id(v)


def _as_int(v: Value) -> int | None:
    return v.signed_value if isinstance(v, ConstantInt) else None


def _recurrence_step(phi: PHINode, inc: Value, loop: Loop) -> int | Value | None:
    if not isinstance(inc, BinaryOperator) or inc.parent not in loop.blocks:
        return None
    lhs, rhs = inc.lhs, inc.rhs
    if inc.opcode == "add":
        other = rhs if lhs is phi else lhs if rhs is phi else None
        if other is None or not loop.is_invariant(other):
            return None
        c = _as_int(other)
        return c if c is not None else other
    if inc.opcode == "sub" and lhs is phi:
        c = _as_int(rhs)
        return -c if c is not None else None
    return None


def _start_and_back(phi: PHINode, loop: Loop) -> tuple[Value, Value] | None:
    """The one value ``phi`` takes on entering ``loop`` and the one it takes on its back
    edges (equal integer constants count as one), or None."""
    starts = {_value_key(v): v for v, bb in phi.incoming if bb not in loop.blocks}
    backs = {_value_key(v): v for v, bb in phi.incoming if bb in loop.blocks}
    if len(starts) != 1 or len(backs) != 1:
        return None
    return next(iter(starts.values())), next(iter(backs.values()))


def induction_variables(loop: Loop) -> list[InductionVariable]:
    """The simple integer add-recurrences among the header phis (in header order)."""
    out: list[InductionVariable] = []
    for phi in loop.header.phis():
        edges = _start_and_back(phi, loop) if isinstance(phi.type, IntType) else None
        if edges is None:
            continue
        start, inc = edges
        step = _recurrence_step(phi, inc, loop)
        if step is None or step == 0:
            continue
        out.append(InductionVariable(phi, start, step, inc))  # type: ignore[arg-type]
    return out


@dataclass(frozen=True)
class PointerInductionVariable:
    """``phi = [start, outside], [getelementptr phi, step, latch]``: a pointer walking an
    array (``*p++``, ``row += n``). At header execution ``k`` it is ``start`` advanced by
    ``k`` steps: ``byte_step`` bytes, or ``index_step`` elements of ``element`` (a
    loop-invariant step not known at compile time)."""

    phi: PHINode
    start: Value
    increment: GetElementPtrInst
    byte_step: int | None
    index_step: Value | None
    element: Type


def _pointer_step(phi: PHINode, inc: Value, loop: Loop
                  ) -> tuple[int | None, Value | None, Type] | None:
    if (not isinstance(inc, GetElementPtrInst) or inc.pointer is not phi
            or inc.parent not in loop.blocks or not inc.indices):
        return None
    if len(inc.indices) == 1 and not isinstance(inc.indices[0], ConstantInt):
        idx = inc.indices[0]
        if not loop.is_invariant(idx) or not isinstance(idx.type, IntType):
            return None
        return None, idx, inc.source_type
    addr = strided_address(inc)  # constant indices: phi + offset bytes
    if addr is None or addr.stride != 0 or addr.offset == 0:
        return None
    return addr.offset, None, inc.source_type


def pointer_induction_variables(loop: Loop) -> list[PointerInductionVariable]:
    """The header phis of pointer type that advance by a loop-invariant step."""
    out: list[PointerInductionVariable] = []
    for phi in loop.header.phis():
        edges = _start_and_back(phi, loop) if isinstance(phi.type, PointerType) else None
        step = None if edges is None else _pointer_step(phi, edges[1], loop)
        if edges is None or step is None:
            continue
        out.append(PointerInductionVariable(phi, edges[0], edges[1], *step))  # type: ignore[arg-type]
    return out


def canonical_iv(loop: Loop) -> PHINode | None:
    """The header phi starting at 0 and stepping by +1, if there is one."""
    for iv in induction_variables(loop):
        if isinstance(iv.start, ConstantInt) and iv.start.value == 0 and iv.step == 1:
            return iv.phi
    return None


@dataclass(frozen=True)
class TripCount:
    """Number of header executions of a loop, as a symbolic record.

    The loop continues after header execution ``k`` while
    ``predicate(start + (k + after_increment) * step, bound)``.
    """

    iv: InductionVariable
    start: Value
    step: int
    bound: Value
    predicate: str  # the continue predicate, recurrence on the left
    test_after_increment: bool
    exiting_block: BasicBlock
    compare: ICmpInst

    @property
    def type(self) -> IntType:
        return self.iv.phi.type  # type: ignore[return-value]

    @property
    def is_signed(self) -> bool:
        return self.predicate.startswith("s")

    def is_known_at_entry(self, loop: Loop) -> bool:
        """Start and bound are available before the loop (defined outside of it)."""
        return loop.is_invariant(self.start) and loop.is_invariant(self.bound)

    def constant(self) -> int | None:
        """The trip count when start and bound are constants."""
        if not (isinstance(self.start, ConstantInt) and isinstance(self.bound, ConstantInt)):
            return None
        unsigned = self.predicate.startswith("u")
        s = self.start.unsigned_value if unsigned else self.start.signed_value
        b = self.bound.unsigned_value if unsigned else self.bound.signed_value
        d = b - s if self.step > 0 else s - b
        if self.predicate in _INCLUSIVE:
            d += 1
        if self.predicate != "ne":
            d = max(d, 0)
        elif d < 0 or d % abs(self.step):
            return None  # wraps around / never equal: not a finite simple count
        q = -(-d // abs(self.step))
        return 1 + max(0, q - int(self.test_after_increment))

    def describe(self) -> str:
        """``{start, +step, pred bound, after|before increment}`` for printing."""
        when = "after" if self.test_after_increment else "before"
        return (f"{{start={value_ref(self.start)}, step={self.step:+d}, "
                f"continue while {self.predicate} {value_ref(self.bound)}, test {when} increment}}")


def compute_trip_count(loop: Loop) -> TripCount | None:
    """The loop's :class:`TripCount`, or None when the exit test is not a simple one."""
    exiting = loop.returning_exiting_blocks
    if len(exiting) != 1:
        return None
    block = exiting[0]
    dt_ok = all(_dominates_in_loop(block, latch, loop) for latch in loop.latches)
    if not dt_ok:
        return None
    term = block.terminator
    if not isinstance(term, BranchInst) or not term.is_conditional:
        return None
    cmp = term.condition
    if not isinstance(cmp, ICmpInst):
        return None
    false_dest = term.false_dest
    assert false_dest is not None
    exit_on_true = term.true_dest not in loop.blocks
    if exit_on_true == (false_dest not in loop.blocks):
        return None
    for iv in induction_variables(loop):
        if not isinstance(iv.step, int):
            continue
        for side in (0, 1):
            test = cmp.lhs if side == 0 else cmp.rhs
            bound = cmp.rhs if side == 0 else cmp.lhs
            if test is iv.phi:
                after = False
            elif test is iv.increment:
                after = True
            else:
                continue
            if not loop.is_invariant(bound) or not loop.is_invariant(iv.start):
                continue
            pred = cmp.predicate if side == 0 else SWAPPED[cmp.predicate]
            if exit_on_true:
                pred = INVERSE[pred]
            if pred not in (_UP if iv.step > 0 else _DOWN):
                continue
            return TripCount(iv, iv.start, iv.step, bound, pred, after, block, cmp)
    return None


def _dominates_in_loop(a: BasicBlock, b: BasicBlock, loop: Loop) -> bool:
    """Does ``a`` dominate ``b`` within the loop body (every header->b path hits a)?"""
    if a is b or a is loop.header:
        return True
    seen = {loop.header}
    work = [loop.header]
    while work:
        bb = work.pop()
        for s in bb.successors():
            if s is b:
                return False
            if s in loop.blocks and s is not a and s not in seen:
                seen.add(s)
                work.append(s)
    return True


def emit_trip_count(builder: Any, loop: Loop, name: str = "tripcount") -> Value | None:
    """Emit IR computing ``loop.trip_count()`` at the builder's insertion point (which
    must be dominated by the start and bound, e.g. the preheader's end). Returns the
    value (a ConstantInt when it folds), or None when the trip count is unknown."""
    tc = compute_trip_count(loop)
    if tc is None:
        return None
    ty = tc.type
    folded = tc.constant()
    if folded is not None:
        return ConstantInt(ty, folded)

    def c(v: int) -> ConstantInt:
        return ConstantInt(ty, v)

    def put(inst: Instruction, suffix: str) -> Instruction:
        return builder.insert(inst, f"{name}.{suffix}")

    up = tc.step > 0
    diff: Value = put(BinaryOperator("sub", tc.bound, tc.start) if up
                      else BinaryOperator("sub", tc.start, tc.bound), "dist")
    if tc.predicate in _INCLUSIVE:
        diff = put(BinaryOperator("add", diff, c(1)), "incl")
    if tc.predicate != "ne":
        if tc.is_signed:
            empty = put(ICmpInst("slt", diff, c(0)), "empty")
        else:
            lo, hi = (tc.bound, tc.start) if up else (tc.start, tc.bound)
            empty = put(ICmpInst("ult", lo, hi), "empty")
        diff = put(SelectInst(empty, c(0), diff), "clamped")
    s = abs(tc.step)
    if s != 1:
        diff = put(BinaryOperator("add", diff, c(s - 1)), "round")
        diff = put(BinaryOperator("udiv", diff, c(s)), "iters")
    if tc.test_after_increment:
        zero = put(ICmpInst("eq", diff, c(0)), "zero")
        return builder.insert(SelectInst(zero, c(1), diff), name)
    return builder.insert(BinaryOperator("add", diff, c(1)), name)


__all__ = [
    "InductionVariable",
    "TripCount",
    "canonical_iv",
    "compute_trip_count",
    "emit_trip_count",
    "induction_variables",
]
