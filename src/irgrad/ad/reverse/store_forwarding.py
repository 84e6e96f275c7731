"""Store-to-load forwarding for the reverse pass: recompute a load of scratch memory
from the one store that filled it, instead of caching the loaded value.

A C programmer's scratch buffer (``xc[j] = x[j] - mu[j]`` for every ``j``, then read
back as ``xc[col]`` in a later loop) is overwritten on every iteration of the loops
around it, so its loads cannot be reloaded in the reverse pass and each one put a double
per iteration on the tape. When the buffer is written by a single store, in a counted
loop that covers every index the load reads, from a value that is itself cheap to
recompute (arithmetic on the loop index, loop invariants and loads of memory that is
never overwritten), the load equals that value at the load's index, and the reverse pass
recomputes it there. Exactly:

* the load reads ``getelementptr T, ptr %buf, %i`` and the store writes
  ``getelementptr T, ptr %buf, %j`` of the same type ``T``, where ``%buf`` is a local
  allocation (``alloca`` or ``malloc``-like) whose address is only used by such GEPs,
  the store, loads and ``free``; the store is the only write to ``%buf``;
* ``%j`` is the canonical induction variable (0, 1, ...) of the store's innermost loop
  ``LS`` and ``%i`` that of a loop around the load whose trip count has the same bound
  as ``LS`` (the same value, or the same cast of the same value): every index read was
  written;
* the load executes after ``LS`` completed in the same iteration of the loops around
  ``LS`` (``LS``'s only exit dominates the load), and outside ``LS``;
* the stored value is a tree of at most :data:`MAX_NODES` cheap instructions whose
  leaves are ``%j``, constants, values defined outside ``LS`` and loads of memory that
  nothing overwrites after them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.reverse.recompute import RECOMPUTE_OPCODES, is_cheap_intrinsic
from irgrad.analysis.known_functions import callee_name, is_free, is_fresh_allocation
from irgrad.analysis.layout import store_size

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils
    from irgrad.analysis.loops import Loop

MAX_NODES = 16
# fresh buffers only: realloc's result starts with the old buffer's contents


@dataclass(frozen=True)
class Forwarded:
    """In the original function: the load's value is ``value`` with ``index := at``."""

    value: ir.Instruction
    index: ir.PHINode
    at: ir.Value
    nodes: tuple[ir.Instruction, ...]  # the value's tree in post-order (value last)
    leaves: tuple[ir.Value, ...]  # values defined outside the store's loop


def _single_index_gep(p: ir.Value) -> tuple[ir.Value, ir.Value, ir.Type] | None:
    if isinstance(p, ir.GetElementPtrInst) and len(p.indices) == 1:
        return p.pointer, p.indices[0], p.source_type
    return None


def _buffer_store(buf: ir.Value) -> ir.StoreInst | None:
    """The only store into ``buf`` (an alloca or a fresh allocation), when every use of
    ``buf`` is a free or a GEP whose uses are loads and that store."""
    fresh = isinstance(buf, ir.CallInst) and is_fresh_allocation(callee_name(buf))
    if not (isinstance(buf, ir.AllocaInst) or fresh):
        return None
    stores: list[ir.StoreInst] = []
    for use in buf.uses:
        u = use.user
        if isinstance(u, ir.CallBase) and is_free(callee_name(u)):
            continue
        if not isinstance(u, ir.GetElementPtrInst) or u.pointer is not buf:
            return None
        for use2 in u.uses:
            w = use2.user
            if isinstance(w, ir.LoadInst) and not w.volatile:
                continue
            if isinstance(w, ir.StoreInst) and w.pointer is u and w.value is not u:
                stores.append(w)
                continue
            return None
    return stores[0] if len(stores) == 1 else None


def _same_bound(a: ir.Value, b: ir.Value) -> bool:
    if a is b:
        return True
    if isinstance(a, ir.ConstantInt) and isinstance(b, ir.ConstantInt):
        return a.type == b.type and a.unsigned_value == b.unsigned_value
    return (
        isinstance(a, ir.CastInst) and isinstance(b, ir.CastInst) and a.opcode == b.opcode
        and a.type == b.type and a.value is b.value
    )


def _same_trips(ls: Loop, li: Loop) -> bool:
    ta, tb = ls.trip_count(), li.trip_count()
    if ta is None or tb is None:
        return False
    if ta.step != 1 or tb.step != 1 or ta.predicate != tb.predicate:
        return False
    if ta.test_after_increment != tb.test_after_increment:
        return False
    if not (isinstance(ta.start, ir.ConstantInt) and isinstance(tb.start, ir.ConstantInt)):
        return False
    return ta.start.unsigned_value == tb.start.unsigned_value == 0 and _same_bound(
        ta.bound, tb.bound)


def find_forwarded(gu: GradientUtils, load: ir.LoadInst) -> Forwarded | None:
    """The recomputable stored value a load (of the original function) always reads."""

    info = gu.loops.info
    got = _single_index_gep(load.pointer)
    if info is None or got is None or load.parent is None:
        return None
    buf, at, elem = got
    store = _buffer_store(buf)
    if store is None or store.parent is None:
        return None
    sgot = _single_index_gep(store.pointer)
    if sgot is None or sgot[0] is not buf or sgot[2] != elem or store.value.type != load.type:
        return None
    index = sgot[1]
    ls = info.loop_for(store.parent)
    if ls is None or ls.contains(load.parent) or ls.canonical_iv() is not index:
        return None
    exits = ls.returning_exit_blocks
    if len(exits) != 1 or exits[0] not in gu.dom.get(load.parent, ()):
        return None
    li = info.loop_for(load.parent)
    while li is not None and li.canonical_iv() is not at:
        li = li.parent
    if li is None or not isinstance(at, ir.PHINode) or at.type != index.type:
        return None
    if not _same_trips(ls, li):
        return None
    nodes: list[ir.Instruction] = []
    leaves: list[ir.Value] = []

    def visit(v: ir.Value, depth: int) -> bool:
        if v is index or not isinstance(v, ir.Instruction) or not ls.contains(v):
            if v is not index and isinstance(v, ir.Instruction | ir.Argument):
                leaves.append(v)
            return True
        if v in nodes:
            return True
        if depth > 8 or len(nodes) >= MAX_NODES:
            return False
        if isinstance(v, ir.LoadInst):
            if v.volatile or v.is_atomic or gu.memory_writes.may_be_overwritten(
                    v.pointer, after=v, size=store_size(v.type), tbaa=v.get_metadata("tbaa")):
                return False
        elif not (v.opcode in RECOMPUTE_OPCODES or is_cheap_intrinsic(v)):
            return False
        for op in v.operands:
            if not isinstance(op, ir.BasicBlock) and not visit(op, depth + 1):
                return False
        nodes.append(v)
        return True

    value = store.value  # (a value defined outside LS is forwarded as itself)
    if not isinstance(value, ir.Instruction) or not visit(value, 0):
        return None
    return Forwarded(value, index, at, tuple(nodes), tuple(dict.fromkeys(leaves)))
