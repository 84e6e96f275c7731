"""``__enzyme_virtualreverse(f)``: the shadow of a function, for a user who builds shadow
memory by hand.

``void *__enzyme_virtualreverse(void *f)`` returns f's table of derivatives
(:mod:`irgrad.ad.core.function_shadows`, ``{augmented, reverse}``), which the user puts
where the primal holds ``f``: the shadow of a struct's callback field, of a C++ object's
vtable pointer (``__enzyme_virtualreverse`` of a vtable gives the vtable of tables).
A derivative that calls through such a field then calls f's derivative. The argument
must be a function or a constant global holding functions, known at compile time.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import call_error, strip_casts
from irgrad.ad.core.config import DerivativeMode
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.ad.core.function_shadows import shadow_of_constant
from irgrad.errors import DifferentiationError
from irgrad.ir.printer import value_ref


def lower_virtual_reverse(ctx: DerivativeContext, call: ir.CallBase) -> None:
    """Replace the call by the shadow of its constant argument."""
    entry = call.called_function.name if call.called_function is not None else "__enzyme"
    if isinstance(call, ir.InvokeInst):
        raise call_error(call, f"{entry} must be called with 'call' (not invoke)")
    if len(call.args) != 1:
        raise call_error(call, f"{entry} takes one argument (a function), not "
                         f"{len(call.args)}")
    target = strip_casts(call.args[0])
    if isinstance(target, ir.Function) and target.is_declaration:
        raise call_error(call, f"{entry}: {target.name} has no definition in this module, "
                         "so irgrad cannot differentiate it")
    try:
        shadow = shadow_of_constant(ctx, target, DerivativeMode.REVERSE_PRIMAL,
                                    strict=True) \
            if isinstance(target, ir.Constant) else None
    except DifferentiationError as exc:
        if exc.location is None:
            exc.location = source_location_of(call)
        raise
    if shadow is None:
        raise call_error(call, f"the argument of {entry} must be a function or a constant "
                         f"global holding functions (a vtable), not {value_ref(target)}")
    if not call.type.is_void:
        if not call.type.is_pointer:
            raise call_error(call, f"{entry} returns a pointer (void *), not {call.type}")
        call.replace_all_uses_with(shadow)
    call.erase_from_parent()


__all__ = ["lower_virtual_reverse"]
