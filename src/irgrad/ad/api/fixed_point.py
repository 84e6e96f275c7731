"""``__enzyme_fixed_point``: a loop run to a fixed point (``enzyme/fixed_point.h``).

```c
__enzyme_fixed_point((void *)step, enzyme_fp_state, z, bytes,
                     enzyme_fp_reduction, 1e-12, enzyme_fp_max_iters, 100,
                     enzyme_fp_control, control,
                     enzyme_checkpoint_region, p, bytes, args...);
```

is the loop ``int64_t i = 0; while (step(i++, args...));``. The call becomes a call of a
*loop function* made here, ``fixed_point.<step>(states..., regions..., reduction,
max_iters, control, args...)``, which runs that loop and returns the number of
iterations. Its body is an ordinary loop, so the analyses of the function that calls it
(activity, types, what it reads and writes) see what the loop does; its derivatives are
not made from that body but by :mod:`irgrad.ad.api.fixed_point_derivatives`, through the
context's ``constructs`` registry: the loop's derivative taken at the state it converged
to, not through every iteration.

Markers' values may be passed by reference (Fortran), and so may the step's counter.
``__enzyme_set_fixed_point`` (a loop marked from inside) is refused with a located error.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from irgrad import ir
from irgrad.ad.api.entry_calls import call_arguments, call_error, value_text
from irgrad.ad.api.fixed_point_derivatives import FixedPointLoop, synthesize_fixed_point
from irgrad.ad.api.loop_constructs import (
    marker_integer,
    marker_pointer,
    marker_value,
    step_arguments,
)
from irgrad.ad.api.markers import ACTIVITY_MARKERS, marker_name, strip_casts
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.rules.emit import coerce_scalar
from irgrad.analysis.global_activity import reachable_functions
from irgrad.analysis.underlying_objects import underlying_object

ENTRY = "__enzyme_fixed_point"
DEFAULT_REDUCTION = 1e-12
DEFAULT_MAX_ITERS = 1000


@dataclass
class _Parsed:
    states: list[tuple[ir.Value, ir.Value]]
    regions: list[tuple[ir.Value, ir.Value]]
    reduction: ir.Value
    max_iters: ir.Value
    control: ir.Value
    args: list[ir.Value]


def lower_fixed_point_call(ctx: DerivativeContext, call: ir.CallInst) -> None:
    """Replace one ``__enzyme_fixed_point`` call by a call of its loop function."""
    args, sret, _ = call_arguments(call, ctx.module)
    if sret is not None or (not call.type.is_void and call.uses):
        raise call_error(call, f"{ENTRY} returns nothing")
    if not args:
        raise call_error(call, f"{ENTRY} needs the step function as first argument")
    step = strip_casts(args[0])
    if not isinstance(step, ir.Function):
        raise call_error(call, f"the first argument of {ENTRY} must be the step function "
                         f"itself, not {value_text(step)}")
    if step.is_declaration:
        raise call_error(call, f"{ENTRY}: the step function {step.name} has no definition "
                         "in this module")
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    parsed = _parse(call, b, args[1:])
    step_args = step_arguments(call, b, step, parsed.args, ENTRY)
    if not (step.return_type.is_integer):
        raise call_error(call, f"{ENTRY}: the step function {step.name} must return whether "
                         f"to iterate again (an integer), not {step.return_type}")
    values: list[ir.Value] = []
    for ptr, size in (*parsed.states, *parsed.regions):
        values += [ptr, size]
    values += [parsed.reduction, parsed.max_iters, parsed.control, *step_args]
    loop = make_loop_function(ctx, step, len(parsed.states), len(parsed.regions), values)
    b.call(loop, values)
    call.erase_from_parent()


def make_loop_function(ctx: DerivativeContext, step: ir.Function, states: int, regions: int,
                       values: list[ir.Value], *, adjoint: ir.Function | None = None
                       ) -> ir.Function:
    """The loop function of ``step`` for a call with ``values`` (the states' and regions'
    (pointer, bytes) pairs, reduction, max_iters, control, the step's arguments); the
    derivatives iterate ``adjoint`` (default: the step itself)."""
    first = 2 * (states + regions) + 3
    floats = tuple(_holds_floats(step, values[2 * k], values[first:]) for k in range(states))
    spec = FixedPointLoop(step, states, regions, step.function_type.params[0].is_pointer,
                          floats, adjoint)
    return _loop_function(ctx, spec, [v.type for v in values])


def _parse(call: ir.CallInst, b: ir.IRBuilder, rest: list[ir.Value]) -> _Parsed:
    out = _Parsed([], [], ir.ConstantFP(ir.double, DEFAULT_REDUCTION),
                  ir.ConstantInt(ir.i64, DEFAULT_MAX_ITERS), ir.ConstantPointerNull(ir.ptr), [])
    k = 0
    while k < len(rest):
        name = marker_name(rest[k])
        if name is None:
            break
        k += 1
        if name in ("enzyme_fp_state", "enzyme_checkpoint_region"):
            ptr = marker_pointer(call, rest, k, name, ENTRY)
            size = marker_integer(call, b, rest, k + 1, name, ENTRY)
            (out.states if name == "enzyme_fp_state" else out.regions).append((ptr, size))
            k += 2
        elif name == "enzyme_fp_reduction":
            out.reduction = _double(call, b, rest, k, name)
            k += 1
        elif name == "enzyme_fp_max_iters":
            out.max_iters = marker_integer(call, b, rest, k, name, ENTRY)
            k += 1
        elif name == "enzyme_fp_control":
            out.control = marker_pointer(call, rest, k, name, ENTRY)
            k += 1
        elif name in ACTIVITY_MARKERS:
            raise call_error(call, f"{ENTRY} takes no activity markers ({name}): its "
                             "arguments take part as in the derivative that runs it")
        else:
            raise call_error(call, f"{name} is not a marker of {ENTRY} (enzyme_fp_state, "
                             "enzyme_fp_reduction, enzyme_fp_max_iters, enzyme_fp_control, "
                             "enzyme_checkpoint_region)")
    out.args = rest[k:]
    if not out.states:
        raise call_error(call, f"{ENTRY} needs at least one 'enzyme_fp_state, pointer, "
                         "bytes': the state each iteration reads and overwrites")
    return out


def _double(call: ir.CallInst, b: ir.IRBuilder, rest: list[ir.Value], k: int,
            after: str) -> ir.Value:
    v = marker_value(call, rest, k, after, ENTRY)
    if v.type.is_pointer:  # by reference (Fortran)
        v = b.load(ir.double, v)
    if not v.type.is_float:
        raise call_error(call, f"{after} in {ENTRY} takes a floating-point value, not "
                         f"{value_text(v)}")
    return coerce_scalar(b, v, ir.double)


def _holds_floats(step: ir.Function, state: ir.Value, args: list[ir.Value]) -> bool:
    """Does the step read the state as ``float`` (else it holds doubles)? The state is
    one of the step's arguments, or a global."""
    bases: set[ir.Value] = {step.args[k + 1] for k, v in enumerate(args)
                            if v is state and k + 1 < len(step.args)}
    base = underlying_object(state)
    if isinstance(base, ir.GlobalVariable):
        bases.add(base)
    widths = {inst.type for fn in reachable_functions([step]) for inst in fn.instructions()
              if isinstance(inst, ir.LoadInst) and inst.type.is_float
              and underlying_object(inst.pointer) in bases}
    return widths == {ir.float_}


def _loop_function(ctx: DerivativeContext, spec: FixedPointLoop,
                   types: list[ir.Type]) -> ir.Function:
    """``i = 0; while (step(i++, args...)); return i;`` over the loop function's
    parameters (the states, regions and limits are read only by its derivatives)."""
    module = ctx.module
    fn = ir.Function(module.unique_name(f"fixed_point.{spec.step.name}"),
                     ir.FunctionType(ir.i64, types), "internal")
    module.add_function(fn)
    fn.fn_attrs.append("noinline")
    entry = fn.append_basic_block("entry")
    body = fn.append_basic_block("iteration")
    done = fn.append_basic_block("converged")
    b = ir.IRBuilder(entry)
    slot = b.alloca(ir.i64) if spec.counter_by_reference else None
    b.br(body)
    b.position_at_end(body)
    i = b.phi(ir.i64, [(ir.ConstantInt(ir.i64, 0), entry)], name="i")
    counter: ir.Value = i
    if slot is not None:
        b.store(i, slot)
        counter = slot
    else:
        counter = coerce_scalar(b, i, spec.step.function_type.params[0])
    again = b.call(spec.step, [counter, *fn.args[spec.first_argument:]])
    nxt = b.add(i, ir.ConstantInt(ir.i64, 1))
    i.add_incoming(nxt, body)
    b.cond_br(b.icmp("ne", again, ir.ConstantInt(again.type, 0)), body, done)
    b.position_at_end(done)
    b.ret(nxt)
    ctx.constructs[fn] = partial(synthesize_fixed_point, spec)
    return fn


__all__ = ["DEFAULT_MAX_ITERS", "DEFAULT_REDUCTION", "lower_fixed_point_call",
           "make_loop_function"]
