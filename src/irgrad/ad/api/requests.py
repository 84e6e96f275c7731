"""The derivative a ``__enzyme_autodiff`` / ``__enzyme_fwddiff`` call asks for (its
:class:`FnConfig`), and the arguments the synthesized derivative takes."""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import ParsedCall, call_error
from irgrad.ad.api.results import forward_wants_primal, return_activity
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.ad.core.internal_shadows import with_internal_shadows
from irgrad.ad.rules.emit import coerce_scalar
from irgrad.analysis.runtime_activity import params_needing_shadow
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import constant_of


def combined_config(parsed: ParsedCall, call: ir.CallBase, width: int | None = None
                    ) -> FnConfig:
    """The request of an ``__enzyme_autodiff`` / ``__enzyme_fwddiff`` call."""
    mode = parsed.mode
    ret_activity = return_activity(parsed, call)
    if mode is DerivativeMode.FORWARD:
        return_primal = forward_wants_primal(parsed, call)
        if return_primal and ret_activity is DiffeType.CONST and \
                parsed.return_marker is not DiffeType.CONST:
            ret_activity = DiffeType.DUP
    else:
        return_primal = parsed.return_primal and not parsed.function.return_type.is_void
        if parsed.return_primal and not return_primal:
            raise call_error(call, f"enzyme_primal_return: {parsed.function.name} returns "
                             "void")
    return FnConfig(
        function=parsed.function,
        mode=mode,
        arg_types=tuple(parsed.activities),
        return_type=ret_activity,
        width=parsed.width if width is None else width,
        return_primal=return_primal,
        extra=runtime_activity_extra(parsed),
    )


def runtime_activity_extra(parsed: ParsedCall, extra: tuple[tuple[str, object], ...] = ()
                           ) -> tuple[tuple[str, object], ...]:
    """``extra`` and the enzyme_const pointer arguments that derivatives flow through: they
    get a zeroed shadow of their own inside the derivative (runtime activity, see
    :mod:`irgrad.analysis.runtime_activity`)."""
    active = [a.is_active for a in parsed.activities]
    need = params_needing_shadow(parsed.function, active)
    return with_internal_shadows(extra, tuple(sorted(need)))


def get_derivative(ctx: DerivativeContext, call: ir.CallBase, config: FnConfig) -> ir.Function:
    try:
        return ctx.get_or_create(config)
    except DifferentiationError as exc:
        if exc.location is None:
            exc.location = source_location_of(call)
        raise


def derivative_arguments(b: ir.IRBuilder, parsed: ParsedCall, derivative: ir.Function,
                         config: FnConfig, lane: int | None) -> list[ir.Value]:
    """The values, shadows (all lanes, or lane ``lane`` of a vector reverse call) and the
    seed of the result that ``derivative`` takes."""
    params = derivative.function_type.params
    values: list[ir.Value] = []
    for primal, shadows in zip(parsed.primals, parsed.shadows, strict=True):
        picked = shadows if lane is None or config.width > 1 else shadows[lane:lane + 1]
        for v in (primal, *picked):
            values.append(coerce_scalar(b, v, params[len(values)]))
    if config.mode is not DerivativeMode.FORWARD and config.return_type is DiffeType.OUT:
        values.append(constant_of(parsed.function.return_type, 1.0))
    if len(values) != len(params):
        raise DifferentiationError(f"internal: {derivative.name} takes {len(params)} "
                                   f"arguments, lowering built {len(values)}")
    return values
