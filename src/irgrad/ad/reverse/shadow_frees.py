"""The shadow of a block freed by a function that did not allocate it (a container's
storage allocated in a callee and released by its caller's destructor, or the other way
round): released when the outermost reverse pass ends
(:mod:`irgrad.ad.core.deferred_frees`), since the reverse of code that ran before the
free may still read and write it.

A block that holds floating-point values or pointers (by type analysis) has a shadow block
of its own to release. The "shadow" of a character or integer buffer may be anything (a
string changed by library code keeps a stale one, maybe its stack buffer): it is released
only when a shadow allocation of ours gave that block
(:func:`irgrad.ad.reverse.memory.register_shadow_allocation`;
a ``std::vector<int>`` grown by ``push_back`` and released by a destructor).
Blocks of the function's own allocations are not deferred when their shadows are freed
where the allocation is reversed (:func:`irgrad.ad.reverse.memory.reverse_allocation`);
where a pointer may be either (a phi of an own block and one from elsewhere), both the
free and the allocation's reverse list the shadow, and the list releases it once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.deferred_frees import (
    FREED,
    FREED_IF_ALLOCATED,
    release_function,
    shadow_release_for,
)
from irgrad.ad.reverse.tape import keeps_deferred_list
from irgrad.analysis.frees import allocation_escapes, released_allocations
from irgrad.analysis.known_functions import allocator, callee_name, is_free
from irgrad.analysis.release_functions import is_release_call, release_argument
from irgrad.analysis.underlying_objects import underlying_objects
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


def defer_shadow_free(gu: GradientUtils, call: ir.CallInst) -> None:
    """Before the forward pass's ``free(p)`` (or ``operator delete``): list ``p``'s shadow
    for release at the end, when ``p`` may be a block this function did not allocate. A
    release function (a destructor not inlined) lists the blocks it would free on the
    shadow object."""
    name = callee_name(call) or ""
    if is_release_call(call):
        _defer_shadow_release(gu, call)
        return
    release = shadow_release_for(gu.module, call) if is_free(name) else None
    if release is None or not call.args:
        return
    fwd = gu.vmap[call]
    assert isinstance(fwd, ir.Instruction)
    _list_freed_shadow(gu, call, call.args[0], release, IRBuilder(position=fwd))


def defer_reallocated_shadow_free(gu: GradientUtils, call: ir.CallInst, b: IRBuilder) -> None:
    """At ``b``, before the forward pass's ``q = realloc(p, n)``: the realloc frees ``p``,
    whose shadow stays (the new shadow is a block of its own, and the reverse of the code
    before the realloc reads and writes the old one): list it for release at the end, like
    a free's, unless ``p`` is this function's own allocation whose reverse releases it. A
    block allocated by a caller and grown by a callee (a push function not inlined) had
    its first shadow block leak. (C's realloc only: a Rust block's shadow is released by
    ``__rust_dealloc`` with its size, which the list cannot pass: it is kept.)"""
    alloc = allocator(callee_name(call))
    assert alloc is not None and alloc.reallocates is not None
    if alloc.free_function is not None:
        return
    _list_freed_shadow(gu, call, call.args[alloc.reallocates],
                       release_function(gu.module, "free"), b)


def _list_freed_shadow(gu: GradientUtils, call: ir.CallInst, ptr: ir.Value,
                       release: ir.Function, b: IRBuilder) -> None:
    """List the shadow of ``ptr``, which ``call`` frees, for release with ``release`` when
    the outermost reverse pass ends (at ``b``, in the forward pass)."""
    if not gu.is_shadowed(ptr) or not keeps_deferred_list(gu.config):
        return  # (a tape the user holds: no list outlives its reverse pass)
    active = any(ct.is_float or ct.is_pointer for ct in gu.types.memory_types(ptr).values())
    objects = underlying_objects(ptr)
    handled = {o for o in objects if releases_shadow_at_reverse(gu, o)}
    if all(o in handled or _reallocated_here(gu, o) for o in objects):
        return  # its own allocations: their shadows go with the allocations' reverse
    # of mixed origin: those own allocations list their shadows too (released once), and
    # so do the ones this function stores into memory, from which ``p`` may be loaded
    gu.listed_shadow_allocations |= handled | _stored_released_allocations(gu)
    shadow = gu.invert_pointer(ptr, call)
    # no active data (a string's characters): its "shadow" may be no block of ours
    gu.ensure_tape().defer_free(b, shadow, release, now=False, primal=gu.primal(ptr),
                                kind=FREED if active else FREED_IF_ALLOCATED)


def _reallocated_here(gu: GradientUtils, obj: ir.Value) -> bool:
    """``obj`` is a realloc of this function with a shadow, whose reverse lists the new
    shadow block for release (:func:`irgrad.ad.reverse.memtransfer.reverse_realloc`), or
    the null a block is grown from."""
    if isinstance(obj, ir.ConstantPointerNull):
        return True
    alloc = allocator(callee_name(obj)) if isinstance(obj, ir.CallInst) else None
    return alloc is not None and alloc.reallocates is not None and gu.is_shadowed(obj)


def releases_shadow_at_reverse(gu: GradientUtils, call: ir.Instruction) -> bool:
    """The reverse of the allocation ``call`` releases its shadow: its free moved to the
    reverse pass, or the primal is freed in the forward pass and the shadow, which no one
    outside this function can see, is not needed after this point. (A stack
    allocator's shadow frame goes with the shadow state's release instead; a primal the
    function never frees -- numba's arena, a deliberate leak -- keeps its shadow too, as
    Enzyme frees a shadow only where the primal is freed.)"""
    if not isinstance(call, ir.CallInst) or call in gu.deferred_releases:
        return False
    if call in gu.freed_allocations:
        return True
    alloc = allocator(callee_name(call))
    return (gu.is_shadowed(call) and (alloc is None or alloc.fresh)
            and not (alloc is not None and alloc.released_with_state)
            and not allocation_escapes(call) and _freed_in_function(call))


def _freed_in_function(alloc: ir.CallInst) -> bool:
    """Some free of the allocation's own function releases ``alloc``."""
    fn = alloc.parent.parent if alloc.parent is not None else None
    if fn is None:
        return False
    return any(alloc in released_allocations(i) for i in fn.instructions())



def _defer_shadow_release(gu: GradientUtils, call: ir.CallInst) -> None:
    k = release_argument(call.called_function)
    assert k is not None
    if not gu.is_shadowed(call.args[k]) or not keeps_deferred_list(gu.config):
        return
    fwd = gu.vmap[call]
    assert isinstance(fwd, ir.Instruction) and call.called_function is not None
    args = [gu.primal(a) for a in call.args]
    args[k] = gu.invert_pointer(call.args[k], call)
    gu.ensure_tape().defer_release(IRBuilder(position=fwd), call.called_function, args)


def _stored_released_allocations(gu: GradientUtils) -> set[ir.Value]:
    """The function's own allocations whose shadows their reverse releases and whose
    address it stores into memory (a local struct of buffers: ``tr->state[k] =
    malloc(...)``, freed later through a load)."""
    got = gu.stored_released_allocations
    if got is None:
        got = gu.stored_released_allocations = {
            inst for inst in gu.orig.instructions()
            if isinstance(inst, ir.CallInst) and releases_shadow_at_reverse(gu, inst)
            and _stored(inst)}
    return got


def _stored(alloc: ir.Value) -> bool:
    """The address (or one derived from it) is stored into memory."""
    work, seen = [alloc], {alloc}
    while work:
        v = work.pop()
        for use in v.uses:
            u = use.user
            if isinstance(u, ir.StoreInst) and u.value is v:
                return True
            derived = isinstance(u, ir.GetElementPtrInst | ir.PHINode | ir.SelectInst) or (
                isinstance(u, ir.CastInst)
                and u.opcode in ("bitcast", "addrspacecast", "ptrtoint"))
            if derived and u not in seen:
                seen.add(u)
                work.append(u)
    return False


__all__ = ["defer_reallocated_shadow_free", "defer_shadow_free", "releases_shadow_at_reverse"]
