"""Enzyme's split reverse mode: ``__enzyme_augmentfwd``, ``__enzyme_reverse`` and
``__enzyme_augmentsize``.

```c
void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_out, y);
...                                   // anything, including overwriting x
double dy = __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_out, y, dret, tape);
```

* ``__enzyme_augmentfwd(f, args...)`` runs f's augmented primal: f's effects on memory
  happen, shadows are filled. It returns the tape (declare it returning ``void *``), or
  the tape and f's result as a struct in either order (``{void *, double}`` or ``{double,
  void *}``); ``enzyme_noret`` drops the result.
* ``__enzyme_reverse(f, args..., [d_result], [tape])`` runs f's reverse pass: adjoints are
  added into the shadows; the call returns the adjoints of the active scalars like
  ``__enzyme_autodiff``. ``d_result`` (the adjoint of f's result) defaults to 1.0, as in
  Enzyme. The reverse frees the tape, unless ``enzyme_nofree`` is given (then it may run
  again on the same tape).
* ``enzyme_tape, p``: the tape is kept at ``p`` instead of being returned / passed: the
  augmented primal stores the tape pointer at ``p``, the reverse loads it from there.
  With ``enzyme_allocated, N`` as well, ``p`` is an N-byte buffer that holds the tape
  itself (no heap tape): ``__enzyme_augmentsize(f, markers...)`` gives the bytes needed
  (one marker per argument, no values), and a buffer smaller than the tape is Enzyme's
  "Insufficient tape allocation size" error.
* Both calls (and augmentsize) must describe the arguments the same way: they then use
  the same (augmented, reverse) pair of the :class:`DerivativeContext`, whose tape layout
  matches.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import (
    ParsedCall,
    call_arguments,
    call_error,
    target_function,
)
from irgrad.ad.api.markers import (
    ACTIVITY_MARKERS,
    NOT_OVERWRITTEN_MARKERS,
    RETURN_MARKERS,
    EntryKind,
    describe,
    marker_name,
)
from irgrad.ad.api.requests import runtime_activity_extra
from irgrad.ad.api.results import declared_result_type, replace_result, return_activity
from irgrad.ad.core.config import (
    NOT_OVERWRITTEN_KEY,
    TAPE_IN_BUFFER_KEY,
    DerivativeMode,
    DiffeType,
    FnConfig,
)
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.ad.core.shadow_globals import zero_shadows_before
from irgrad.ad.reverse.augmented import nofree_reverse, tape_bytes
from irgrad.ad.rules.emit import adapt_value, coerce_scalar
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import constant_of


def split_config(parsed: ParsedCall, ret: DiffeType) -> FnConfig:
    """The pair's key: the same for the calls of one split derivative."""
    extra: list[tuple[str, object]] = []
    if parsed.allocated is not None:
        extra.append((TAPE_IN_BUFFER_KEY, True))
    if parsed.not_overwritten:
        extra.append((NOT_OVERWRITTEN_KEY, tuple(sorted(parsed.not_overwritten))))
    return FnConfig(
        function=parsed.function,
        mode=DerivativeMode.REVERSE_PRIMAL,
        arg_types=tuple(parsed.activities),
        return_type=ret,
        extra=runtime_activity_extra(parsed, tuple(extra)),
    )


def _pair(ctx: DerivativeContext, call: ir.CallBase,
          config: FnConfig) -> tuple[ir.Function, ir.Function]:
    try:
        return ctx.augmented_pair(config)
    except DifferentiationError as exc:
        if exc.location is None:
            exc.location = source_location_of(call)
        raise


def _check(call: ir.CallInst, parsed: ParsedCall, entry: str) -> None:
    if parsed.width != 1:
        raise call_error(call, f"{entry}: enzyme_width (vector mode) is not supported in "
                         "split mode")
    if parsed.return_primal:
        raise call_error(call, "enzyme_primal_return is not available in split mode (the "
                         "augmented primal returns the result)")
    if parsed.allocated is not None and not parsed.tape_in_memory:
        raise call_error(call, f"{entry}: enzyme_allocated, N needs enzyme_tape, p (the "
                         "N-byte buffer that holds the tape)")


def lower_split_call(ctx: DerivativeContext, call: ir.CallInst, parsed: ParsedCall,
                     entry: str) -> None:
    _check(call, parsed, entry)
    ret = return_activity(parsed, call)
    config = split_config(parsed, ret)
    if parsed.mode is DerivativeMode.REVERSE_GRADIENT and parsed.tape is None:
        raise call_error(call, f"{entry} needs the tape from __enzyme_augmentfwd: pass it "
                         "after the arguments (or enzyme_tape, p)")
    aug, rev = _pair(ctx, call, config)
    if parsed.allocated is not None:
        need = tape_bytes(ctx, aug)
        if need > parsed.allocated:
            raise call_error(call, f"Insufficient tape allocation size: need {need} bytes "
                             f"have {parsed.allocated} bytes")
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    target = aug if parsed.mode is DerivativeMode.REVERSE_PRIMAL else rev
    if parsed.nofree and parsed.mode is DerivativeMode.REVERSE_GRADIENT:
        target = nofree_reverse(ctx, rev)
    params = target.function_type.params
    values: list[ir.Value] = []
    for primal, shadows in zip(parsed.primals, parsed.shadows, strict=True):
        for v in (primal, *shadows):
            values.append(coerce_scalar(b, v, params[len(values)]))
    if parsed.mode is DerivativeMode.REVERSE_PRIMAL:
        if parsed.allocated is not None:
            values.append(parsed.tape)  # type: ignore[arg-type]
        # the reverse call continues with these shadows: zeroed here, for both halves
        zero_shadows_before(ctx, b, aug, rev)
        result = b.call(aug, values)
        _augmented_result(b, call, parsed, result, entry)
    else:
        if config.return_type is DiffeType.OUT:
            ret_type = parsed.function.return_type
            dret = parsed.differet if parsed.differet is not None else constant_of(ret_type, 1.0)
            values.append(coerce_scalar(b, dret, ret_type))
        tape = parsed.tape
        assert tape is not None
        if parsed.tape_in_memory and parsed.allocated is None:
            tape = b.load(ir.ptr, tape, name="tape")
        values.append(tape)
        new_call = b.call(target, values)
        replace_result(b, call, parsed, None if new_call.type.is_void else new_call, entry)
    call.erase_from_parent()


def _augmented_result(b: ir.IRBuilder, call: ir.CallInst, parsed: ParsedCall,
                      result: ir.Value, entry: str) -> None:
    """Hand the tape and f's result to the user: tape kept at ``p`` (``enzyme_tape``),
    or returned as ``void *``, ``{tape, result}`` or ``{result, tape}``."""
    target = declared_result_type(parsed, call)
    tape = result if result.type.is_pointer else b.extract_value(result, [0])
    primal = None if result.type.is_pointer or parsed.noret else b.extract_value(result, [1])
    if parsed.tape_in_memory:
        if parsed.allocated is None:
            b.store(tape, parsed.tape)  # type: ignore[arg-type]
        value = primal  # the tape is where the caller said: only the result comes back
    else:
        if target is None or target.is_void:
            raise call_error(call, f"{entry} must be declared to return the tape (void *): its "
                             "result is needed by __enzyme_reverse")
        value = _tape_and_result(call, parsed, target, tape, primal, b, entry)
    if value is None or target is None or target.is_void:
        return
    if parsed.sret is None and not call.uses:
        return
    try:
        adapted = adapt_value(b, value, target)
    except ValueError as exc:
        raise call_error(call, f"the return type of {entry} ({target}) does not match "
                         f"{_what(parsed)} ({value.type}): {exc}") from None
    if parsed.sret is not None:
        b.store(adapted, parsed.sret)
    else:
        call.replace_all_uses_with(adapted)


def _what(parsed: ParsedCall) -> str:
    return "the tape and result" if not parsed.tape_in_memory else "the result"


def _tape_and_result(call: ir.CallInst, parsed: ParsedCall, target: ir.Type, tape: ir.Value,
                     primal: ir.Value | None, b: ir.IRBuilder, entry: str) -> ir.Value:
    if target.is_pointer:
        return tape
    elems = list(getattr(target, "elements", ()))
    if primal is None:
        raise call_error(call, f"{entry} is declared to return {target}, but "
                         f"{parsed.function.name} returns void (or enzyme_noret was given): "
                         "declare it returning void *")
    pair = ir.StructType([tape.type, primal.type])
    order = [tape, primal]
    if len(elems) == 2 and elems[1].is_pointer and not elems[0].is_pointer:
        pair, order = ir.StructType([primal.type, tape.type]), [primal, tape]  # {result, tape}
    agg: ir.Value = ir.UndefValue(pair)
    for k, v in enumerate(order):
        agg = b.insert_value(agg, v, [k])
    return agg


def lower_augmentsize(ctx: DerivativeContext, call: ir.CallInst) -> None:
    """``__enzyme_augmentsize(f, markers...)``: the bytes of f's tape for those markers
    (the ``enzyme_allocated`` variant of the pair)."""
    entry = EntryKind.AUGMENTSIZE.prefix
    args, _, _ = call_arguments(call, ctx.module)
    fn = target_function(call, args, entry)
    params = fn.function_type.params
    activities: list[DiffeType] = []
    ret_marker: DiffeType | None = None
    kept: set[int] = set()
    for v in args[1:]:
        name = marker_name(v)
        if name in RETURN_MARKERS:
            ret_marker = RETURN_MARKERS[name]
            continue
        if name in NOT_OVERWRITTEN_MARKERS:
            kept.add(len(activities))
            continue
        if name not in ACTIVITY_MARKERS:
            raise call_error(call, f"{entry} takes one activity marker per argument of "
                             f"{fn.name} (enzyme_dup, enzyme_const, ...) and no values, not "
                             f"{name or 'a value'}")
        activities.append(ACTIVITY_MARKERS[name])
    if len(activities) != len(params):
        raise call_error(call, f"{entry}: {fn.name} takes {len(params)} arguments, the call "
                         f"gives {len(activities)} activity markers")
    for k, (act, p) in enumerate(zip(activities, params, strict=True)):
        if (act is DiffeType.OUT and not p.is_fp_or_fp_vector) or (
                act in (DiffeType.DUP, DiffeType.DUP_NONEED) and not p.is_pointer):
            raise call_error(call, f"{entry}: {describe(act)} does not fit argument {k + 1} of "
                             f"{fn.name} ({p})")
    parsed = ParsedCall(fn, DerivativeMode.REVERSE_PRIMAL, EntryKind.AUGMENTSIZE,
                        activities=activities, allocated=0, return_marker=ret_marker,
                        not_overwritten=kept)
    ret = return_activity(parsed, call)
    aug, _ = _pair(ctx, call, split_config(parsed, ret))
    size = tape_bytes(ctx, aug)
    if not call.type.is_integer:
        raise call_error(call, f"{entry} returns the tape size: declare it returning an "
                         f"integer, not {call.type}")
    call.replace_all_uses_with(ir.ConstantInt(call.type, size))  # type: ignore[arg-type]
    call.erase_from_parent()
