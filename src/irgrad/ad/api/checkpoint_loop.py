"""``__enzyme_checkpoint_for`` and ``__enzyme_checkpoint_while``: time loops whose
reverse mode follows a checkpointing scheme (``enzyme/checkpoint.h``).

```c
__enzyme_checkpoint_for((void *)step, start, n, enzyme_scheme, &scheme, &config,
                        enzyme_checkpoint_region, u, bytes, args...);
__enzyme_checkpoint_while((void *)step, enzyme_scheme, &scheme, &config, args...);
```

The call becomes a call of a loop function (``checkpoint_for.<step>(regions...,
scheme, config, start, n, args...)``, ``n`` = -1 for a while loop) that runs the plain
loop and returns the number of steps; its derivatives come from
:mod:`irgrad.ad.api.checkpoint_derivatives`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from irgrad import ir
from irgrad.ad.api.checkpoint_derivatives import CheckpointLoop, synthesize_checkpoint_loop
from irgrad.ad.api.entry_calls import call_arguments, call_error, value_text
from irgrad.ad.api.loop_constructs import (
    counter_value,
    marker_integer,
    marker_pointer,
    step_arguments,
)
from irgrad.ad.api.markers import ACTIVITY_MARKERS, marker_name, strip_casts
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.rules.emit import coerce_scalar


@dataclass
class _Parsed:
    scheme: ir.Value | None
    config: ir.Value | None
    regions: list[tuple[ir.Value, ir.Value]]
    args: list[ir.Value]


def lower_checkpoint_call(ctx: DerivativeContext, call: ir.CallInst, entry: str) -> None:
    """Replace one ``__enzyme_checkpoint_for`` / ``_while`` call by its loop function."""
    is_while = "while" in entry
    args, sret, _ = call_arguments(call, ctx.module)
    if sret is not None or (not call.type.is_void and call.uses):
        raise call_error(call, f"{entry} returns nothing")
    step = strip_casts(args[0]) if args else None
    if not isinstance(step, ir.Function):
        raise call_error(call, f"the first argument of {entry} must be the step function "
                         "itself" + (f", not {value_text(step)}" if step is not None else ""))
    if step.is_declaration:
        raise call_error(call, f"{entry}: the step function {step.name} has no definition "
                         "in this module")
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    rest = args[1:]
    if is_while:
        bounds: list[ir.Value] = [ir.ConstantInt(ir.i64, 0), ir.ConstantInt(ir.i64, -1)]
    else:
        if len(rest) < 2:
            raise call_error(call, f"{entry} takes the step function, the first step and the "
                             "number of steps first")
        bounds = [_integer(call, b, v, entry, what) for v, what in
                  zip(rest[:2], ("the first step", "the number of steps"), strict=True)]
        rest = rest[2:]
    parsed = _parse(call, b, rest, entry)
    if parsed.scheme is None or parsed.config is None:
        raise call_error(call, f"{entry} needs 'enzyme_scheme, &scheme, &config' (a scheme "
                         "of <enzyme/checkpoint.h>, e.g. &EnzymeCkptRevolve)")
    step_args = step_arguments(call, b, step, parsed.args, entry)
    if is_while and not step.return_type.is_integer:
        raise call_error(call, f"{entry}: the step function {step.name} must return whether "
                         f"to go on (an integer), not {step.return_type}")
    spec = CheckpointLoop(step, len(parsed.regions), is_while)
    values: list[ir.Value] = []
    for ptr, size in parsed.regions:
        values += [ptr, size]
    values += [parsed.scheme, parsed.config, *bounds, *step_args]
    loop = _loop_function(ctx, spec, [v.type for v in values])
    b.call(loop, values)
    call.erase_from_parent()


def _integer(call: ir.CallInst, b: ir.IRBuilder, v: ir.Value, entry: str, what: str
             ) -> ir.Value:
    if v.type.is_pointer:  # by reference (Fortran)
        v = b.load(ir.i64, v)
    if not v.type.is_integer or marker_name(v) is not None:
        raise call_error(call, f"{entry} takes {what} as an integer, not {value_text(v)}")
    return coerce_scalar(b, v, ir.i64)


def _parse(call: ir.CallInst, b: ir.IRBuilder, rest: list[ir.Value], entry: str) -> _Parsed:
    out = _Parsed(None, None, [], [])
    k = 0
    while k < len(rest):
        name = marker_name(rest[k])
        if name is None:
            break
        k += 1
        if name == "enzyme_scheme":
            out.scheme = marker_pointer(call, rest, k, name, entry)
            out.config = marker_pointer(call, rest, k + 1, name, entry)
            k += 2
        elif name == "enzyme_checkpoint_region":
            out.regions.append((marker_pointer(call, rest, k, name, entry),
                                marker_integer(call, b, rest, k + 1, name, entry)))
            k += 2
        elif name in ACTIVITY_MARKERS:
            raise call_error(call, f"{entry} takes no activity markers ({name}): its "
                             "arguments take part as in the derivative that runs it")
        else:
            raise call_error(call, f"{name} is not a marker of {entry} (enzyme_scheme, "
                             "enzyme_checkpoint_region)")
    out.args = rest[k:]
    return out


def _loop_function(ctx: DerivativeContext, spec: CheckpointLoop,
                   types: list[ir.Type]) -> ir.Function:
    """The plain loop over the loop function's parameters; it returns the steps run."""
    module = ctx.module
    kind = "checkpoint_while" if spec.is_while else "checkpoint_for"
    fn = ir.Function(module.unique_name(f"{kind}.{spec.step.name}"),
                     ir.FunctionType(ir.i64, types), "internal")
    module.add_function(fn)
    fn.fn_attrs.append("noinline")
    entry = fn.append_basic_block("entry")
    body = fn.append_basic_block("step")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    start, n = fn.args[spec.start], fn.args[spec.start + 1]
    step_args = list(fn.args[spec.first_argument:])
    if spec.is_while:
        b.br(body)
    else:
        b.cond_br(b.icmp("sgt", n, ir.ConstantInt(ir.i64, 0)), body, done)
    b.position_at_end(body)
    j = b.phi(ir.i64, [(ir.ConstantInt(ir.i64, 0), entry)], name="j")
    went = b.call(spec.step, [counter_value(b, fn, spec.step, b.add(start, j)), *step_args])
    nxt = b.add(j, ir.ConstantInt(ir.i64, 1))
    j.add_incoming(nxt, body)
    if spec.is_while:
        again = b.icmp("ne", went, ir.ConstantInt(went.type, 0))
    else:
        again = b.icmp("slt", nxt, n)
    b.cond_br(again, body, done)
    b.position_at_end(done)
    b.ret(nxt if spec.is_while else n)  # (a while loop reaches done from its step only)
    ctx.constructs[fn] = partial(synthesize_checkpoint_loop, spec)
    return fn


__all__ = ["lower_checkpoint_call"]
