"""Which heap allocations of a function are freed where (Enzyme's guaranteed frees).

The reverse pass reads the memory of the function's own allocations (and their shadows)
after the forward pass, so a ``free`` of such memory may move into the reverse pass --
but only a free that releases *every* execution of the allocation exactly once: it lies
on every returning path from the allocation, in the same loop (:func:`guaranteed_free_of`).
Then the reverse pass frees the memory and its shadow when it reaches the allocation.
Allocations and frees include the program's own wrappers: a call of a function returning
fresh memory (:mod:`irgrad.analysis.allocating_functions`) and a call of a function that
only frees what its argument leads to (:mod:`irgrad.analysis.release_functions`).
Any other free (a rejected step's buffer freed on one branch, a buffer freed through a
pointer loaded from a table) stays in the forward pass; memory it releases is not read
again (:mod:`irgrad.analysis.memory_writes` counts it as a write), and the shadow of an
allocation that never leaves the function is freed when the reverse pass reaches the
allocation (:func:`allocation_escapes`).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.analysis.allocating_functions import returns_fresh_allocation
from irgrad.analysis.known_functions import (
    allocator,
    callee_name,
    is_free,
    is_fresh_allocation,
    is_ignored_intrinsic,
    is_memory_transfer,
    is_memset,
)
from irgrad.analysis.loops import LoopInfo
from irgrad.analysis.release_functions import released_pointer
from irgrad.analysis.underlying_objects import underlying_object, underlying_objects

_LOOPS: dict[ir.Function, tuple[int, LoopInfo]] = {}


def _loops(fn: ir.Function) -> LoopInfo:
    got = _LOOPS.get(fn)
    size = sum(len(bb.instructions) for bb in fn.blocks)
    if got is None or got[0] != size:
        got = (size, LoopInfo(fn))
        if len(_LOOPS) > 256:
            _LOOPS.clear()
        _LOOPS[fn] = got
    return got[1]


def freed_allocation(call: ir.Instruction) -> ir.CallInst | None:
    """The function's own fresh allocation that ``free(p)`` (or a call of a release
    function, :mod:`irgrad.analysis.release_functions`) releases, when ``p`` is plainly
    based on one (not through memory, phis or selects). The allocation is a known
    allocator's call or a call of an allocator wrapper (``xmalloc_aligned(n)``)."""
    freed = released_pointer(call) if isinstance(call, ir.CallBase) else None
    if freed is None:
        return None
    base = _own_call(freed, call)
    return base if base is not None and is_allocation_call(base) else None


def _own_call(pointer: ir.Value, call: ir.Instruction) -> ir.CallInst | None:
    """The call of ``call``'s own function that ``pointer`` is plainly based on."""
    base = underlying_object(pointer)
    if (isinstance(base, ir.CallInst) and base.parent is not None
            and call.parent is not None and base.parent.parent is call.parent.parent):
        return base
    return None


def is_allocation_call(call: ir.CallInst) -> bool:
    """A known allocator's call, or a call of a function returning fresh heap memory."""
    return is_fresh_allocation(callee_name(call)) or returns_fresh_allocation(
        call.called_function)


def guaranteed_free_of(call: ir.Instruction) -> ir.CallInst | None:
    """The allocation ``call`` (a free) releases on every execution that returns: the
    allocation's frees (``call`` and any other free of it: the optimizer duplicates a
    free into both arms of a branch it tail-duplicated) lie in its innermost loop, and
    every path from the allocation to a ``ret`` passes through one of them before the
    allocation runs again, so each execution of the allocation reaches exactly one of
    them. Paths that never return (``abort()`` when malloc fails, ending in
    ``unreachable``) do not count: they never reach the reverse pass."""
    alloc = freed_allocation(call)
    if alloc is None:
        return None
    ab = alloc.parent
    assert ab is not None and ab.parent is not None
    loops = _loops(ab.parent)
    through: set[ir.BasicBlock] = set()
    for free in _frees_of(alloc):
        fb = free.parent
        assert fb is not None
        if loops.loop_for(fb) is not loops.loop_for(ab):
            return None
        if fb is ab:
            insts = fb.instructions
            if insts.index(free) > insts.index(alloc):
                return alloc
            continue
        through.add(fb)
    return alloc if through and _every_return_path_through(ab, through) else None


def _frees_of(alloc: ir.CallInst) -> list[ir.CallBase]:
    """The calls that free ``alloc`` (their pointer plainly based on it: found among its
    users through GEPs and pointer casts, as :func:`freed_allocation` sees them)."""
    frees: list[ir.CallBase] = []
    work: list[ir.Value] = [alloc]
    seen: set[ir.Value] = {alloc}
    while work:
        for u in work.pop().users:
            if isinstance(u, ir.GetElementPtrInst) or (
                    isinstance(u, ir.CastInst) and u.opcode in ("bitcast", "addrspacecast")):
                if u not in seen:
                    seen.add(u)
                    work.append(u)
            elif isinstance(u, ir.CallBase) and u not in frees and freed_allocation(u) is alloc:
                frees.append(u)
    return frees


def _every_return_path_through(start: ir.BasicBlock, through: set[ir.BasicBlock]) -> bool:
    """Every path from the end of ``start`` to a ``ret`` enters one of ``through`` before
    it returns or comes back to ``start``."""
    seen: set[ir.BasicBlock] = set()
    work = list(start.successors())
    while work:
        bb = work.pop()
        if bb in through or bb in seen:
            continue
        if bb is start:
            return False
        seen.add(bb)
        term = bb.terminator
        if term is not None and term.opcode == "ret":
            return False
        work.extend(bb.successors())
    return True


def released_allocations(call: ir.Instruction) -> set[ir.CallInst]:
    """The function's own allocations whose block ``call`` (a free, a release function's
    call or a realloc) may release, through phis and selects too: a malloc duplicated into
    both arms of a branch by the optimizer and freed after the join is released there on
    either path."""
    if not isinstance(call, ir.CallBase):
        return set()
    ptr = released_pointer(call)
    alloc = allocator(callee_name(call))
    if ptr is None and alloc is not None and alloc.reallocates is not None and \
            alloc.reallocates < len(call.args):
        ptr = call.args[alloc.reallocates]
    if ptr is None:
        return set()
    fn = call.parent.parent if call.parent is not None else None
    return {b for b in underlying_objects(ptr)
            if isinstance(b, ir.CallInst) and b.parent is not None
            and b.parent.parent is fn and is_allocation_call(b)}


def allocation_escapes(alloc: ir.Value) -> bool:
    """Can the allocation's address outlive the call of its function (returned, stored
    into memory that is not a local of the function, passed to a callee that may keep
    it)? Frees, accesses, comparisons, copies and ``captures(none)`` parameters do not
    keep it."""
    return _kept(alloc, strict=False)


def is_captured(ptr: ir.Value) -> bool:
    """May the function make a copy of ``ptr`` that it can read back (stored anywhere,
    even into a local; converted to an integer; returned; passed to a callee that may keep
    it)? Otherwise every pointer the function uses that is based on ``ptr`` is derived
    from it by GEPs, casts, phis and selects (LLVM's capture tracking, conservatively)."""
    return _kept(ptr, strict=True)


def _kept(start: ir.Value, *, strict: bool) -> bool:
    work: list[ir.Value] = [start]
    seen: set[ir.Value] = {start}
    while work:
        p = work.pop()
        for use in p.uses:
            u = use.user
            if isinstance(u, ir.GetElementPtrInst | ir.PHINode | ir.SelectInst) or (
                    isinstance(u, ir.CastInst) and u.opcode in ("bitcast", "addrspacecast")):
                if u not in seen:
                    seen.add(u)
                    work.append(u)
            elif isinstance(u, ir.LoadInst | ir.CmpInst):
                continue
            elif isinstance(u, ir.StoreInst):
                if u.value is p and (strict or not isinstance(underlying_object(u.pointer),
                                                              ir.AllocaInst)):
                    return True
            elif isinstance(u, ir.CallBase):
                if not _call_keeps_nothing(u, use.index):
                    return True
            elif strict or not (isinstance(u, ir.CastInst) and u.opcode == "ptrtoint"):
                return True  # returned, or anything else
    return False


def _call_keeps_nothing(call: ir.CallBase, index: int) -> bool:
    name = callee_name(call)
    if (is_free(name) or is_ignored_intrinsic(name) or is_memset(name)
            or is_memory_transfer(name)):
        return True
    realloc = allocator(name)
    if realloc is not None and realloc.reallocates == index:
        return True  # the block moves to realloc's result (an allocation of its own)
    fn = call.called_function
    if fn is None or index >= len(fn.args):
        return False
    attrs = call.arg_attrs[index] if call.arg_attrs and index < len(call.arg_attrs) else []
    attrs = [*attrs, *fn.args[index].attrs]
    return any(a in ("nocapture", "captures(none)") for a in attrs)


__all__ = [
    "allocation_escapes",
    "freed_allocation",
    "guaranteed_free_of",
    "is_allocation_call",
    "is_captured",
    "released_allocations",
]
