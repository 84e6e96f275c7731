"""Final stores sunk past the reverse pass (so the reverse pass can reload inputs).

A reverse pass recomputes a load instead of caching it only when nothing the function
writes may alias the loaded memory afterwards. Objectives usually end with one store of
the result (``*err = ...``) into an argument that the compiler cannot prove distinct from
the inputs, which would force every load of the inputs onto the tape.

In combined reverse mode nothing observes memory between the end of the forward pass and
the end of the derivative function except the reverse pass itself, so a store that is the
last memory effect of the forward pass may as well happen at the very end: it is moved
into ``rev.return`` (before the deferred frees), and its write no longer counts against
reloading. A store qualifies when

* it is simple (not volatile, not atomic) and stores no pointer (no shadow store follows);
* its block runs at most once (no cycle) and dominates every return, so its operands
  (which dominate it) are still usable in ``rev.return``; it does not write a local;
* every instruction that can run after it touches no memory, except other qualifying
  stores (their order is kept), frees of the function's own allocations (deferred to the
  reverse pass anyway) and intrinsics/libm calls without memory effects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode
from irgrad.analysis.known_functions import (
    callee_name,
    freed_pointer,
    is_allocation,
    is_free,
    is_ignored_intrinsic,
    is_math_function,
)
from irgrad.analysis.underlying_objects import underlying_object

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

_MEMORY_INTRINSICS = ("mem", "masked", "gather", "scatter", "load", "store", "va_", "vp.")


def _harmless(inst: ir.Instruction) -> bool:
    """Touches no memory the reverse pass could observe."""
    if isinstance(inst, ir.LoadInst | ir.StoreInst | ir.AtomicRMWInst
                  | ir.AtomicCmpXchgInst):
        return False
    if inst.opcode in ("fence", "va_arg", "alloca"):
        return inst.opcode == "alloca"
    if not isinstance(inst, ir.CallBase):
        return True
    name = callee_name(inst)
    if name is None or not isinstance(inst, ir.CallInst):
        return False
    if is_ignored_intrinsic(name):
        return True
    if name.startswith("llvm."):
        return not any(k in name[5:] for k in _MEMORY_INTRINSICS)
    if is_free(name) and freed_pointer(inst) is not None:
        base = underlying_object(freed_pointer(inst))  # type: ignore[arg-type]
        return isinstance(base, ir.CallInst) and is_allocation(callee_name(base))
    fn = inst.called_function
    return fn is not None and fn.is_declaration and is_math_function(name)


def _candidate(gu: GradientUtils, inst: ir.Instruction) -> bool:
    if not isinstance(inst, ir.StoreInst) or inst.volatile or inst.is_atomic:
        return False
    bb = inst.parent
    if bb is None or bb in gu.in_cycle or bb not in gu.dominates_exit:
        return False
    # a local's lifetime may end before rev.return; the operands dominate the store,
    # which dominates every return and so rev.return: they are still usable there
    return not (inst.value.type.is_pointer
                or isinstance(underlying_object(inst.pointer), ir.AllocaInst))


def sinkable_stores(gu: GradientUtils) -> list[ir.StoreInst]:
    """The final stores of ``gu.orig`` that may move to ``rev.return``, in program order."""
    if not gu.returns or gu.config.mode is not DerivativeMode.REVERSE_COMBINED:
        return []  # split mode: the caller sees memory between the two halves
    out: list[ir.StoreInst] = []
    for bb in gu.orig.blocks:
        if bb not in gu.dominates_exit or bb in gu.in_cycle:
            continue
        insts = bb.instructions
        for k, inst in enumerate(insts):
            if not _candidate(gu, inst):
                continue
            later = insts[k + 1:] + [
                i for b in gu.memory_writes.reachable_after(bb) for i in b.instructions]
            if all(_harmless(i) or _candidate(gu, i) for i in later):
                out.append(inst)  # type: ignore[arg-type]
    return out


def sink_stores(gu: GradientUtils, final: ir.BasicBlock) -> None:
    """Move the forward clones of ``gu.sunk_stores`` to the start of ``final``."""
    anchor = final.instructions[0] if final.instructions else None
    for store in gu.sunk_stores:
        clone = gu.vmap[store]
        assert isinstance(clone, ir.Instruction)
        clone.remove_from_parent()
        if anchor is None:
            final.append(clone)
        else:
            clone.insert_before(anchor)
