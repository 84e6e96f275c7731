"""Which calls to defined functions may keep the cheap path in reverse mode.

A call to a defined function ``g`` is differentiated either

* the *cheap* way: the forward pass keeps the plain call and the reverse pass calls g's
  combined gradient, which runs g's forward pass a second time. That is only exact when
  re-running g changes nothing (g writes no memory outside its own stack frame and has no
  other side effect) and sees the same inputs (the memory g reads is not overwritten
  between the call and the reverse pass); or
* Enzyme's way (:mod:`irgrad.ad.reverse.augmented`): the forward pass calls g's augmented primal,
  which returns a tape, and the reverse pass calls g's reverse with that tape.

:func:`cheap_call_is_exact` decides, conservatively.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.analysis.known_functions import (
    allocator,
    callee_name,
    enzyme_hint,
    is_free,
    is_fresh_allocation,
    is_ignored_intrinsic,
    is_math_function,
)
from irgrad.analysis.local_memory import local_writes
from irgrad.analysis.underlying_objects import underlying_object

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

_MEMORY_INTRINSICS = ("llvm.memcpy", "llvm.memmove", "llvm.memset")


class Effects:
    """What a function may do to memory that is not its own stack frame."""

    def __init__(self) -> None:
        self.writes = False  # stores, memory intrinsics, unknown or external calls
        self.reads = False  # loads of memory that is not a local alloca


def _is_local(fn: ir.Function, pointer: ir.Value) -> bool:
    """Memory of ``fn``'s own: a stack allocation, or a heap allocation it makes that
    does not escape (scratch memory, the frames of a tape)."""
    base = underlying_object(pointer)
    if isinstance(base, ir.AllocaInst):
        return base.function is fn
    return (isinstance(base, ir.CallInst) and base.function is fn
            and is_fresh_allocation(callee_name(base)) and local_writes(base) is not None)


def function_effects(fn: ir.Function, seen: set[ir.Function] | None = None,
                     derivatives: Mapping[ir.Function, FnConfig] | None = None) -> Effects:
    """The effects of ``fn`` and (transitively) of the defined functions it calls.

    ``derivatives``: the synthesized derivatives and what they are (the context's
    :attr:`~irgrad.ad.core.context.DerivativeContext.configs`). A combined or forward
    derivative has its function's effects plus writes into the shadows it is given; its
    own tape and adjoint slots are private to each call.
    """
    seen = set() if seen is None else seen
    derivatives = derivatives or {}
    config = derivatives.get(fn)
    if config is not None and config.mode in (DerivativeMode.REVERSE_COMBINED,
                                              DerivativeMode.FORWARD):
        out = function_effects(config.function, seen, derivatives)
        # (an integer with a shadow may be an address: writes through it too)
        if any(t in (DiffeType.DUP, DiffeType.DUP_NONEED)
               and (a.type.is_pointer or isinstance(a.type, ir.IntType))
               for t, a in zip(config.arg_types, config.function.args, strict=True)):
            out.writes = True
        return out
    seen.add(fn)
    out = Effects()
    for inst in fn.instructions():
        if isinstance(inst, ir.LoadInst):
            if inst.volatile or inst.is_atomic:
                out.writes = True
            elif not _is_local(fn, inst.pointer):
                out.reads = True
        elif isinstance(inst, ir.StoreInst):
            if inst.volatile or inst.is_atomic or not _is_local(fn, inst.pointer):
                out.writes = True
        elif isinstance(inst, ir.AtomicRMWInst | ir.AtomicCmpXchgInst | ir.FenceInst):
            out.writes = True
        elif isinstance(inst, ir.CallBase):
            _call_effects(fn, inst, seen, out, derivatives)
        if out.writes and out.reads:
            break
    return out


def _call_effects(fn: ir.Function, call: ir.CallBase, seen: set[ir.Function],
                  out: Effects,
                  derivatives: Mapping[ir.Function, FnConfig] | None = None) -> None:
    name = callee_name(call)
    callee = call.called_function
    if name is None or callee is None:
        out.writes = True
        return
    if is_ignored_intrinsic(name) or enzyme_hint(name) is not None:
        return
    if name.startswith(_MEMORY_INTRINSICS):
        dst_local = _is_local(fn, call.args[0])
        out.writes |= not dst_local
        if not name.startswith("llvm.memset"):
            out.reads |= not _is_local(fn, call.args[1])
        return
    if name.startswith("llvm."):
        return  # arithmetic intrinsics (fmuladd, sin, ...)
    alloc = allocator(name)
    if (alloc is not None and alloc.reallocates is None) or is_free(name):
        # fresh memory, or its release; a stack allocator also updates its state
        touched = [call.args[k] for k in alloc.state_args] if alloc is not None else (
            call.args[:1])
        out.writes |= not all(_is_local(fn, p) for p in touched)
        return
    if callee.is_declaration:
        if is_math_function(name):
            return  # libm (errno aside, no effect on user data)
        out.writes = True  # malloc, printf, anything external
        return
    if callee in seen:
        return
    inner = function_effects(callee, seen, derivatives)
    out.writes |= inner.writes
    out.reads |= inner.reads


def _writes(fn: ir.Function, inst: ir.Instruction,
            derivatives: Mapping[ir.Function, FnConfig] | None = None) -> bool:
    """May ``inst`` (in ``fn``) write memory, its own stack frame included?"""
    if isinstance(inst, ir.StoreInst | ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
        return True
    if isinstance(inst, ir.LoadInst):
        return inst.volatile or inst.is_atomic
    if not isinstance(inst, ir.CallBase):
        return False
    eff = Effects()
    _call_effects(fn, inst, set(), eff, derivatives)
    name = callee_name(inst) or ""
    return eff.writes or name.startswith(_MEMORY_INTRINSICS)


def writes_after(fn: ir.Function, call: ir.Instruction,
                 derivatives: Mapping[ir.Function, FnConfig] | None = None) -> bool:
    """May anything that can run after ``call`` in ``fn`` (later loop iterations too)
    write memory?"""
    bb = call.parent
    assert bb is not None
    insts = bb.instructions
    if any(_writes(fn, i, derivatives) for i in insts[insts.index(call) + 1:]):
        return True
    seen: set[ir.BasicBlock] = set()
    work = list(bb.successors())
    while work:
        b = work.pop()
        if b in seen:
            continue
        seen.add(b)
        if any(_writes(fn, i, derivatives) for i in b.instructions):
            return True
        work.extend(b.successors())
    return False


def cheap_call_is_exact(gu: GradientUtils, call: ir.Instruction, callee: ir.Function) -> bool:
    """May ``callee`` be differentiated by re-running it in the caller's reverse pass?"""
    derivatives = gu.ctx.configs
    eff = function_effects(callee, derivatives=derivatives)
    if eff.writes:
        return False
    if not eff.reads:
        return True
    # it reads memory: exact only if nothing can overwrite that memory before the reverse
    # pass runs, i.e. the caller is a combined derivative (its reverse follows its forward
    # directly; its reverse pass writes only shadows and adjoints) and nothing that can
    # run after the call writes memory
    return gu.config.mode is DerivativeMode.REVERSE_COMBINED and not writes_after(
        gu.orig, call, derivatives)
