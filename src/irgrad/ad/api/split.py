"""Lowering of Enzyme's split reverse mode: ``__enzyme_augmentfwd`` / ``__enzyme_reverse``.

```c
void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_out, y);
...                                   // anything, including overwriting x
double dy = __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_out, y, dret,
                             enzyme_tape, tape);
```

* ``__enzyme_augmentfwd(fn, args...)`` runs f's augmented primal: f's effects on memory
  happen, shadows are filled, and it returns the tape (declare it returning ``void *``),
  or ``{tape, result}`` when declared to return a struct of a pointer and f's result type.
* ``__enzyme_reverse(fn, args..., [d_result], enzyme_tape, tape)`` runs f's reverse pass:
  adjoints are added into the shadows, the call returns the adjoints of the active
  scalar arguments like ``__enzyme_autodiff`` (a double or a struct, void if none), and
  the tape is freed. ``d_result`` (the adjoint of f's floating-point result) follows the
  arguments; without it the result's adjoint is 0. ``enzyme_tape, tape`` may come
  anywhere after the function.
* Both calls must describe the arguments the same way (the same markers): they then use
  the same (augmented, reverse) pair from the :class:`DerivativeContext`, whose tape
  layout matches. ``enzyme_allocated, N`` is accepted and ignored (the tape is always a
  heap pointer); ``enzyme_nofree`` is not supported.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import ParsedCall, call_error, replace_result
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.ad.core.shadow_globals import zero_shadows_before
from irgrad.ad.rules.emit import adapt_value, coerce_scalar
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import constant_of


def split_config(parsed: ParsedCall) -> FnConfig:
    """The pair's key: the same for both calls of one split derivative."""
    ret = parsed.function.return_type
    return FnConfig(
        function=parsed.function,
        mode=DerivativeMode.REVERSE_PRIMAL,
        arg_types=tuple(parsed.activities),
        return_type=DiffeType.OUT if ret.is_fp_or_fp_vector else DiffeType.CONST,
    )


def lower_split_call(ctx: DerivativeContext, call: ir.CallInst, parsed: ParsedCall,
                     entry: str) -> None:
    config = split_config(parsed)
    if parsed.mode is DerivativeMode.REVERSE_GRADIENT and parsed.tape is None:
        raise call_error(call, f"{entry} needs the tape from __enzyme_augmentfwd: pass "
                     "enzyme_tape, tape")
    try:
        aug, rev = ctx.augmented_pair(config)
    except DifferentiationError as exc:
        if exc.location is None:
            exc.location = source_location_of(call)
        raise
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    target = aug if parsed.mode is DerivativeMode.REVERSE_PRIMAL else rev
    params = target.function_type.params
    values: list[ir.Value] = []
    for primal, shadows in zip(parsed.primals, parsed.shadows, strict=True):
        for v in (primal, *shadows):
            values.append(coerce_scalar(b, v, params[len(values)]))
    if parsed.mode is DerivativeMode.REVERSE_PRIMAL:
        zero_shadows_before(ctx, b, aug)  # the reverse call continues with these shadows
        result = b.call(aug, values)
        _augmented_result(b, call, parsed, result, entry)
    else:
        if config.return_type is DiffeType.OUT:
            ret_type = parsed.function.return_type
            dret = parsed.differet if parsed.differet is not None else constant_of(ret_type, 0.0)
            values.append(coerce_scalar(b, dret, ret_type))
        assert parsed.tape is not None
        values.append(parsed.tape)
        new_call = b.call(rev, values)
        replace_result(b, call, parsed, None if new_call.type.is_void else new_call, entry)
    call.erase_from_parent()


def _augmented_result(b: ir.IRBuilder, call: ir.CallInst, parsed: ParsedCall,
                      result: ir.Value, entry: str) -> None:
    """The tape (``void *`` declared) or ``{tape, result}`` (a struct declared)."""
    target = parsed.sret_type if parsed.sret is not None else call.type
    if parsed.sret is not None and target is None:
        raise call_error(call, f"cannot read the struct type returned by {entry}")
    if target is None or target.is_void:
        raise call_error(call, f"{entry} must be declared to return the tape (void *): its "
                     "result is needed by __enzyme_reverse")
    tape = result if result.type.is_pointer else b.extract_value(result, [0])
    if target.is_pointer:
        adapted: ir.Value = tape
    elif result.type.is_pointer:
        raise call_error(call, f"{entry} is declared to return {target}, but "
                     f"{parsed.function.name} returns void: declare it returning void *")
    else:
        try:
            adapted = adapt_value(b, result, target)
        except ValueError as exc:
            raise call_error(call, f"the return type of {entry} ({target}) does not match "
                         f"{{tape, result}} ({result.type}): {exc}") from None
    if parsed.sret is not None:
        b.store(adapted, parsed.sret)
    else:
        call.replace_all_uses_with(adapted)
