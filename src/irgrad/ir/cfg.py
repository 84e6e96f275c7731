"""Control-flow graph queries over :class:`irgrad.ir.Function` blocks.

Successors come from a block's terminator (distinct, in operand order); predecessors from
the uses of the block by terminators. Orders are computed by an iterative depth-first
search from the entry block, so deep CFGs do not hit Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from irgrad.ir.function import BasicBlock, Function

N = TypeVar("N", bound=Hashable)


def successors(bb: BasicBlock) -> list[BasicBlock]:
    """Distinct successor blocks of ``bb`` in terminator operand order."""
    return bb.successors()


def predecessors(bb: BasicBlock) -> list[BasicBlock]:
    """Distinct predecessor blocks of ``bb`` (blocks whose terminator targets it)."""
    return bb.predecessors()


def graph_postorder(roots: Iterable[N], succs: Callable[[N], Iterable[N]]) -> list[N]:
    """Postorder of the nodes reachable from ``roots`` following ``succs`` (iterative DFS)."""
    seen: set[N] = set()
    order: list[N] = []
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack: list[tuple[N, list[N]]] = [(root, list(succs(root)))]
        while stack:
            node, pending = stack[-1]
            advanced = False
            while pending:
                nxt = pending.pop(0)
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, list(succs(nxt))))
                    advanced = True
                    break
            if not advanced:
                stack.pop()
                order.append(node)
    return order


def postorder(fn: Function) -> list[BasicBlock]:
    """Blocks reachable from the entry, in DFS postorder (the entry comes last)."""
    if not fn.blocks:
        return []
    return graph_postorder([fn.entry_block], successors)


def reverse_postorder(fn: Function) -> list[BasicBlock]:
    """Blocks reachable from the entry in reverse postorder (entry first; a block comes
    before its successors except along back edges)."""
    return postorder(fn)[::-1]


def reachable(fn: Function) -> set[BasicBlock]:
    """The set of blocks reachable from the entry block."""
    return set(postorder(fn))


def exit_blocks(fn: Function) -> list[BasicBlock]:
    """Blocks without successors (``ret``, ``unreachable``, ``resume``...), in function order."""
    return [bb for bb in fn.blocks if not bb.successors()]


def back_edges(fn: Function) -> list[tuple[BasicBlock, BasicBlock]]:
    """DFS back edges ``(tail, head)`` of the reachable CFG (retreating edges)."""
    index = {bb: k for k, bb in enumerate(reverse_postorder(fn))}
    out: list[tuple[BasicBlock, BasicBlock]] = []
    for bb, k in index.items():
        for s in successors(bb):
            if index[s] <= k:
                out.append((bb, s))
    return out


__all__ = [
    "back_edges",
    "exit_blocks",
    "graph_postorder",
    "postorder",
    "predecessors",
    "reachable",
    "reverse_postorder",
    "successors",
]
