"""Which predecessor led to a merge block, from the branch condition instead of a record.

``rev.B`` of a block B with several predecessors must continue with the reverse of the
predecessor that led to B. In general the forward pass records its index (a phi at B's
top, looked up like any value, so usually one tape slot per execution of B). For the
merge of an if/else (a diamond) or of an if without else (a triangle) the index is a
function of the branch condition of B's immediate dominator C:

    C: br %cond, T, F        T ... P_T -> B        F ... P_F -> B   (or C -> B itself)

When both successors of C are entered only from C (their other predecessors are back
edges from blocks they dominate), every path into P_T passes the edge C -> T, so the most recent execution of C before B took the true side exactly
when B was entered from P_T. The reverse pass then selects the index with ``%cond``
looked up in ``rev.B``: this is used when that lookup needs no tape (the condition is
recomputed from induction variables, arguments or loads nothing overwrites), which is the
usual case for loop guards and bounds checks in loop bodies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ir.builder import IRBuilder
from irgrad.ir.dominators import DominatorTree

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


class BranchIndex:
    """``cond ? k_true : k_false`` indexes ``preds`` of one merge block."""

    def __init__(self, cond: ir.Value, k_true: int, k_false: int) -> None:
        self.cond = cond  # original i1 value
        self.k_true = k_true
        self.k_false = k_false

    def emit(self, gu: GradientUtils, bb: ir.BasicBlock, b: IRBuilder) -> ir.Value:
        c = gu.lookup_primal(self.cond, bb)
        return b.select(c, ir.ConstantInt(ir.i32, self.k_true),
                        ir.ConstantInt(ir.i32, self.k_false))


def _edges(src: ir.BasicBlock, dst: ir.BasicBlock) -> int:
    term = src.terminator
    return 0 if term is None else sum(1 for op in term.operands if op is dst)


def _side(pred: ir.BasicBlock, bb: ir.BasicBlock, c: ir.BasicBlock,
          succs: tuple[ir.BasicBlock, ir.BasicBlock], dt: DominatorTree) -> int | None:
    """0 when every path into the edge ``pred -> bb`` took C's true edge, 1 for the
    false edge, None when it cannot be told."""
    if pred is c:
        sides = [k for k, s in enumerate(succs) if s is bb]
        return sides[0] if len(sides) == 1 else None
    found = [k for k, s in enumerate(succs) if s is not bb and dt.dominates(s, pred)]
    return found[0] if len(found) == 1 else None


def branch_index(gu: GradientUtils, bb: ir.BasicBlock, preds: list[ir.BasicBlock],
                 dt: DominatorTree) -> BranchIndex | None:
    """The branch-condition form of ``bb``'s predecessor index, or None."""
    if len(preds) != 2 or any(_edges(p, bb) != 1 for p in preds):
        return None
    c = dt.idom(bb)
    if c is None:
        return None
    term = c.terminator
    if not isinstance(term, ir.BranchInst) or not term.is_conditional:
        return None
    t, f = term.true_dest, term.false_dest
    assert f is not None
    if t is f:
        return None
    for s in (t, f):  # entered only from C (other predecessors: back edges into s)
        if s is not bb and any(p is not c and not dt.dominates(s, p)
                               for p in s.predecessors() if p in gu.reachable):
            return None
    sides = [_side(p, bb, c, (t, f), dt) for p in preds]
    if None in sides or sides[0] == sides[1]:
        return None
    cond = term.condition
    assert cond is not None
    if gu.planner.plan(bb, gu.primal(cond)):
        return None  # the condition would need the tape: recording the index is as cheap
    k_true = sides.index(0)
    return BranchIndex(cond, k_true, 1 - k_true)
