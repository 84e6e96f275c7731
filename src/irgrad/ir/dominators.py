"""Dominator and post-dominator trees (Cooper, Harvey & Kennedy's iterative algorithm).

Conventions follow LLVM:

* a block dominates itself; a block unreachable from the entry is dominated by every block
  and dominates nothing but itself (and other unreachable blocks);
* a definition dominates an instruction that uses it when it comes strictly before it in
  the same block, or its block properly dominates the user's block; a use in a ``phi``
  happens at the end of the corresponding incoming block; an ``invoke`` result is defined
  on the edge to its normal destination;
* arguments, constants and globals dominate every instruction.

The post-dominator tree has a virtual exit (``None`` in the API) whose children are the
blocks without successors; blocks that cannot reach any exit (infinite loops) get an
extra root so that every block is in the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, TypeVar

from irgrad.ir.cfg import graph_postorder, predecessors, successors
from irgrad.ir.control import InvokeInst
from irgrad.ir.function import BasicBlock, Function
from irgrad.ir.instructions import Instruction, PHINode
from irgrad.ir.values import Use, Value

N = TypeVar("N", bound=Hashable)


def compute_idoms(
    roots: Sequence[N], succs: Callable[[N], Iterable[N]], preds: Callable[[N], Iterable[N]]
) -> tuple[list[N], dict[N, N | None]]:
    """Immediate dominators of the nodes reachable from ``roots``.

    Multiple roots behave as if a virtual node preceded them all (their idom is None).
    Returns the reverse postorder and the idom map.
    """
    rpo = graph_postorder(roots, succs)[::-1]
    # Put the roots first (the virtual root's children).
    root_set = set(roots)
    rpo = [r for r in roots if r in set(rpo)] + [n for n in rpo if n not in root_set]
    index = {n: k for k, n in enumerate(rpo)}
    idom: dict[N, N | None] = {r: None for r in roots}
    VIRTUAL = object()

    def parent(n: object) -> object:
        p = idom[n]  # type: ignore[index]
        return VIRTUAL if p is None else p

    def order(n: object) -> int:
        return -1 if n is VIRTUAL else index[n]  # type: ignore[index]

    def intersect(a: object, b: object) -> object:
        while a is not b:
            while order(a) > order(b):
                a = parent(a)
            while order(b) > order(a):
                b = parent(b)
        return a

    changed = True
    while changed:
        changed = False
        for n in rpo:
            if n in root_set:
                continue
            new: object = None
            for p in preds(n):
                if p not in idom:
                    continue
                new = p if new is None else intersect(p, new)
            result = None if new is VIRTUAL else new
            if n not in idom or idom[n] is not result:
                idom[n] = result  # type: ignore[assignment]
                changed = True
    return rpo, idom


class _Tree(Generic[N]):
    """A tree given by an idom map, with DFS numbers for O(1) ancestor tests."""

    def __init__(self, order: list[N], idom: dict[N, N | None]) -> None:
        self._order = order
        self._idom = idom
        self._children: dict[N | None, list[N]] = {n: [] for n in order}
        self._children[None] = []
        for n in order:
            self._children[idom[n]].append(n)
        self._pre: dict[N, int] = {}
        self._post: dict[N, int] = {}
        self._level: dict[N, int] = {}
        counter = 0
        stack: list[tuple[N, int, bool]] = [(r, 0, False) for r in reversed(self._children[None])]
        while stack:
            node, level, done = stack.pop()
            if done:
                self._post[node] = counter
                counter += 1
                continue
            self._pre[node] = counter
            self._level[node] = level
            counter += 1
            stack.append((node, level, True))
            for c in reversed(self._children[node]):
                stack.append((c, level + 1, False))

    def _in_tree(self, n: N) -> bool:
        return n in self._pre

    def _ancestor(self, a: N, b: N) -> bool:
        return self._pre[a] <= self._pre[b] and self._post[b] <= self._post[a]

    def _nca(self, a: N, b: N) -> N | None:
        la, lb = self._level[a], self._level[b]
        x: N | None = a
        y: N | None = b
        while la > lb:
            x = self._idom[x]  # type: ignore[index]
            la -= 1
        while lb > la:
            y = self._idom[y]  # type: ignore[index]
            lb -= 1
        while x is not y:
            x = self._idom[x]  # type: ignore[index]
            y = self._idom[y]  # type: ignore[index]
        return x


def _use_block(use: Use) -> BasicBlock | None:
    """The block in which ``use`` happens (phi uses: the incoming block)."""
    user = use.user
    if isinstance(user, PHINode):
        blk = user.operands[use.index + 1]
        return blk if isinstance(blk, BasicBlock) else None
    return getattr(user, "parent", None)


class DominatorTree(_Tree[BasicBlock]):
    """Dominators of the blocks of ``fn`` (reachable from the entry block)."""

    def __init__(self, fn: Function) -> None:
        self.function = fn
        roots = [fn.entry_block] if fn.blocks else []
        order, idom = compute_idoms(roots, successors, predecessors)
        super().__init__(order, idom)
        self._inst_index: dict[BasicBlock, dict[Instruction, int]] = {}

    # -- blocks ----------------------------------------------------------------------
    @property
    def root(self) -> BasicBlock:
        return self.function.entry_block

    def is_reachable(self, bb: BasicBlock) -> bool:
        return self._in_tree(bb)

    def idom(self, bb: BasicBlock) -> BasicBlock | None:
        """Immediate dominator (None for the entry block and unreachable blocks)."""
        return self._idom.get(bb)

    def children(self, bb: BasicBlock) -> list[BasicBlock]:
        """Blocks whose immediate dominator is ``bb`` (in reverse postorder)."""
        return list(self._children.get(bb, ()))

    def level(self, bb: BasicBlock) -> int:
        """Depth in the tree (entry: 0)."""
        return self._level[bb]

    def nearest_common_dominator(self, a: BasicBlock, b: BasicBlock) -> BasicBlock | None:
        """The deepest block dominating both (an unreachable argument yields the other)."""
        if not self._in_tree(a):
            return b if self._in_tree(b) else None
        if not self._in_tree(b):
            return a
        return self._nca(a, b)

    def _block_dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        if a is b:
            return True
        if not self._in_tree(b):
            return True
        if not self._in_tree(a):
            return False
        return self._ancestor(a, b)

    # -- values ----------------------------------------------------------------------
    def _index_in_block(self, inst: Instruction) -> int:
        bb = inst.parent
        assert bb is not None, "instruction is not in a block"
        table = self._inst_index.get(bb)
        if table is None or inst not in table or len(table) != len(bb.instructions):
            table = {x: k for k, x in enumerate(bb.instructions)}
            self._inst_index[bb] = table
        return table[inst]

    def _def_dominates_block_end(self, d: Instruction, bb: BasicBlock) -> bool:
        """``d`` is available at the end of ``bb`` (i.e. on every edge leaving it)."""
        if isinstance(d, InvokeInst):
            return self._invoke_dominates_block(d, bb)
        assert d.parent is not None
        return self._block_dominates(d.parent, bb)

    def _invoke_dominates_block(self, d: InvokeInst, bb: BasicBlock) -> bool:
        normal = d.normal_dest
        preds = predecessors(normal)
        if len(preds) == 1 and preds[0] is d.parent:
            return self._block_dominates(normal, bb)
        return False

    def _def_dominates_inst(self, d: Instruction, user: Instruction) -> bool:
        ub = user.parent
        db = d.parent
        assert ub is not None and db is not None, "instructions must be in blocks"
        if isinstance(d, InvokeInst):
            return self._invoke_dominates_block(d, ub)
        if db is ub:
            if not self._in_tree(ub):
                return True
            return self._index_in_block(d) < self._index_in_block(user)
        return self._block_dominates(db, ub) and db is not ub

    def dominates(self, a: Value, b: Value | Use) -> bool:
        """Does ``a`` dominate ``b``?

        * blocks: ``a`` dominates ``b`` (reflexive);
        * a value and an instruction: the value is available where the instruction runs
          (for a ``phi`` user, at the end of each incoming block ``a`` flows from);
        * a value and a :class:`Use`: the value is available at that use;
        * an instruction and a block: the instruction dominates the block's start.
        """
        if isinstance(b, Use):
            return self._dominates_use(a, b)
        if isinstance(a, BasicBlock):
            if isinstance(b, BasicBlock):
                return self._block_dominates(a, b)
            if isinstance(b, Instruction):
                assert b.parent is not None
                return self._block_dominates(a, b.parent)
            return False
        if not isinstance(a, Instruction):
            return True  # arguments, constants, globals
        if isinstance(b, BasicBlock):
            if isinstance(a, InvokeInst):
                return self._invoke_dominates_block(a, b)
            assert a.parent is not None
            return a.parent is not b and self._block_dominates(a.parent, b)
        if not isinstance(b, Instruction):
            return False
        if isinstance(b, PHINode):
            blocks = [blk for v, blk in b.incoming if v is a]
            if blocks:
                return all(self._def_dominates_block_end(a, blk) for blk in blocks)
        return self._def_dominates_inst(a, b)

    def _dominates_use(self, a: Value, use: Use) -> bool:
        if not isinstance(a, Instruction):
            return True
        user = use.user
        if isinstance(user, PHINode):
            blk = _use_block(use)
            return blk is not None and self._def_dominates_block_end(a, blk)
        if not isinstance(user, Instruction):
            return False
        return self._def_dominates_inst(a, user)

    def properly_dominates(self, a: Value, b: Value) -> bool:
        """Like :meth:`dominates` but false when ``a is b``."""
        return a is not b and self.dominates(a, b)


class PostDominatorTree(_Tree[BasicBlock]):
    """Post-dominators; ``None`` stands for the virtual exit joining all exits."""

    def __init__(self, fn: Function) -> None:
        self.function = fn
        blocks = list(fn.blocks)
        roots = [bb for bb in blocks if not successors(bb)]
        covered = set(graph_postorder(roots, predecessors)) if roots else set()
        # Blocks that reach no exit (infinite loops): add the last-in-RPO such block as a root.
        fwd_rpo = graph_postorder([fn.entry_block], successors)[::-1] if blocks else []
        rest = [bb for bb in fwd_rpo + blocks if bb not in covered]
        while rest:
            extra = None
            for bb in reversed(fwd_rpo):
                if bb not in covered:
                    extra = bb
                    break
            if extra is None:
                extra = next(bb for bb in blocks if bb not in covered)
            roots.append(extra)
            covered |= set(graph_postorder([extra], predecessors))
            rest = [bb for bb in rest if bb not in covered]
        order, idom = compute_idoms(roots, predecessors, successors)
        super().__init__(order, idom)
        self.roots = roots

    def ipdom(self, bb: BasicBlock) -> BasicBlock | None:
        """Immediate post-dominator (None: the virtual exit)."""
        return self._idom.get(bb)

    idom = ipdom

    def children(self, bb: BasicBlock | None) -> list[BasicBlock]:
        """Blocks immediately post-dominated by ``bb`` (None: the exit roots)."""
        return list(self._children.get(bb, ()))

    def post_dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Every path from ``b`` to an exit goes through ``a`` (reflexive)."""
        if a is b:
            return True
        if not self._in_tree(a) or not self._in_tree(b):
            return False
        return self._ancestor(a, b)

    dominates = post_dominates

    def properly_post_dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        return a is not b and self.post_dominates(a, b)

    def nearest_common_post_dominator(self, a: BasicBlock, b: BasicBlock) -> BasicBlock | None:
        """The nearest block post-dominating both (None: only the virtual exit does)."""
        return self._nca(a, b)


__all__ = ["DominatorTree", "PostDominatorTree", "compute_idoms"]
