"""Vector reverse mode: ``__enzyme_autodiff(f, enzyme_width, N, ...)``.

Each duplicated argument comes with N shadows (``enzyme_dup x, dx1, ..., dxN``, or one
strided buffer with ``enzyme_dupv``); lane k's adjoints are added into the k-th shadows,
the result of f is seeded with 1.0 in every lane, and the derivative of each
``enzyme_out`` argument comes back as N values (``{[N x double], ...}``; declare the call
returning a struct with N doubles per active scalar).

How: one combined derivative of f, called once per lane with that lane's shadows, so N
forward and N reverse sweeps (Enzyme runs one sweep carrying N adjoints). The lanes see
the same primal values only if running f again changes nothing that f reads, so f (and
what it calls) must not read memory it writes other than its own locals and heap
allocations: checked here, conservatively (memory reached through pointers loaded from
memory is assumed to be anything). A function that updates its inputs in place is an
error; use N ``__enzyme_autodiff`` calls, or split mode.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import ParsedCall, call_error
from irgrad.ad.api.requests import combined_config, derivative_arguments, get_derivative
from irgrad.ad.api.results import replace_result
from irgrad.ad.core.config import DiffeType
from irgrad.ad.core.context import DerivativeContext
from irgrad.analysis.known_functions import (
    allocator,
    callee_name,
    is_free,
    is_ignored_intrinsic,
    is_inactive_function,
    is_math_function,
    is_memory_transfer,
    is_memset,
)
from irgrad.analysis.underlying_objects import underlying_object

UNKNOWN = "memory reached through a pointer loaded from memory"


def lower_vector_reverse(ctx: DerivativeContext, call: ir.CallInst, parsed: ParsedCall,
                         ret: DiffeType) -> None:
    fn = parsed.function
    clash = _lane_clash(fn)
    if clash is not None:
        raise call_error(call, f"vector reverse mode (enzyme_width, {parsed.width} in "
                         f"{parsed.entry}) runs one reverse sweep per lane, which needs "
                         f"{fn.name} not to read memory it writes; it writes and reads "
                         f"{clash}: use one {parsed.entry} per lane")
    config = combined_config(parsed, call, width=1)
    derivative = get_derivative(ctx, call, config)
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    lanes = [b.call(derivative, derivative_arguments(b, parsed, derivative, config, lane))
             for lane in range(parsed.width)]
    result = _gather(b, parsed, lanes, config.return_primal)
    replace_result(b, call, parsed, result, parsed.entry)
    call.erase_from_parent()


def _gather(b: ir.IRBuilder, parsed: ParsedCall, lanes: list[ir.CallInst],
            primal: bool) -> ir.Value | None:
    """``{primal?, [N x T] per enzyme_out argument}`` from the lanes' ``{primal?, T...}``."""
    outs = [p.type for p, a in zip(parsed.primals, parsed.activities, strict=True)
            if a is DiffeType.OUT]
    fields: list[ir.Type] = [parsed.function.return_type] if primal else []
    fields += [ir.ArrayType(parsed.width, t) for t in outs]
    if not fields:
        return None
    agg: ir.Value = ir.UndefValue(ir.StructType(fields))
    k = 0
    if primal:
        agg = b.insert_value(agg, b.extract_value(lanes[0], [0]), [0])
        k = 1
    for j in range(len(outs)):
        for lane, r in enumerate(lanes):
            agg = b.insert_value(agg, b.extract_value(r, [k + j]), [k + j, lane])
    return agg


# -- may the lanes run one after another? ----------------------------------------------------
Root = object  # an Argument, a GlobalVariable, or UNKNOWN


class _Roots:
    def __init__(self) -> None:
        self.reads: set[Root] = set()
        self.writes: set[Root] = set()


def _lane_clash(fn: ir.Function) -> str | None:
    roots = _roots(fn, {})
    both = roots.reads & roots.writes
    if UNKNOWN in roots.writes and roots.reads:
        both.add(UNKNOWN)
    if UNKNOWN in roots.reads and roots.writes:
        both.add(UNKNOWN)
    if not both:
        return None
    names = sorted(_describe(r) for r in both)
    return ", ".join(names)


def _describe(root: Root) -> str:
    if isinstance(root, ir.Argument):
        return f"its argument {root.index + 1}"
    if isinstance(root, ir.GlobalVariable):
        return f"global @{root.name}"
    return str(root)


def _root(fn: ir.Function, pointer: ir.Value) -> Root | None:
    """The argument / global ``pointer`` is based on; None for ``fn``'s own memory."""
    base = underlying_object(pointer)
    if isinstance(base, ir.AllocaInst):
        return None
    if isinstance(base, ir.CallInst) and allocator(callee_name(base)) is not None:
        return None
    if isinstance(base, ir.Argument) and base.parent is fn:
        return base
    if isinstance(base, ir.GlobalVariable):
        return None if base.is_constant_global else base
    return UNKNOWN


def _roots(fn: ir.Function, memo: dict[ir.Function, _Roots]) -> _Roots:
    done = memo.get(fn)
    if done is not None:
        return done
    out = memo[fn] = _Roots()
    out.reads.add(UNKNOWN)  # while fn is being analysed (recursion): anything
    out.writes.add(UNKNOWN)
    result = _Roots()

    def note(into: set[Root], pointer: ir.Value) -> None:
        r = _root(fn, pointer)
        if r is not None:
            into.add(r)

    for inst in fn.instructions():
        if isinstance(inst, ir.LoadInst):
            note(result.reads, inst.pointer)
        elif isinstance(inst, ir.StoreInst | ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
            note(result.writes, inst.pointer)
        elif isinstance(inst, ir.CallBase):
            _call_roots(fn, inst, result, memo, note)
    memo[fn] = result
    return result


def _call_roots(fn: ir.Function, call: ir.CallBase, out: _Roots,
                memo: dict[ir.Function, _Roots], note: object) -> None:
    name = callee_name(call)
    callee = call.called_function
    assert callable(note)
    if name is None or callee is None:
        out.reads.add(UNKNOWN)
        out.writes.add(UNKNOWN)
        return
    if is_ignored_intrinsic(name) or is_inactive_function(name) or is_math_function(name):
        return
    if is_memory_transfer(name) or is_memset(name):
        note(out.writes, call.args[0])
        if is_memory_transfer(name):
            note(out.reads, call.args[1])
        return
    alloc = allocator(name)
    if alloc is not None:
        if alloc.reallocates is not None:
            note(out.writes, call.args[alloc.reallocates])
        return
    if is_free(name):
        note(out.writes, call.args[0])
        return
    if name.startswith("llvm."):
        return
    if callee.is_declaration:
        out.reads.add(UNKNOWN)
        out.writes.add(UNKNOWN)
        return
    inner = _roots(callee, memo)
    for src, dst in ((inner.reads, out.reads), (inner.writes, out.writes)):
        for r in src:
            if isinstance(r, ir.Argument) and r.index < len(call.args):
                note(dst, call.args[r.index])
            else:
                dst.add(r)
