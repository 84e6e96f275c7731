"""Natural loops (LoopInfo): loops from back edges, their nesting and simple queries.

A back edge is an edge ``latch -> header`` whose header dominates the latch; the loop of a
header is the union of the blocks that reach one of its latches without passing through
the header. Loops sharing a header are one loop. Loops nest by containment.
Induction variables and trip counts live in :mod:`irgrad.analysis.trip_count`; the
``Loop`` methods here forward to it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from irgrad.analysis.trip_count import canonical_iv, compute_trip_count, induction_variables
from irgrad.ir.cfg import predecessors, reverse_postorder, successors
from irgrad.ir.dominators import DominatorTree
from irgrad.ir.function import BasicBlock, Function
from irgrad.ir.instructions import Instruction, PHINode
from irgrad.ir.values import Value

if TYPE_CHECKING:
    from irgrad.analysis.trip_count import InductionVariable, TripCount


class Loop:
    """One natural loop. ``blocks`` is a set; ``block_list`` keeps function order."""

    def __init__(self, header: BasicBlock, blocks: set[BasicBlock], latches: list[BasicBlock],
                 function: Function) -> None:
        self.header = header
        self.blocks = blocks
        self.latches = latches
        self.function = function
        self.parent: Loop | None = None
        self.subloops: list[Loop] = []
        self.block_list = [bb for bb in function.blocks if bb in blocks]
        # blocks outside the loop from which the function never returns (an error
        # branch ending in exit() or abort()); set by LoopInfo(..., returning_exits=True)
        self.dead_ends: frozenset[BasicBlock] = frozenset()

    # -- structure -------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """1 for an outermost loop, 2 for a loop nested in it, ..."""
        d = 1
        p = self.parent
        while p is not None:
            d += 1
            p = p.parent
        return d

    @property
    def latch(self) -> BasicBlock | None:
        """The unique latch, or None when there are several."""
        return self.latches[0] if len(self.latches) == 1 else None

    def contains(self, x: BasicBlock | Instruction | Loop) -> bool:
        """Is the block / instruction / loop inside this loop (nested loops included)?"""
        if isinstance(x, Loop):
            return x.header in self.blocks
        if isinstance(x, Instruction):
            return x.parent in self.blocks
        return x in self.blocks

    __contains__ = contains

    def outside_predecessors(self) -> list[BasicBlock]:
        """Predecessors of the header that are not in the loop (entering blocks)."""
        return [p for p in predecessors(self.header) if p not in self.blocks]

    @property
    def preheader(self) -> BasicBlock | None:
        """The unique out-of-loop predecessor of the header, if its only successor is the
        header; else None."""
        outside = self.outside_predecessors()
        if len(outside) != 1:
            return None
        pre = outside[0]
        return pre if successors(pre) == [self.header] else None

    @property
    def loop_predecessor(self) -> BasicBlock | None:
        """The unique out-of-loop predecessor of the header (it may branch elsewhere too)."""
        outside = self.outside_predecessors()
        return outside[0] if len(outside) == 1 else None

    @property
    def exiting_blocks(self) -> list[BasicBlock]:
        """Blocks of the loop with a successor outside it (function order)."""
        return [bb for bb in self.block_list
                if any(s not in self.blocks for s in successors(bb))]

    @property
    def returning_exiting_blocks(self) -> list[BasicBlock]:
        """:attr:`exiting_blocks` without those whose only ways out of the loop lead to
        :attr:`dead_ends`: leaving through them ends the program, so a pass that runs
        only once the function returns (reverse-mode AD) never sees it."""
        return [bb for bb in self.exiting_blocks
                if any(s not in self.blocks and s not in self.dead_ends
                       for s in successors(bb))]

    @property
    def returning_exit_blocks(self) -> list[BasicBlock]:
        """:attr:`exit_blocks` without the :attr:`dead_ends`."""
        return [x for x in self.exit_blocks if x not in self.dead_ends]

    @property
    def exit_blocks(self) -> list[BasicBlock]:
        """Distinct blocks outside the loop that are successors of loop blocks."""
        out: list[BasicBlock] = []
        for bb in self.block_list:
            for s in successors(bb):
                if s not in self.blocks and s not in out:
                    out.append(s)
        return out

    @property
    def exit_edges(self) -> list[tuple[BasicBlock, BasicBlock]]:
        return [(bb, s) for bb in self.block_list for s in successors(bb) if s not in self.blocks]

    # -- values ----------------------------------------------------------------------
    def is_invariant(self, value: Value) -> bool:
        """True when ``value`` is not defined by an instruction inside the loop."""
        if isinstance(value, Instruction):
            return value.parent not in self.blocks
        return not isinstance(value, BasicBlock) or value not in self.blocks

    def canonical_iv(self) -> PHINode | None:
        """A header phi starting at 0 (from outside) and stepping +1 on every latch."""
        return canonical_iv(self)

    def induction_variables(self) -> list[InductionVariable]:
        """Header phis that are simple add-recurrences (phi, start, step)."""
        return induction_variables(self)

    def trip_count(self) -> TripCount | None:
        """Symbolic number of header executions, or None when it is not computable. With
        :attr:`dead_ends` set, the count of an execution that leaves the loop through a
        returning exit (leaving through a dead end ends the program earlier)."""
        return compute_trip_count(self)

    def trip_count_is_known_at_entry(self) -> bool:
        """Can the trip count be computed before the loop starts?"""
        tc = self.trip_count()
        return tc is not None and tc.is_known_at_entry(self)

    def __repr__(self) -> str:
        names = ", ".join(f"%{bb.name}" for bb in self.block_list)
        return f"<Loop header=%{self.header.name} depth={self.depth} blocks=[{names}]>"


class LoopInfo:
    """The loop nest of a function."""

    def __init__(self, fn: Function, domtree: DominatorTree | None = None, *,
                 returning_exits: bool = False) -> None:
        """``returning_exits``: each loop's :attr:`Loop.dead_ends` holds the blocks of
        ``fn`` that reach no ``ret`` or ``resume``, so exits into them do not count for
        its trip count (for passes that run only after the function returns)."""
        self.function = fn
        self.domtree = domtree if domtree is not None else DominatorTree(fn)
        self.top_level: list[Loop] = []
        self._innermost: dict[BasicBlock, Loop] = {}
        if not fn.blocks:
            self.loops: list[Loop] = []
            return
        rpo = reverse_postorder(fn)
        dt = self.domtree
        found: list[Loop] = []
        for header in rpo:
            latches = [p for p in predecessors(header)
                       if dt.is_reachable(p) and dt.dominates(header, p)]
            if not latches:
                continue
            body: set[BasicBlock] = {header}
            work = [bb for bb in latches if bb is not header]
            while work:
                bb = work.pop()
                if bb in body:
                    continue
                body.add(bb)
                work.extend(p for p in predecessors(bb) if dt.is_reachable(p))
            latches = [bb for bb in fn.blocks if bb in latches]
            found.append(Loop(header, body, latches, fn))
        # Nesting: the parent is the smallest other loop containing the header.
        by_size = sorted(found, key=lambda lp: len(lp.blocks))
        for k, lp in enumerate(by_size):
            for bigger in by_size[k + 1:]:
                if lp.header in bigger.blocks:
                    lp.parent = bigger
                    break
        for lp in found:  # headers in RPO: outer loops first
            if lp.parent is None:
                self.top_level.append(lp)
            else:
                lp.parent.subloops.append(lp)
        for lp in by_size[::-1]:  # bigger first; inner loops overwrite
            for bb in lp.blocks:
                self._innermost[bb] = lp
        self.loops = list(self._preorder())
        if returning_exits:
            dead = dead_end_blocks(fn)
            for lp in self.loops:
                lp.dead_ends = dead

    def _preorder(self) -> Iterator[Loop]:
        stack = list(reversed(self.top_level))
        while stack:
            lp = stack.pop()
            yield lp
            stack.extend(reversed(lp.subloops))

    def __iter__(self) -> Iterator[Loop]:
        return iter(self.loops)

    def __len__(self) -> int:
        return len(self.loops)

    def loop_for(self, bb: BasicBlock | Instruction) -> Loop | None:
        """The innermost loop containing the block (or the instruction's block)."""
        if isinstance(bb, Instruction):
            if bb.parent is None:
                return None
            bb = bb.parent
        return self._innermost.get(bb)

    get_loop_for = loop_for

    def loop_depth(self, bb: BasicBlock) -> int:
        lp = self._innermost.get(bb)
        return lp.depth if lp is not None else 0

    def is_loop_header(self, bb: BasicBlock) -> bool:
        lp = self._innermost.get(bb)
        return lp is not None and lp.header is bb


def dead_end_blocks(fn: Function) -> frozenset[BasicBlock]:
    """The blocks of ``fn`` from which no ``ret`` or ``resume`` is reachable: every path
    from them ends in ``unreachable`` (after a call of ``exit``, ``abort`` or another
    function that does not return) or loops forever."""
    live: set[BasicBlock] = set()
    work: list[BasicBlock] = []
    for bb in fn.blocks:
        term = bb.terminator
        if term is not None and term.opcode in ("ret", "resume"):
            live.add(bb)
            work.append(bb)
    while work:
        for p in predecessors(work.pop()):
            if p not in live:
                live.add(p)
                work.append(p)
    return frozenset(bb for bb in fn.blocks if bb not in live)


__all__ = ["Loop", "LoopInfo", "dead_end_blocks"]
