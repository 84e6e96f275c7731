"""Calls through function pointers in reverse mode.

An active indirect call is differentiated as a call of its dispatcher
(:mod:`irgrad.ad.core.dispatch`): the forward pass calls the dispatcher's augmented primal
with the function pointer as first argument, the reverse pass its reverse. The pointer is
passed with its shadow when it has one and every pointer argument has one too: the
dispatcher's default case then calls through the shadow (:func:`forward_table_call`), the
table ``{augmented, reverse}`` of Enzyme's convention, with the canonical activities of
:func:`irgrad.ad.core.function_shadows.canonical_config`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import (
    DISTINCT_ARGUMENTS_KEY,
    NOT_OVERWRITTEN_KEY,
    TAPE_ON_CALLER_STACK_KEY,
    DerivativeMode,
    DiffeType,
    FnConfig,
)
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.ad.core.dispatch import dispatcher, is_table_call
from irgrad.ad.core.failures import table_check
from irgrad.ad.core.function_shadows import canonical_config, function_of_type
from irgrad.ad.core.signatures import augmented_signature
from irgrad.ad.reverse.call_sites import (
    AugmentedCall,
    call_config,
    describe_call,
    distinct_arguments,
    emit_augmented,
    kept_arguments,
)
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


def forward_indirect_call(gu: GradientUtils, call: ir.CallBase) -> None:
    """Forward pass of an active indirect call (see the module docstring)."""
    ctx = gu.ctx
    if is_table_call(ctx, call):
        forward_table_call(gu, call)
        return
    if not isinstance(call, ir.CallInst):
        raise gu.error("No derivative found for an indirect invoke with active arguments",
                       call)
    fp = call.callee
    # (the derivatives in a function's shadow take integers without shadows: not when
    # an integer argument holds an address)
    through = gu.is_shadowed(fp) and all(
        gu.is_shadowed(a) for a in call.args if a.type.is_pointer) and not any(
        a in gu.activity.addresses for a in call.args)
    args = (fp, *call.args)

    kept = tuple(k + 1 for k in kept_arguments(gu, call))  # the dispatcher's arguments
    distinct = distinct_arguments(gu, args)

    def make_config(d: ir.Function, open_default: bool) -> FnConfig:
        fixed = {0: DiffeType.DUP if open_default else DiffeType.CONST}
        config = call_config(gu, d, args, call, DerivativeMode.REVERSE_PRIMAL, fixed)
        # a dispatcher is a derivative of ours: its tape (and its direct callees') goes
        # onto this derivative's stack, and it re-reads what the caller keeps
        extra = [*config.extra, (TAPE_ON_CALLER_STACK_KEY, True)]
        if kept:
            extra.append((NOT_OVERWRITTEN_KEY, kept))
        if distinct:
            extra.append((DISTINCT_ARGUMENTS_KEY, distinct))
        return replace(config, extra=tuple(extra))

    try:
        d, open_default = dispatcher(ctx, call, through_shadow=through, make_config=make_config,
                       synthesize=ctx.augmented_pair, where=describe_call(gu, call))
    except DifferentiationError as exc:
        if exc.location is None:
            exc.location = source_location_of(call, gu.module)
        raise
    config = make_config(d, open_default)
    aug, rev = ctx.augmented_pair(config)
    emit_augmented(gu, call, AugmentedCall(config, args, rev), aug, aug.function_type)


def forward_table_call(gu: GradientUtils, call: ir.CallBase) -> None:
    """A dispatcher's default case: the augmented primal read from the pointer's shadow
    (checked to be a table first), called with the canonical activities."""
    fp = call.callee
    config = canonical_config(function_of_type(call.function_type), DerivativeMode.REVERSE_PRIMAL)
    for a, dt in zip(call.args, config.arg_types, strict=True):
        if dt is DiffeType.DUP and not gu.is_shadowed(a):
            raise gu.error("internal: a dispatcher's call through a shadow has a pointer "
                           "argument without a shadow", call)
        if dt is DiffeType.CONST and a in gu.activity.addresses:
            raise gu.error("No derivative found for a call through a function pointer that "
                           "passes a pointer with a shadow as an integer (the derivatives "
                           "in a function's shadow take integers without shadows)", call)
    fwd = gu.vmap[call]
    assert isinstance(fwd, ir.Instruction)
    b = IRBuilder(position=fwd)
    table = gu.invert_pointer(fp, call)
    b.call(table_check(gu.module), [gu.primal(fp), table])
    aug = b.load(ir.ptr, table, name=gu.fresh("augmented.fn"))
    emit_augmented(gu, call, AugmentedCall(config, call.args, None, table=fp), aug,
                   augmented_signature(config))


__all__ = ["forward_indirect_call", "forward_table_call"]
