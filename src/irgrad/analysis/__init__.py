"""Analyses the AD engine relies on: CFG orders, dominators, loops (induction variables,
trip counts), type analysis and activity analysis. See docs/internals/ad-design.md."""

from irgrad.analysis.cfg import (
    exit_blocks,
    postorder,
    predecessors,
    reachable,
    reverse_postorder,
    successors,
)
from irgrad.analysis.dominators import DominatorTree, PostDominatorTree
from irgrad.analysis.loops import Loop, LoopInfo
from irgrad.analysis.trip_count import (
    InductionVariable,
    TripCount,
    canonical_iv,
    emit_trip_count,
    induction_variables,
)

__all__ = [
    "DominatorTree",
    "InductionVariable",
    "Loop",
    "LoopInfo",
    "PostDominatorTree",
    "TripCount",
    "canonical_iv",
    "emit_trip_count",
    "exit_blocks",
    "induction_variables",
    "postorder",
    "predecessors",
    "reachable",
    "reverse_postorder",
    "successors",
]
