"""What the loop constructs of Enzyme's API share (``__enzyme_fixed_point``,
:mod:`irgrad.ad.api.fixed_point`; ``__enzyme_checkpoint_for`` / ``_while``,
:mod:`irgrad.ad.api.checkpoint_loop`): reading the values after their markers, the
globals a snapshot of a step's state holds, and the request for the step's derivative.

A construct's call becomes a call of a *loop function* the API layer makes, whose body is
the plain loop (so the analyses of its caller see what the loop reads and writes) and
whose derivatives the context asks the construct's synthesizer for
(:attr:`irgrad.ad.core.context.DerivativeContext.constructs`).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import call_error, value_text
from irgrad.ad.api.markers import marker_name
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.rules.emit import coerce_scalar
from irgrad.analysis.global_activity import reachable_functions
from irgrad.analysis.known_functions import callee_name
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.underlying_objects import underlying_object


# -- the values after a marker ----------------------------------------------------------
def marker_value(call: ir.CallInst, rest: list[ir.Value], k: int, after: str,
                 entry: str) -> ir.Value:
    if k >= len(rest) or marker_name(rest[k]) is not None:
        raise call_error(call, f"missing value after {after} in {entry}")
    return rest[k]


def marker_pointer(call: ir.CallInst, rest: list[ir.Value], k: int, after: str,
                   entry: str) -> ir.Value:
    v = marker_value(call, rest, k, after, entry)
    if not v.type.is_pointer:
        raise call_error(call, f"{after} in {entry} takes a pointer, not {value_text(v)}")
    return v


def marker_integer(call: ir.CallInst, b: ir.IRBuilder, rest: list[ir.Value], k: int,
                   after: str, entry: str) -> ir.Value:
    """An ``int64_t`` value (Fortran passes it by reference)."""
    v = marker_value(call, rest, k, after, entry)
    if v.type.is_pointer:
        v = b.load(ir.i64, v)
    if not v.type.is_integer:
        raise call_error(call, f"{after} in {entry} takes an integer (a byte count or a "
                         f"number of steps), not {value_text(v)}")
    return coerce_scalar(b, v, ir.i64)


def step_arguments(call: ir.CallInst, b: ir.IRBuilder, step: ir.Function,
                   args: list[ir.Value], entry: str) -> list[ir.Value]:
    """The step's arguments after its counter, converted to its parameter types."""
    params = step.function_type.params
    if not params or not (params[0].is_integer or params[0].is_pointer):
        raise call_error(call, f"{entry}: the step function {step.name} must take the "
                         "iteration counter (int64_t, or a pointer to it) first")
    if len(params) - 1 != len(args) and not step.function_type.var_arg:
        raise call_error(call, f"{entry}: {step.name} takes {len(params) - 1} argument(s) "
                         f"after its counter, the call passes {len(args)}")
    for v in args:
        if (name := marker_name(v)) is not None:
            raise call_error(call, f"{entry}: the marker {name} must come before the step's "
                             "arguments")
    out = []
    for k, v in enumerate(args):
        try:
            out.append(coerce_scalar(b, v, params[k + 1]) if k + 1 < len(params) else v)
        except ValueError:
            raise call_error(call, f"{entry}: argument {k + 1} after the counter of "
                             f"{step.name} ({params[k + 1]}) is passed {value_text(v)}"
                             ) from None
    return out


# -- snapshots ------------------------------------------------------------------------------
def _written_addresses(inst: ir.Instruction) -> list[ir.Value]:
    """The addresses ``inst`` writes through (stores, atomics, memory intrinsics, and the
    pointer arguments of calls of functions without a body)."""
    if isinstance(inst, ir.StoreInst):
        return [inst.pointer]
    if isinstance(inst, ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
        return [inst.operands[0]]
    if isinstance(inst, ir.CallBase):
        callee = inst.called_function
        name = callee_name(inst) or ""
        if name.startswith(("llvm.memset", "llvm.memcpy", "llvm.memmove")):
            return [inst.args[0]]
        if callee is not None and callee.is_declaration and not name.startswith("llvm."):
            return [a for a in inst.args if a.type.is_pointer]
    return []


def _globals_of(addresses: list[ir.Value]) -> list[ir.GlobalVariable]:
    out = []
    for a in addresses:
        base = underlying_object(a)
        if isinstance(base, ir.GlobalVariable) and not base.is_constant_global and \
                alloc_size(base.value_type) > 0:
            out.append(base)
    return out


def snapshot_globals(step: ir.Function) -> list[ir.GlobalVariable]:
    """The globals a snapshot of the step's state holds: those the step (or what it
    calls) writes, and those it reads that any other function of the module writes."""
    module = step.parent
    assert module is not None
    reach = reachable_functions([step])
    written: dict[ir.GlobalVariable, None] = {}
    read: dict[ir.GlobalVariable, None] = {}
    for fn in reach:
        for inst in fn.instructions():
            for g in _globals_of(_written_addresses(inst)):
                written[g] = None
            if isinstance(inst, ir.LoadInst):
                for g in _globals_of([inst.pointer]):
                    read[g] = None
    elsewhere: set[ir.GlobalVariable] = set()
    for fn in module.functions:
        if fn in reach or fn.is_declaration:
            continue
        for inst in fn.instructions():
            elsewhere.update(_globals_of(_written_addresses(inst)))
    return [*written, *(g for g in read if g in elsewhere and g not in written)]


def global_pieces(step: ir.Function) -> list[tuple[ir.Value, ir.Value]]:
    """(pointer, bytes) of each global a snapshot holds."""
    return [(g, ir.ConstantInt(ir.i64, alloc_size(g.value_type)))
            for g in snapshot_globals(step)]


# -- the step's derivative ------------------------------------------------------------------
def step_config(step: ir.Function, arg_types: tuple[DiffeType, ...], mode: DerivativeMode,
                *, return_primal: bool = False) -> FnConfig:
    """The derivative of the step (its counter constant) with the activities its loop
    function's request gives the step's arguments."""
    types = (DiffeType.CONST, *(DiffeType.DUP if a is DiffeType.DUP_NONEED else a
                                for a in arg_types))
    return FnConfig(step, mode, types, DiffeType.CONST, return_primal=return_primal)


def counter_value(b: ir.IRBuilder, fn: ir.Function, step: ir.Function,
                  counter: ir.Value) -> ir.Value:
    """The step's first argument for iteration ``counter`` (an ``i64``): the value in the
    counter's type, or a slot holding it when the step takes it by reference."""
    param = step.function_type.params[0]
    if param.is_pointer:
        eb = ir.IRBuilder()
        eb.position_at_start(fn.blocks[0])
        slot = eb.alloca(ir.i64)
        b.store(counter, slot)
        return slot
    return counter if param == ir.i64 else b.trunc(counter, param)


__all__ = ["counter_value", "global_pieces", "marker_integer", "marker_pointer",
           "marker_value", "snapshot_globals", "step_arguments", "step_config"]
