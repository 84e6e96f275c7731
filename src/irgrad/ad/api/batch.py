"""``__enzyme_batch``: N evaluations of a function in one call.

```c
__enzyme_batch((void *)f, enzyme_width, 3,
               enzyme_vector, x0, x1, x2,      // one value per lane
               enzyme_scalar, n,               // the same value in every lane
               enzyme_buffer, sizeof(double) * n, out);  // lane k gets out + k * stride
```

Without a marker an argument is ``enzyme_vector`` (width > 1) or ``enzyme_scalar``
(width 1). The call returns f's N results (declare it returning a struct or array of N
values), or nothing for a void f. The lanes run one after another, each a call of f.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import call_arguments, call_error, target_function, value_text
from irgrad.ad.api.markers import EntryKind, marker_name
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.rules.emit import adapt_value, coerce_scalar

_ENTRY = EntryKind.BATCH.prefix


def lower_batch_call(ctx: DerivativeContext, call: ir.CallInst) -> None:
    args, sret, sret_type = call_arguments(call, ctx.module)
    fn = target_function(call, args, _ENTRY)
    params = fn.function_type.params
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    rest = args[1:]
    width = _width(call, rest)
    lanes: list[list[ir.Value]] = [[] for _ in range(width)]
    k = 0
    index = 0
    while k < len(rest):
        name = marker_name(rest[k])
        if name == "enzyme_width":
            k += 2
            continue
        if index >= len(params):
            raise call_error(call, f"too many arguments in {_ENTRY} for {fn.name}: it takes "
                             f"{len(params)}")
        kind = "enzyme_vector" if width > 1 else "enzyme_scalar"
        stride: ir.Value | None = None
        if name is not None:
            if name not in ("enzyme_scalar", "enzyme_vector", "enzyme_buffer"):
                raise call_error(call, f"{name} is not a marker of {_ENTRY} (enzyme_scalar, "
                                 "enzyme_vector, enzyme_buffer)")
            kind = name
            k += 1
            if kind == "enzyme_buffer":
                stride = _value(call, rest, k, "enzyme_buffer")
                if not stride.type.is_integer:
                    raise call_error(call, "enzyme_buffer must be followed by an integer byte "
                                     f"stride, not {value_text(stride)}")
                k += 1
        param = params[index]
        if kind == "enzyme_vector":
            for lane in range(width):
                lanes[lane].append(_lane_value(call, b, rest, k + lane, param, fn, index))
            k += width
        else:
            v = _lane_value(call, b, rest, k, param, fn, index)
            k += 1
            for lane in range(width):
                if stride is None:
                    lanes[lane].append(v)
                    continue
                if not param.is_pointer:
                    raise call_error(call, f"enzyme_buffer before argument {index + 1} of "
                                     f"{fn.name}: a buffer is a pointer, not {param}")
                offset = b.mul(stride, ir.ConstantInt(stride.type, lane))  # type: ignore[arg-type]
                lanes[lane].append(b.gep(ir.i8, v, [offset], name="batch.lane"))
        index += 1
    if index < len(params):
        raise call_error(call, f"too few arguments in {_ENTRY} for {fn.name}: it takes "
                         f"{len(params)}, the call passes {index}")
    results = [b.call(fn, lane) for lane in lanes]
    _replace(call, b, fn, results, sret, sret_type)
    call.erase_from_parent()


def _width(call: ir.CallInst, rest: list[ir.Value]) -> int:
    for k, v in enumerate(rest):
        if marker_name(v) == "enzyme_width":
            w = rest[k + 1] if k + 1 < len(rest) else None
            if not isinstance(w, ir.ConstantInt) or w.value < 1:
                raise call_error(call, "enzyme_width must be followed by a constant width of "
                                 "at least 1")
            return w.value
    return 1


def _value(call: ir.CallInst, rest: list[ir.Value], k: int, after: str) -> ir.Value:
    if k >= len(rest) or marker_name(rest[k]) is not None:
        raise call_error(call, f"missing value after {after} in {_ENTRY}")
    return rest[k]


def _lane_value(call: ir.CallInst, b: ir.IRBuilder, rest: list[ir.Value], k: int,
                param: ir.Type, fn: ir.Function, index: int) -> ir.Value:
    if k >= len(rest) or marker_name(rest[k]) is not None:
        raise call_error(call, f"missing value for argument {index + 1} of {fn.name} in "
                         f"{_ENTRY} (enzyme_vector takes one value per lane)")
    v = rest[k]
    if v.type != param and not (v.type.is_float and param.is_float) and not (
            v.type.is_integer and param.is_integer) and not (
            v.type.is_pointer and param.is_pointer):
        raise call_error(call, f"argument {index + 1} of {fn.name} ({param}) is passed "
                         f"{value_text(v)}")
    return coerce_scalar(b, v, param)


def _replace(call: ir.CallInst, b: ir.IRBuilder, fn: ir.Function, results: list[ir.CallInst],
             sret: ir.Value | None, sret_type: ir.Type | None) -> None:
    target = sret_type if sret is not None else call.type
    if fn.return_type.is_void or target is None or target.is_void:
        return
    if sret is None and not call.uses:
        return
    agg: ir.Value = ir.UndefValue(ir.ArrayType(len(results), fn.return_type))
    for lane, r in enumerate(results):
        agg = b.insert_value(agg, r, [lane])
    try:
        adapted = adapt_value(b, agg, target) if len(results) > 1 else adapt_value(
            b, results[0], target)
    except ValueError as exc:
        raise call_error(call, f"the return type of {_ENTRY} ({target}) does not match the "
                         f"{len(results)} result(s) of {fn.name}: {exc}") from None
    if sret is not None:
        b.store(adapted, sret)
    else:
        call.replace_all_uses_with(adapted)
