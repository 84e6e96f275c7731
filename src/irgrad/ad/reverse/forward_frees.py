"""Primal blocks released where the primal releases them, when the reverse pass does not
read them.

A block the function allocates and frees itself (``minor = malloc(...); ...;
free(minor)``) has its free moved to the reverse pass (:func:`~irgrad.ad.reverse.memory.
reverse_allocation`), because the reverse pass may read it: a load re-read rather than
taped, a callee whose reverse re-reads its argument, a pointer recovered in a reverse
loop. When nothing in the reverse pass reads the primal block -- every value it needs
from there was taped -- keeping it alive only costs memory and allocator time: in a
recursion every level's block stays live until its reverse, so the allocator serves a
``free`` followed by a ``malloc`` of the same size (the primal's pattern, answered from
its thread cache) with fresh chunks, and releases them all at the end. Enzyme frees such
memory in the augmented forward pass as well.

The forward pass keeps the primal's frees of those allocations (``gu.tentative_frees``)
while the reverse pass is built; :func:`settle_forward_frees` then keeps, per
allocation, either them or the reverse pass's free of the primal block
(``gu.reverse_primal_frees``). The reverse pass reads the block when

* a pointer derived from it (through GEPs, casts, phis, selects) is used by an
  instruction of the reverse pass, other than that free, or is on the tape;
* it is captured: stored into memory (even a local), converted to an integer, returned,
  passed to ``realloc`` or to a callee that may keep it
  (:func:`~irgrad.analysis.frees.is_captured`);
* a callee receives it and may re-read it in its own reverse: an argument the callee's
  derivative was told nothing overwrites (:func:`~irgrad.ad.reverse.call_sites.
  kept_arguments`), or a callee with a custom derivative (whose tape may hold it).

A block allocated inside a loop keeps its free in the reverse pass. Freed in the forward
pass, it leaves a hole among the shadow blocks allocated around it, which live until the
reverse pass; glibc returns such memory to the system when it ends up at the top of the
heap and maps it again in the next iteration (LULESH mini's per-cycle scratch arrays:
twice the ``brk`` calls and a gradient 11-20% slower). Outside loops, in a recursion
(a minor or the halves of a split per level), callees free before their callers, and
the blocks are reused as in the primal.

The shadow block is not affected: its adjoints are read in the reverse pass, which
releases it as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode, DiffeType
from irgrad.ad.reverse.call_sites import kept_arguments
from irgrad.analysis.frees import is_captured
from irgrad.analysis.known_functions import (
    allocator,
    callee_name,
    is_free,
    is_ignored_intrinsic,
    is_memory_transfer,
    is_memset,
)
from irgrad.analysis.release_functions import released_pointer

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

IN_LOOP = ("allocated in a loop, whose every iteration would hand the block back to the "
           "allocator among shadows that live on, and take it again")
_DERIVING = ("getelementptr", "bitcast", "addrspacecast", "phi", "select", "freeze")


def hold_forward_free(gu: GradientUtils, call: ir.CallInst, base: ir.Value | None) -> None:
    """The forward clone of ``call``, a free that moves to the reverse pass: kept for
    :func:`settle_forward_frees` when it frees ``base``, an allocation of this function
    the reverse pass frees (``gu.freed_allocations``); erased otherwise."""
    fwd = gu.vmap[call]
    assert isinstance(fwd, ir.Instruction)
    if base is not None and base in gu.freed_allocations and base not in gu.deferred_releases:
        gu.tentative_frees.setdefault(base, []).append(fwd)
    else:
        fwd.erase_from_parent()


def settle_forward_frees(gu: GradientUtils) -> None:
    """Once the reverse pass is complete: per allocation with tentative forward frees,
    keep them and drop the reverse pass's free of the primal block when the reverse pass
    does not read the block; otherwise drop them. The decisions go to
    ``gu.release_decisions`` (allocation -> why the block lives until its reverse, or
    None: freed where the primal frees it) for the explain report."""
    for alloc, frees in gu.tentative_frees.items():
        rev_free = gu.reverse_primal_frees.get(alloc)
        if rev_free is not None:  # else: no reverse of the allocation (never returns)
            why = _read_in_reverse(gu, alloc, rev_free)
            gu.release_decisions[alloc] = why
            if why is None:
                _drop_reverse_free(gu, rev_free)
                continue
        for f in frees:
            if f.parent is not None:
                f.erase_from_parent()
    gu.tentative_frees.clear()


def _read_in_reverse(gu: GradientUtils, alloc: ir.Value, rev_free: ir.CallInst) -> str | None:
    """Why the reverse pass may read the block (None: it does not)."""
    a = allocator(callee_name(alloc) if isinstance(alloc, ir.CallBase) else None)
    if a is None or a.reallocates is not None or not isinstance(alloc, ir.CallInst):
        return "not a block of a known allocator"
    if alloc.parent is not None and gu.loops.loop_of(alloc.parent) is not None:
        return IN_LOOP
    if is_captured(alloc):  # (every escape _derived reports is a capture)
        return "its address is kept where the reverse pass could find it"
    if _escapes_to_reverse_callee(gu, alloc):
        return "a callee's reverse may read it again (nothing overwrites it after the call)"
    if _reaches_reverse(gu, alloc, rev_free):
        return "the reverse pass reads it (or a pointer into it)"
    return None


def _derived(start: ir.Value) -> tuple[list[ir.Value], bool]:
    """``start`` and the pointers derived from it; True when one of them is used any other
    way than loaded from, stored to, compared, freed or passed to a call."""
    out: list[ir.Value] = [start]
    seen: set[ir.Value] = {start}
    k = 0
    while k < len(out):
        p = out[k]
        k += 1
        for use in p.uses:
            u = use.user
            if isinstance(u, ir.Instruction) and u.opcode in _DERIVING:
                if u not in seen:
                    seen.add(u)
                    out.append(u)
            elif isinstance(u, ir.StoreInst):
                if u.value is p:
                    return out, True
            elif isinstance(u, ir.CallBase):
                if use.index >= len(u.args):
                    return out, True  # called through
            elif not isinstance(u, ir.LoadInst | ir.CmpInst):
                return out, True  # returned, converted to an integer, ...
    return out, False


def _escapes_to_reverse_callee(gu: GradientUtils, alloc: ir.CallInst) -> bool:
    """In the primal: the block is handed to a callee that may re-read it in its
    reverse."""
    for p in _derived(alloc)[0]:
        for use in p.uses:
            call = use.user
            if not isinstance(call, ir.CallBase) or use.index >= len(call.args):
                continue
            name = callee_name(call)
            if is_free(name) or released_pointer(call) is not None:
                continue
            if name is not None and (is_ignored_intrinsic(name) or is_memset(name)
                                     or is_memory_transfer(name)):
                continue
            if name is not None and name.startswith("llvm."):
                continue  # runs in the forward pass; its reverse is looked at below
            fn = call.called_function
            if fn is None or gu.ctx.custom.has(fn) or allocator(name) is not None:
                return True
            if use.index in kept_arguments(gu, call):
                return True
    return False


def _reaches_reverse(gu: GradientUtils, alloc: ir.CallInst, rev_free: ir.CallInst) -> bool:
    """In the derivative: a pointer derived from the forward pass's block is used in the
    reverse pass, directly or from the tape, other than by ``rev_free`` and as the primal
    argument of a callee's reverse (which reads it only where :func:`kept_arguments`
    said nothing overwrites it)."""
    fwd = gu.vmap.get(alloc)
    if fwd is None:
        return True
    derived, escapes = _derived(fwd)
    if escapes:
        return True
    tape = gu.tape
    for p in derived:
        for use in p.uses:
            u = use.user
            if isinstance(u, ir.Instruction) and u.parent in gu.rev_blocks and \
                    not _harmless_reverse_use(gu, u, use.index, rev_free):
                return True
        if tape is not None:
            for load in tape.slot_loads(p):
                if any(not _harmless_reverse_use(gu, use.user, use.index, rev_free)
                       for use in load.uses):
                    return True
    return False


def _harmless_reverse_use(gu: GradientUtils, user: ir.Value, index: int,
                          rev_free: ir.CallInst) -> bool:
    """``user`` (in the reverse pass) does not read the block through its operand
    ``index``: it is ``rev_free``, or it passes a primal argument to the reverse of one of
    irgrad's own split derivatives (not a custom or library rule)."""
    if user is rev_free:
        return True
    if not isinstance(user, ir.CallInst):
        return False
    fn = user.called_function
    config = gu.ctx.configs.get(fn) if fn is not None else None
    if config is None or config.mode is not DerivativeMode.REVERSE_GRADIENT or \
            gu.ctx.custom.has(config.function) or gu.ctx.has_library_rule(config.function):
        return False
    kinds: list[bool] = []  # True: a primal argument
    for dt in config.arg_types:
        kinds.append(True)
        if dt is DiffeType.DUP:
            kinds.append(False)
    return index < len(kinds) and kinds[index]


def _drop_reverse_free(gu: GradientUtils, rev_free: ir.CallInst) -> None:
    """Erase the reverse pass's free of the primal block, and the tape slot that only it
    read."""
    ptr = rev_free.args[0] if rev_free.args else None
    rev_free.erase_from_parent()
    tape = gu.tape
    if tape is not None and isinstance(ptr, ir.LoadInst) and not ptr.users:
        tape.drop_slot(ptr)


__all__ = ["hold_forward_free", "settle_forward_frees"]
