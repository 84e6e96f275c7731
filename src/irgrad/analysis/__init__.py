"""Analyses the AD engine relies on: loops (induction variables, trip counts), type
analysis, activity analysis, memory writes, and the one table of known functions. CFG
orders and dominator trees live with the IR (:mod:`irgrad.ir.cfg`,
:mod:`irgrad.ir.dominators`), as in LLVM. See docs/internals/architecture.md."""

from irgrad.analysis.loops import Loop, LoopInfo
from irgrad.analysis.trip_count import (
    InductionVariable,
    TripCount,
    canonical_iv,
    emit_trip_count,
    induction_variables,
)

__all__ = [
    "InductionVariable",
    "Loop",
    "LoopInfo",
    "TripCount",
    "canonical_iv",
    "emit_trip_count",
    "induction_variables",
]
