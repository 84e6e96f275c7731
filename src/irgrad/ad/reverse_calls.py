"""Calls in reverse mode.

* intrinsics and C library functions with a rule (``llvm.fmuladd``, ``sin``...): the
  rule's partials;
* memory intrinsics (memcpy/memmove/memset) and allocation functions: shadow memory;
* calls to functions defined in the module: differentiated as calls. The forward pass
  keeps the original call; the reverse pass calls the callee's combined gradient
  ``diffe_g`` (through ``ctx.get_or_create``, so recursion works) with the looked-up
  arguments, which re-runs g's forward pass and then its reverse. This is exact when g's
  inputs are unchanged when the reverse pass reaches the call (the usual case for pure
  callees and callees writing only their outputs); see the report in the module tests;
* inactive calls (printf, ...) stay in the forward pass only;
* anything else with active arguments: ``No derivative found for``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.reverse_activity import (
    ALLOCATION_FUNCTIONS,
    FREE_FUNCTIONS,
    INACTIVE_FUNCTIONS,
    callee_name,
    has_float,
    is_ignored_intrinsic,
)
from irgrad.ad.reverse_insts import apply_rule
from irgrad.ad.reverse_memory import (
    reverse_allocation,
    reverse_memset,
    reverse_memtransfer,
)
from irgrad.ad.rules import lookup_call, lookup_intrinsic
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.gradient_utils import GradientUtils


def _is_active_call(gu: GradientUtils, call: ir.CallBase) -> bool:
    if gu.is_varied(call):
        return True
    return any(gu.is_varied(a) or gu.is_shadowed(a) for a in call.args)


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
    if is_ignored_intrinsic(name) or name in INACTIVE_FUNCTIONS:
        return
    if name.startswith(("llvm.memcpy", "llvm.memmove")):
        reverse_memtransfer(gu, call, b)
        return
    if name.startswith("llvm.memset"):
        reverse_memset(gu, call, b)
        return
    if name in ALLOCATION_FUNCTIONS:
        if isinstance(call, ir.CallInst):
            reverse_allocation(gu, call, b)
        return
    if name in FREE_FUNCTIONS:
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


def _reverse_defined_call(gu: GradientUtils, call: ir.CallBase, fn: ir.Function,
                          b: IRBuilder) -> None:
    if not _is_active_call(gu, call):
        return
    arg_types: list[DiffeType] = []
    for a in call.args:
        if a.type.is_pointer and gu.is_shadowed(a):
            arg_types.append(DiffeType.DUP)
        elif has_float(a.type) and gu.is_varied(a) and not a.type.is_pointer:
            arg_types.append(DiffeType.OUT)
        else:
            arg_types.append(DiffeType.CONST)
    ret_active = gu.is_varied(call) and has_float(call.type)
    config = FnConfig(
        function=fn,
        mode=DerivativeMode.REVERSE_COMBINED,
        arg_types=tuple(arg_types),
        return_type=DiffeType.OUT if ret_active else DiffeType.CONST,
    )
    diffe_fn = gu.ctx.get_or_create(config)  # type: ignore[attr-defined]
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
