"""The shadow of a block freed by a function that did not allocate it (a container's
storage allocated in a callee and released by its caller's destructor, or the other way
round): released when the outermost reverse pass ends
(:mod:`irgrad.ad.core.deferred_frees`), since the reverse of code that ran before the
free may still read and write it.

Only blocks that hold floating-point values or pointers (by type analysis) have shadow
blocks of their own to release: the "shadow" of a character buffer may be anything.
Blocks of the function's own allocations are not deferred when their shadows are freed
where the allocation is reversed (:func:`irgrad.ad.reverse.memory.reverse_allocation`);
where a pointer may be either (a phi of an own block and one from elsewhere), both the
free and the allocation's reverse list the shadow, and the list releases it once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode
from irgrad.ad.core.deferred_frees import DEALLOCATORS
from irgrad.ad.reverse.memory import releases_shadow_at_reverse
from irgrad.ad.reverse.tape import on_caller_stack
from irgrad.analysis.known_functions import callee_name
from irgrad.analysis.underlying_objects import underlying_objects
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


def defer_shadow_free(gu: GradientUtils, call: ir.CallInst) -> None:
    """Before the forward pass's ``free(p)`` (or ``operator delete``): list ``p``'s shadow
    for release at the end, when ``p`` may be a block this function did not allocate."""
    name = callee_name(call) or ""
    if name not in DEALLOCATORS or not call.args or not gu.is_shadowed(call.args[0]):
        return
    if not (gu.config.mode is DerivativeMode.REVERSE_COMBINED or on_caller_stack(gu.config)):
        return  # a tape the user holds: no list outlives its reverse pass
    if not any(ct.is_float or ct.is_pointer
               for ct in gu.types.memory_types(call.args[0]).values()):
        return  # no active data (a string's characters): its "shadow" may be no block
    objects = underlying_objects(call.args[0])
    handled = {o for o in objects if releases_shadow_at_reverse(gu, o)}
    if handled == objects:
        return  # its own allocations: their shadows go with the allocations' reverse
    # of mixed origin: those own allocations list their shadows too (released once), and
    # so do the ones this function stores into memory, from which ``p`` may be loaded
    gu.listed_shadow_allocations |= handled | _stored_released_allocations(gu)
    fwd = gu.vmap[call]
    assert isinstance(fwd, ir.Instruction)
    b = IRBuilder(position=fwd)
    shadow = gu.invert_pointer(call.args[0], call)
    gu.ensure_tape().defer_free(b, shadow, name, now=False, primal=gu.primal(call.args[0]))


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


__all__ = ["defer_shadow_free"]
