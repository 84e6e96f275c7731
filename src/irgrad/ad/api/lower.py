"""Lowering of the user's ``__enzyme_*`` calls to synthesized derivatives.

Each call (read by :mod:`irgrad.ad.api.entry_calls`) becomes a :class:`FnConfig`; the
:class:`DerivativeContext` synthesizes the derivative (forward mode from
:mod:`irgrad.ad.forward`, reverse and split mode from :mod:`irgrad.ad.reverse`), and the
call is replaced by a call to it, with its arguments and result adapted to the user's
call (split mode: :mod:`irgrad.ad.api.split`). Afterwards no reference to a marker global
or an ``__enzyme_*`` declaration remains.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from irgrad import ir
from irgrad.ad.api.entry_calls import (
    SPLIT_MODES,
    UNSUPPORTED_PREFIXES,
    call_error,
    entry_mode,
    enzyme_calls,
    forward_wants_primal,
    parse_call,
    remove_markers,
    replace_result,
    return_activity,
)
from irgrad.ad.api.split import lower_split_call
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.ad.core.invoke import lower_invoke
from irgrad.ad.core.shadow_globals import set_roots, zero_shadows_before
from irgrad.ad.forward.function import create_forward_diff
from irgrad.ad.reverse.augmented import create_augmented_pair
from irgrad.ad.reverse.function import create_primal_and_gradient
from irgrad.ad.rules.emit import coerce_scalar
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import constant_of

SYNTHESIZERS = {
    DerivativeMode.FORWARD: create_forward_diff,
    DerivativeMode.REVERSE_COMBINED: create_primal_and_gradient,
    DerivativeMode.REVERSE_PRIMAL: create_augmented_pair,
    DerivativeMode.REVERSE_GRADIENT: create_augmented_pair,
}


def new_context(module: ir.Module) -> DerivativeContext:
    """A derivative context for ``module`` that synthesizes every derivative mode."""
    return DerivativeContext(module, SYNTHESIZERS)


def lower_call(ctx: DerivativeContext, call: ir.CallBase, mode: DerivativeMode) -> None:
    """Replace one ``__enzyme_*`` call by a call to the synthesized derivative."""
    entry = call.called_function.name if call.called_function is not None else "__enzyme"
    if entry.startswith(UNSUPPORTED_PREFIXES):
        raise call_error(call, f"{entry}: this split mode is not supported yet")
    if isinstance(call, ir.InvokeInst):  # C++: a call + branch, as Enzyme does
        call = lower_invoke(call)
    if not isinstance(call, ir.CallInst):
        raise call_error(call, f"{entry} must be called with 'call' (not {call.opcode})")
    parsed = parse_call(call, mode, ctx.module)
    if mode in SPLIT_MODES:
        lower_split_call(ctx, call, parsed, entry)
        return
    ret_activity = return_activity(parsed, call)
    return_primal = mode is DerivativeMode.FORWARD and forward_wants_primal(parsed, call)
    if return_primal and ret_activity is DiffeType.CONST:
        ret_activity = DiffeType.DUP
    config = FnConfig(
        function=parsed.function,
        mode=mode,
        arg_types=tuple(parsed.activities),
        return_type=ret_activity,
        width=parsed.width,
        return_primal=return_primal,
    )
    try:
        derivative = ctx.get_or_create(config)
    except DifferentiationError as exc:
        if exc.location is None:
            exc.location = source_location_of(call)
        raise
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    zero_shadows_before(ctx, b, derivative)
    params = derivative.function_type.params
    values: list[ir.Value] = []
    for primal, shadows in zip(parsed.primals, parsed.shadows, strict=True):
        for v in (primal, *shadows):
            values.append(coerce_scalar(b, v, params[len(values)]))
    if mode is not DerivativeMode.FORWARD and ret_activity is DiffeType.OUT:
        ret_type = parsed.function.return_type
        values.append(constant_of(ret_type, 1.0))
    if len(values) != len(params):
        raise DifferentiationError(
            f"internal: {derivative.name} takes {len(params)} arguments, lowering built "
            f"{len(values)}", source_location_of(call)
        )
    new_call = b.call(derivative, values)
    result: ir.Value | None = None if new_call.type.is_void else new_call
    replace_result(b, call, parsed, result, entry)
    call.erase_from_parent()


def lower_enzyme_calls(module: ir.Module) -> ir.Module:
    """Replace every ``__enzyme_autodiff*``/``__enzyme_fwddiff*`` call in ``module`` by a
    call to its synthesized derivative; remove the markers and entry declarations."""
    calls = enzyme_calls(module)
    if not calls:
        return module
    ctx = new_context(module)
    roots = differentiated_functions(c for c, _ in calls)
    if roots is not None:
        set_roots(ctx, roots)
    for call, mode in calls:
        lower_call(ctx, call, mode)
    remove_markers(module)
    return module


def differentiated_functions(calls: Iterable[ir.CallBase]) -> list[ir.Function] | None:
    """The functions the ``__enzyme_*`` calls differentiate (their first argument); None
    when one is not a function constant (then any function may be differentiated)."""
    out: list[ir.Function] = []
    for call in calls:
        v = call.args[0] if call.args else None
        while isinstance(v, ir.ConstantExpr) and v.operands:
            v = v.operands[0]
        if not isinstance(v, ir.Function):
            return None
        out.append(v)
    return out


def lower_calls_in_order(module: ir.Module, calls: Sequence[ir.CallBase]) -> None:
    """Lower the given calls (tests use it to lower one call at a time)."""
    ctx = new_context(module)
    roots = differentiated_functions(calls)
    if roots is not None:
        set_roots(ctx, roots)
    for call in calls:
        fn = call.called_function
        mode = entry_mode(fn.name) if fn is not None else None
        if mode is not None:
            lower_call(ctx, call, mode)
    remove_markers(module)
