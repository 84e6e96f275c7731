"""The shadow of a block freed by a function that did not allocate it (a container's
storage allocated in a callee and released by its caller's destructor, or the other way
round): released when the outermost reverse pass ends
(:mod:`irgrad.ad.core.deferred_frees`), since the reverse of code that ran before the
free may still read and write it.

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
    objects = underlying_objects(call.args[0])
    handled = {o for o in objects if releases_shadow_at_reverse(gu, o)}
    if handled == objects:
        return  # its own allocations: their shadows go with the allocations' reverse
    # of mixed origin: those own allocations list their shadows too (released once)
    gu.listed_shadow_allocations |= handled
    fwd = gu.vmap[call]
    assert isinstance(fwd, ir.Instruction)
    b = IRBuilder(position=fwd)
    shadow = gu.invert_pointer(call.args[0], call)
    gu.ensure_tape().defer_free(b, shadow, name, now=False, primal=gu.primal(call.args[0]))


__all__ = ["defer_shadow_free"]
