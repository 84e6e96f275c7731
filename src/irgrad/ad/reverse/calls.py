"""Calls in reverse mode.

* intrinsics and C library functions with a rule (``llvm.fmuladd``, ``sin``...): the
  rule's partials;
* memory intrinsics (memcpy/memmove/memset) and allocation functions: shadow memory;
* calls to functions defined in the module: differentiated as calls, like Enzyme.
  :func:`augment_calls` (run on the forward pass) replaces an active call to ``g`` by a
  call to g's *augmented primal* (it runs g, fills g's shadows and returns g's result and
  a tape); the reverse pass calls g's *reverse* with that tape (looked up like any forward
  value, so it is kept on the caller's own tape inside loops). Both come from
  ``ctx.get_or_create`` (:mod:`irgrad.ad.reverse.augmented`), so recursion works. When
  re-running g is provably exact (:func:`irgrad.ad.call_effects.cheap_call_is_exact`: g
  writes nothing outside its frame and what it reads cannot change before the reverse
  pass) the plain call stays and the reverse pass calls g's combined gradient instead;
* inactive calls (printf, ...) stay in the forward pass only;
* anything else with active arguments: ``No derivative found for``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.reverse.call_effects import cheap_call_is_exact
from irgrad.ad.reverse.instructions import apply_rule
from irgrad.ad.reverse.memory import (
    reverse_allocation,
    reverse_memset,
    reverse_memtransfer,
)
from irgrad.ad.rules import lookup_call, lookup_intrinsic
from irgrad.analysis.activity import has_float
from irgrad.analysis.known_functions import callee_name, is_allocation, is_free, is_inactive_call
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


def _is_active_call(gu: GradientUtils, call: ir.CallBase) -> bool:
    """Does ``call`` need derivative code: its result carries a useful derivative, or it
    may write active memory (through active arguments or an active global)? A read-only
    call whose result is unused needs none (the activity analysis decides)."""
    return not gu.activity.is_constant_instruction(call)


def reverse_call(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    name = callee_name(call)
    if isinstance(call.callee, ir.InlineAsm):
        if _is_active_call(gu, call):
            raise gu.error("cannot differentiate inline assembly on an active value", call)
        return
    if name is None:
        if _is_active_call(gu, call):
            raise gu.error("No derivative found for an indirect call with active arguments",
                           call)
        return
    if is_inactive_call(name):
        return
    if name.startswith(("llvm.memcpy", "llvm.memmove")):
        reverse_memtransfer(gu, call, b)
        return
    if name.startswith("llvm.memset"):
        reverse_memset(gu, call, b)
        return
    if is_allocation(name):
        if isinstance(call, ir.CallInst):
            reverse_allocation(gu, call, b)
        return
    if is_free(name):
        return
    if name.startswith("llvm.modf"):
        if gu.is_varied(call):  # { frac, int }: d frac / dx = 1, d int / dx = 0
            d = gu.diffe(call, b)
            gu.add_to_diffe(call.args[0], b.extract_value(d, [0]), b)
        return
    rule = lookup_intrinsic(name) if name.startswith("llvm.") else lookup_call(name)
    fn = call.called_function
    if rule is not None and (name.startswith("llvm.") or fn is None or fn.is_declaration):
        if gu.is_varied(call):
            d = gu.diffe(call, b)
            if rule.result_kind == "struct" and rule.result_index is not None:
                d = b.extract_value(d, [rule.result_index])
            if rule.result_kind != "int":
                apply_rule(gu, call, rule, list(call.args), d, b)
        return
    if fn is not None and not fn.is_declaration:
        _reverse_defined_call(gu, call, fn, b)
        return
    if _is_active_call(gu, call):
        raise gu.error(f"No derivative found for {name}", call)


def _call_config(gu: GradientUtils, call: ir.CallBase, fn: ir.Function,
                 mode: DerivativeMode) -> FnConfig:
    arg_types: list[DiffeType] = []
    for a in call.args:
        if a.type.is_pointer and gu.is_shadowed(a):
            arg_types.append(DiffeType.DUP)
        elif has_float(a.type) and gu.is_varied(a) and not a.type.is_pointer:
            arg_types.append(DiffeType.OUT)
        else:
            arg_types.append(DiffeType.CONST)
    ret_active = gu.is_varied(call) and has_float(call.type)
    return FnConfig(
        function=fn,
        mode=mode,
        arg_types=tuple(arg_types),
        return_type=DiffeType.OUT if ret_active else DiffeType.CONST,
    )


def _call_tapes(gu: GradientUtils) -> dict[ir.CallBase, ir.Value]:
    """Original call -> the forward value of its tape (for augmented calls)."""
    tapes: dict[ir.CallBase, ir.Value] | None = getattr(gu, "call_tapes", None)
    if tapes is None:
        tapes = {}
        gu.call_tapes = tapes  # type: ignore[attr-defined]
    return tapes


def augment_calls(gu: GradientUtils) -> None:
    """Forward pass: active calls to defined functions that cannot simply be re-run in
    the reverse pass call the callee's augmented primal instead (result + tape)."""
    if gu.config.mode is not DerivativeMode.REVERSE_COMBINED and hasattr(gu, "sunk_stores"):
        # split mode: the forward pass ends when the augmented primal returns, so no
        # store may be sunk into the reverse pass (loads are never recomputed either:
        # GradientUtils.load_is_stable)
        gu.sunk_stores = []
    tapes = _call_tapes(gu)
    for bb in gu.orig.blocks:
        if bb not in gu.reachable:
            continue
        for inst in list(bb.instructions):
            if not isinstance(inst, ir.CallBase):
                continue
            fn = inst.called_function
            if fn is None or fn.is_declaration or fn.name.startswith("llvm."):
                continue
            # (a pointer into active memory returned by a read-only callee: the call
            # itself needs no derivative, but what is read through its result does)
            _check_pointer_result(gu, inst, fn)
            if not _is_active_call(gu, inst):
                continue
            if cheap_call_is_exact(gu, inst, fn):
                continue
            if not isinstance(inst, ir.CallInst):
                raise gu.error(f"No derivative found for {fn.name}: an invoke of a function "
                               "that writes or reads overwritten memory is not supported",
                               inst)
            config = _call_config(gu, inst, fn, DerivativeMode.REVERSE_PRIMAL)
            aug, _ = gu.ctx.augmented_pair(config)
            fwd = gu.vmap[inst]
            assert isinstance(fwd, ir.Instruction)
            b = IRBuilder(position=fwd)
            args: list[ir.Value] = []
            for a, dt in zip(inst.args, config.arg_types, strict=True):
                args.append(gu.primal(a))
                if dt is DiffeType.DUP:
                    args.append(gu.invert_pointer(a, inst))
            res = b.call(aug, args, name=gu.fresh("aug." + fn.name))
            if fn.return_type.is_void:
                tape: ir.Value = res
            else:
                tape = b.extract_value(res, [0], name=gu.fresh("tape." + fn.name))
                primal = b.extract_value(res, [1], name=gu.fresh(fwd.name or "call"))
                fwd.replace_all_uses_with(primal)
                gu.vmap[inst] = primal
                gu.orig_of_new[primal] = inst
            gu.orig_of_new.pop(fwd, None)
            if gu.entry_marker is fwd:
                gu.entry_marker = res  # type: ignore[assignment]
            fwd.erase_from_parent()
            tapes[inst] = tape


def _check_pointer_result(gu: GradientUtils, call: ir.CallBase, fn: ir.Function) -> None:
    """A returned pointer through which floating-point data is read or written would need
    a shadow of the result (Enzyme's shadow return): not supported yet, so an error
    instead of a zero derivative."""
    if not call.type.is_pointer or not any(gu.is_shadowed(a) for a in call.args):
        return
    seen: set[ir.Value] = {call}
    work: list[ir.Value] = [call]
    while work:
        v = work.pop()
        for u in v.users:
            bad = (isinstance(u, ir.LoadInst) and u.pointer is v and has_float(u.type)) or (
                isinstance(u, ir.StoreInst) and u.pointer is v and has_float(u.value.type))
            if isinstance(u, ir.Instruction) and u.type.is_pointer and u not in seen \
                    and u.opcode in ("getelementptr", "bitcast", "phi", "select"):
                seen.add(u)
                work.append(u)
            if bad:
                raise gu.error(f"No derivative found for {fn.name}: it returns a pointer "
                               "through which active data is accessed (shadow return values "
                               "are not supported yet)", call)


def _reverse_augmented_call(gu: GradientUtils, call: ir.CallInst, fn: ir.Function,
                            tape: ir.Value, b: IRBuilder) -> None:
    config = _call_config(gu, call, fn, DerivativeMode.REVERSE_PRIMAL)
    _, rev = gu.ctx.augmented_pair(config)
    bb = call.parent
    assert bb is not None
    args: list[ir.Value] = []
    for a, dt in zip(call.args, config.arg_types, strict=True):
        args.append(gu.lookup_primal(a, bb))
        if dt is DiffeType.DUP:
            args.append(gu.lookup_shadow(a, bb, call))
    if config.return_type is DiffeType.OUT:
        args.append(gu.diffe(call, b))
    args.append(gu.lookup(tape, bb))
    result = b.call(rev, args)
    k = 0
    for a, dt in zip(call.args, config.arg_types, strict=True):
        if dt is DiffeType.OUT:
            gu.add_to_diffe(a, b.extract_value(result, [k]), b)
            k += 1


def _reverse_defined_call(gu: GradientUtils, call: ir.CallBase, fn: ir.Function,
                          b: IRBuilder) -> None:
    if not _is_active_call(gu, call):
        return
    tape = _call_tapes(gu).get(call)
    if tape is not None:
        assert isinstance(call, ir.CallInst)
        _reverse_augmented_call(gu, call, fn, tape, b)
        return
    config = _call_config(gu, call, fn, DerivativeMode.REVERSE_COMBINED)
    arg_types = config.arg_types
    ret_active = config.return_type is DiffeType.OUT
    diffe_fn = gu.ctx.get_or_create(config)
    bb = call.parent
    assert bb is not None
    args: list[ir.Value] = []
    for a, dt in zip(call.args, arg_types, strict=True):
        args.append(gu.lookup_primal(a, bb))
        if dt is DiffeType.DUP:
            args.append(gu.lookup_shadow(a, bb, call))
    if ret_active:
        args.append(gu.diffe(call, b))
    result = b.call(diffe_fn, args)
    k = 0
    for a, dt in zip(call.args, arg_types, strict=True):
        if dt is DiffeType.OUT:
            gu.add_to_diffe(a, b.extract_value(result, [k]), b)
            k += 1
