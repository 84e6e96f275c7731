"""The explain report (``irgrad cc --explain-ad``): what a reverse-mode derivative caches
on its tape, what it recomputes instead and why, and how large the tape grows.

Collected right after the tape is finalized, from the decisions the synthesis made (the
tape's frames, the lookup planner's recompute and store-forwarding choices, the loop
counters), so the report describes the code irgrad emitted, not a separate estimate.
Sizes per iteration are exact; totals multiply them by the trip counts known at compile
time and say which loops' counts are known only at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode
from irgrad.ad.core.diagnostics import loop_start_location, source_location_of, value_text
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.trip_count import compute_trip_count
from irgrad.errors import SourceLocation

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils
    from irgrad.analysis.loops import Loop

EXPLAIN_KEY = "explain.reports"  # DerivativeContext.analyses[...]: list of reports


@dataclass(frozen=True)
class LoopNote:
    """A loop around a cached value: where it starts and its trip count (None: known
    only at run time)."""

    where: str
    trip_count: int | None


@dataclass(frozen=True)
class CachedValue:
    where: str  # file:line[:column] of the value's instruction
    text: str  # the instruction, in IR syntax
    bytes: int  # tape bytes per execution of its block
    loops: tuple[LoopNote, ...]  # innermost first
    heap: bool = False  # a malloc'd copy (a loop snapshot inside a loop), not tape bytes

    @property
    def total(self) -> int | None:
        """Bytes over one call, when every enclosing trip count is a constant."""
        n = self.bytes
        for lp in self.loops:
            if lp.trip_count is None:
                return None
            n *= lp.trip_count
        return n


@dataclass(frozen=True)
class RecomputedValue:
    where: str
    text: str
    why: str


@dataclass(frozen=True)
class ReleasedBlock:
    """A heap block the function allocates and frees itself: where its free went."""
    where: str
    text: str
    kept_because: str | None  # None: freed where the primal frees it


@dataclass
class DerivativeReport:
    derivative: str
    primal: str
    mode: str
    cached: list[CachedValue] = field(default_factory=list)
    recomputed: list[RecomputedValue] = field(default_factory=list)
    released: list[ReleasedBlock] = field(default_factory=list)
    heap_tape: bool = True  # False: the tape starts in a stack buffer of the derivative
    on_caller_stack: bool = False  # a callee's: its frames go onto its caller's tape

    def static_bytes(self) -> int:
        """Tape bytes whose count is known at compile time."""
        return sum(c.total or 0 for c in self.cached if not c.heap)

    def runtime_bytes(self) -> dict[tuple[str, ...], int]:
        """The rest of the tape: bytes per iteration of the loops (innermost first) whose
        trip counts are known only at run time (constant trip counts multiplied in)."""
        out: dict[tuple[str, ...], int] = {}
        for c in self.cached:
            if c.total is not None or c.heap:
                continue
            n = c.bytes
            unknown: list[str] = []
            for lp in c.loops:
                if lp.trip_count is None:
                    unknown.append(lp.where)
                else:
                    n *= lp.trip_count
            out[tuple(unknown)] = out.get(tuple(unknown), 0) + n
        return out

    def render(self) -> str:
        lines = [f"derivative {self.derivative} of {self.primal} ({self.mode})"]
        if not self.cached:
            lines.append("  tape: none (every value the reverse pass needs is still "
                         "available, recomputed or re-read)")
        else:
            lines.append(f"  cached on the tape ({len(self.cached)} values):")
            for c in self.cached:
                loops = ", ".join(
                    f"loop at {lp.where} ({'trip count ' + str(lp.trip_count) if lp.trip_count is not None else 'trip count known at run time'})"
                    for lp in c.loops) or "outside loops"
                total = f", {c.total} bytes in all" if c.total is not None and c.loops else ""
                lines.append(f"    {c.where}: {c.text}")
                lines.append(f"      {c.bytes} bytes per execution; {loops}{total}")
                if c.heap:
                    lines.append("      (a malloc'd block, freed by the reverse of the loop "
                                 "it was copied before: not counted in the peak tape)")
        if self.recomputed:
            lines.append(f"  recomputed in the reverse pass ({len(self.recomputed)} values):")
            for r in self.recomputed:
                lines.append(f"    {r.where}: {r.text}")
                lines.append(f"      {r.why}")
        if self.released:
            lines.append(f"  heap blocks it frees itself ({len(self.released)}):")
            for r in self.released:
                lines.append(f"    {r.where}: {r.text}")
                if r.kept_because is None:
                    lines.append("      freed where the primal frees it: the reverse pass "
                                 "reads nothing from it")
                else:
                    lines.append(f"      freed by its reverse: {r.kept_because}")
        peak = f"  peak tape: {self.static_bytes()} bytes"
        for loops, n in self.runtime_bytes().items():
            peak += f" + {n} bytes x iterations of " + " x iterations of ".join(
                f"the loop at {w}" for w in loops)
        if self.on_caller_stack and self.cached:
            peak += " (pushed onto the calling derivative's tape: no malloc of its own)"
        elif not self.heap_tape and self.cached:
            peak += " (starts in a 1024-byte buffer on the stack: no malloc below that)"
        lines.append(peak)
        return "\n".join(lines)


def _where(gu: GradientUtils, v: ir.Value) -> tuple[SourceLocation, str]:
    orig = gu.orig_of_new.get(gu.shadow_primal.get(v, v), v)
    if isinstance(orig, ir.Instruction):
        located = orig
        if orig.debug_loc is None and orig.parent is not None:
            # a phi (a loop-carried value) has no line of its own: its block's first line
            located = _first_located(orig.parent, orig)
        return source_location_of(located, gu.module), value_text(orig)
    first = next(iter(gu.orig.instructions()), None)
    where = source_location_of(first, gu.module) if first is not None else SourceLocation()
    return where, value_text(orig)


def _first_located(block: ir.BasicBlock, default: ir.Instruction | None
                   ) -> ir.Instruction | None:
    """The first instruction of ``block`` with a source location (else ``default``)."""
    return next((i for i in block.instructions if i.debug_loc is not None), default)


def _loop_notes(gu: GradientUtils, loop: Loop | None,
                memo: dict[Loop, LoopNote]) -> tuple[LoopNote, ...]:
    """The loops around a block, innermost first (``memo``: the notes made so far)."""
    notes: list[LoopNote] = []
    while loop is not None:
        note = memo.get(loop)
        if note is None:
            tc = compute_trip_count(loop)
            note = memo[loop] = LoopNote(_loop_name(gu, loop),
                                         tc.constant() if tc is not None else None)
        notes.append(note)
        loop = loop.parent
    return tuple(notes)


def _loop_name(gu: GradientUtils, loop: Loop) -> str:
    """The loop statement's location (``!llvm.loop``), else its header's first line."""
    for latch in loop.latches:
        loop_id = latch.terminator.get_metadata("llvm.loop") if latch.terminator else None
        start = loop_start_location(gu.module, loop_id)
        if start is not None:
            return str(start)
    insts = loop.header.instructions
    head = _first_located(loop.header, insts[0] if insts else None)
    return str(source_location_of(head, gu.module)) if head is not None else "?"


def _why(gu: GradientUtils, v: ir.Value, kind: str) -> str:
    if kind == "forwarded":
        return "re-read from the value stored into scratch memory (not taped)"
    if kind == "iv":
        return "a loop counter: recomputed from the reverse loop's counter"
    if kind == "snapshot":
        return ("read from a copy of the range it reads, taken once before its outer "
                "loop (the same values in every iteration of that loop)")
    if kind == "recurrence":
        return ("a loop-carried value: recovered in the reverse loop by undoing its "
                "update (not taped per iteration)")
    if isinstance(v, ir.LoadInst):
        return "re-loaded: nothing overwrites that memory before the reverse pass"
    return "recomputed from values that are still available (cheaper than a tape slot)"


def explain_derivative(gu: GradientUtils) -> DerivativeReport:
    """The report of the derivative ``gu`` just synthesized."""
    mode = {DerivativeMode.REVERSE_COMBINED: "reverse, combined",
            DerivativeMode.REVERSE_PRIMAL: "reverse, augmented primal (split)",
            DerivativeMode.REVERSE_GRADIENT: "reverse (split)"}.get(gu.config.mode,
                                                                   str(gu.config.mode))
    report = DerivativeReport(gu.new.name, gu.ctx.originals.get(gu.orig, gu.orig).name, mode)
    tape = gu.tape
    if tape is not None:
        report.heap_tape = not tape.starts_on_stack
        report.on_caller_stack = tape.on_caller_stack
        loop_notes: dict[Loop, LoopNote] = {}
        for orig_block, frame in tape.frames.items():
            notes = _loop_notes(gu, gu.loops.loop_of(orig_block), loop_notes)
            for v in frame.values:
                where, text = _where(gu, v)
                report.cached.append(CachedValue(str(where), text, alloc_size(v.type), notes))
    if gu.loops.snapshots is not None:
        notes_of: dict[Loop, LoopNote] = {}
        for snap in gu.loops.snapshots.copies():
            # a range copied once per execution of the outer loop (onto the tape, or a
            # malloc inside a loop, listed but not counted in the tape's peak): its
            # elements are counted per iteration of the inner one
            inner = _loop_notes(gu, snap.inner.loop, notes_of)[:1]
            around = _loop_notes(gu, snap.outer.loop.parent, notes_of)
            where, text = _where(gu, snap.load)
            report.cached.append(CachedValue(
                str(where), "copy of the range read by " + text,
                alloc_size(snap.element) * snap.step, inner + around, heap=not snap.on_tape))
    found: dict[tuple[SourceLocation, str], str] = {}  # (where, text) -> why, first kind wins
    planner = gu.planner
    decided = [*((key, "recomputed") for key in planner.recomputed_keys()),
               *((key, "forwarded") for key in planner.forwarded_keys()),
               *planner.loop_kept_keys()]
    for (_, v), kind in decided:
        found.setdefault(_where(gu, v), _why(gu, v, kind))
    for alloc, why in gu.release_decisions.items():
        where, text = _where(gu, alloc)
        report.released.append(ReleasedBlock(str(where), text, why))
    for (where, text), why in sorted(found.items(), key=lambda item: (
            item[0][0].filename, item[0][0].line, item[0][0].column, item[0][1])):
        report.recomputed.append(RecomputedValue(str(where), text, why))
    return report


def record_report(gu: GradientUtils) -> None:
    """Append the report of ``gu``'s derivative when the context collects them."""
    reports = gu.ctx.analyses.get(EXPLAIN_KEY)
    if isinstance(reports, list):
        reports.append(explain_derivative(gu))


__all__ = ["EXPLAIN_KEY", "CachedValue", "DerivativeReport", "RecomputedValue", "ReleasedBlock",
           "explain_derivative", "record_report"]
