"""Full unrolling of small constant-trip loops before differentiation.

The pre-AD pipeline runs with loop unrolling off, so that derivatives are synthesized
from rolled loops (a tape per loop, not per copy) and the post-AD pipeline unrolls and
vectorizes the result. For loops with a small constant trip count (``for (k = 0; k < 3;
k++)`` over the coordinates of a point, the degree of a polynomial) rolled is the wrong
shape: each becomes a reverse loop with its own tape and bookkeeping for two or three
iterations, its local arrays stay in memory (with shadows in memory: in vector forward
mode one ``<W x double>`` load and store per element), and values the reverse pass
could recompute from straight-line code are cached instead. An optimizing compiler would
have unrolled such loops (LLVM's full-unroll pass at -O2), and Enzyme, running after it,
sees them unrolled.

So, after the pre-AD pipeline, the innermost loops of the functions that get
differentiated whose trip count is a constant of at most :data:`MAX_TRIPS` and whose
unrolled body stays under :data:`MAX_UNROLLED_SIZE` instructions are marked
``llvm.loop.unroll.full``; the caller then runs the pre-AD pipeline again, whose
full-unroll pass honours that request (and only that: unrolling stays off otherwise).
Loops that already carry ``llvm.loop.unroll.*`` metadata (a user's ``#pragma``) are left
as they are.
"""

from __future__ import annotations

import re

from irgrad import ir
from irgrad.ad.api.markers import enzyme_calls, strip_casts
from irgrad.analysis.loops import Loop, LoopInfo
from irgrad.ir.dominators import DominatorTree

MAX_TRIPS = 8
MAX_UNROLLED_SIZE = 320
UNROLL_FULL = '!{!"llvm.loop.unroll.full"}'

_MD_LINE = re.compile(r"^!(\d+) = (distinct )?!\{(.*)\}\s*$")


def differentiated_functions(module: ir.Module) -> list[ir.Function]:
    """Functions passed to an ``__enzyme_*`` entry point and the definitions they call."""
    roots: list[ir.Function] = []
    for call, _ in enzyme_calls(module):
        target = strip_casts(call.args[0]) if call.args else None
        if isinstance(target, ir.Function) and not target.is_declaration:
            roots.append(target)
    seen: dict[int, ir.Function] = {}
    work = list(roots)
    while work:
        fn = work.pop()
        if id(fn) in seen:
            continue
        seen[id(fn)] = fn
        for inst in fn.instructions():
            if isinstance(inst, ir.CallBase):
                callee = inst.called_function
                if callee is not None and not callee.is_declaration:
                    work.append(callee)
    return list(seen.values())


def _size(loop: Loop) -> int:
    return sum(
        1 for bb in loop.block_list for inst in bb.instructions
        if not isinstance(inst, ir.PHINode)
    )


def _small_constant_trips(loop: Loop) -> bool:
    if loop.subloops or len(loop.latches) != 1:
        return False
    tc = loop.trip_count()
    trips = tc.constant() if tc is not None else None
    return trips is not None and 2 <= trips <= MAX_TRIPS and (
        trips * _size(loop) <= MAX_UNROLLED_SIZE
    )


class _Metadata:
    """The module's numbered metadata lines, with fresh ids for new nodes."""

    def __init__(self, module: ir.Module) -> None:
        self.module = module
        self.lines: dict[str, str] = {}
        top = -1
        for line in module.metadata:
            m = _MD_LINE.match(line)
            if m:
                self.lines[f"!{m.group(1)}"] = line
            head = line.split(" ", 1)[0]
            if head[1:].isdigit():
                top = max(top, int(head[1:]))
        self.next_id = top + 1
        self.unroll_full: str | None = None

    def add(self, body: str, *, distinct: bool = False) -> str:
        ref = f"!{self.next_id}"
        self.next_id += 1
        line = f"{ref} = {'distinct ' if distinct else ''}!{{{body.replace('@SELF', ref)}}}"
        self.module.metadata.append(line)
        self.lines[ref] = line
        return ref

    def operands(self, ref: str) -> list[str] | None:
        line = self.lines.get(ref)
        m = _MD_LINE.match(line) if line else None
        if m is None:
            return None
        return [op.strip() for op in m.group(3).split(",") if op.strip()]

    def mentions_unroll(self, ref: str) -> bool:
        ops = self.operands(ref) or []
        return any("llvm.loop.unroll" in (self.lines.get(op) or "") for op in ops[1:])

    def full_unroll_loop_id(self, old: str | None) -> str | None:
        """A new loop id with the old one's properties plus ``unroll.full``; None when the
        old one asks for some unrolling itself or cannot be read."""
        kept: list[str] = []
        if old is not None:
            ops = self.operands(old)
            if ops is None or self.mentions_unroll(old):
                return None
            kept = ops[1:]
        if self.unroll_full is None:
            self.unroll_full = self.add(UNROLL_FULL[2:-1])
        return self.add(", ".join(["@SELF", *kept, self.unroll_full]), distinct=True)


def mark_small_loops_for_full_unroll(module: ir.Module) -> int:
    """Mark the small constant-trip loops of differentiated functions; returns how many."""
    md: _Metadata | None = None
    marked = 0
    for fn in differentiated_functions(module):
        info = LoopInfo(fn, DominatorTree(fn))
        for loop in info:
            if not _small_constant_trips(loop):
                continue
            latch = loop.latches[0]
            term = latch.terminator
            if not isinstance(term, ir.BranchInst):
                continue
            md = md or _Metadata(module)
            new_id = md.full_unroll_loop_id(term.get_metadata("llvm.loop"))
            if new_id is None:
                continue
            term.set_metadata("llvm.loop", new_id)
            marked += 1
    return marked
