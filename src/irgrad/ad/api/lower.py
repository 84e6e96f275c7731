"""Lowering of the user's ``__enzyme_*`` calls to synthesized derivatives.

Each call (read by :mod:`irgrad.ad.api.entry_calls`) becomes a :class:`FnConfig`; the
:class:`DerivativeContext` synthesizes the derivative (forward mode from
:mod:`irgrad.ad.forward`, reverse and split mode from :mod:`irgrad.ad.reverse`), and the
call is replaced by a call to it, with its arguments and result adapted to the user's
call (split mode: :mod:`irgrad.ad.api.split`). Afterwards no reference to a marker global
or an ``__enzyme_*`` declaration remains.

Nested AD: before the first derivative of a function is synthesized, the context's
``prepare`` hook (:func:`lower_nested_calls`) lowers every ``__enzyme_*`` call in that
function and in the functions it calls, wherever they sit (``static`` helpers, template
instantiations, lambdas, callees several calls deep), so the synthesizers only ever see
calls of derivatives. The calls of a module are therefore lowered innermost first,
whatever order they come in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from irgrad import ir
from irgrad.ad.api.batch import lower_batch_call
from irgrad.ad.api.blas_derivatives import synthesize_blas
from irgrad.ad.api.checkpoint_loop import lower_checkpoint_call
from irgrad.ad.api.entry_calls import SPLIT_MODES, ParsedCall, call_error, parse_call
from irgrad.ad.api.fixed_point import lower_fixed_point_call
from irgrad.ad.api.fixed_point_marked import lower_marked_fixed_point
from irgrad.ad.api.fortran_derivatives import synthesize_fortran
from irgrad.ad.api.hints import advance_iterations, check_hints, resolve_hints
from irgrad.ad.api.integer_pointers import restore_pointers_in
from irgrad.ad.api.markers import EntryKind, entry_kind, enzyme_calls, remove_markers
from irgrad.ad.api.registrations import Registrations, read_registrations
from irgrad.ad.api.requests import combined_config, derivative_arguments, get_derivative
from irgrad.ad.api.results import replace_result, return_activity
from irgrad.ad.api.small_loops import differentiated_functions as reachable_definitions
from irgrad.ad.api.split import lower_augmentsize, lower_split_call
from irgrad.ad.api.vector_reverse import lower_vector_reverse
from irgrad.ad.api.virtual import lower_virtual_reverse
from irgrad.ad.core.config import DerivativeMode, FnConfig
from irgrad.ad.core.context import ContextHooks, DerivativeContext
from irgrad.ad.core.defined_lanes import define_undefined_lanes
from irgrad.ad.core.derived_attributes import stamp_target_attributes
from irgrad.ad.core.invoke import lower_invoke
from irgrad.ad.core.known_asm import replace_known_asm
from irgrad.ad.core.lane_shifts import replace_lane_shifts
from irgrad.ad.core.shadow_globals import set_roots, zero_shadows_before
from irgrad.ad.forward.function import create_forward_diff
from irgrad.ad.reverse.augmented import create_augmented_pair
from irgrad.ad.reverse.explain import EXPLAIN_KEY, DerivativeReport
from irgrad.ad.reverse.function import create_primal_and_gradient

SYNTHESIZERS = {
    DerivativeMode.FORWARD: create_forward_diff,
    DerivativeMode.REVERSE_COMBINED: create_primal_and_gradient,
    DerivativeMode.REVERSE_PRIMAL: create_augmented_pair,
    DerivativeMode.REVERSE_GRADIENT: create_augmented_pair,
}


def _library(ctx: DerivativeContext, config: FnConfig) -> ir.Function | None:
    """Derivatives of library routines from their rule tables (BLAS/LAPACK, flang's
    runtime)."""
    return synthesize_blas(ctx, config) or synthesize_fortran(ctx, config)


def new_context(module: ir.Module, registrations: Registrations | None = None
                ) -> DerivativeContext:
    """A derivative context for ``module`` that synthesizes every derivative mode and
    honours the module's registrations (custom derivatives, inactive functions...)."""
    reg = registrations if registrations is not None else read_registrations(module)
    return DerivativeContext(module, SYNTHESIZERS, ContextHooks(
        prepare=lower_nested_calls, finish=advance_iterations, library=_library),
        custom=reg.custom, known=reg.known())


def _reachable_functions(fn: ir.Function, done: set[ir.Function]) -> list[ir.Function]:
    """``fn`` and the defined functions it calls, transitively (direct calls); the search
    stops at functions in ``done`` (prepared before, with everything they call)."""
    seen: dict[ir.Function, None] = {}
    work = [fn]
    while work:
        f = work.pop()
        if f in seen or f.is_declaration or f in done:
            continue
        seen[f] = None
        for inst in f.instructions():
            if isinstance(inst, ir.CallBase):
                callee = inst.called_function
                if callee is not None and callee not in seen:
                    work.append(callee)
    return list(seen)


def lower_nested_calls(ctx: DerivativeContext, fn: ir.Function) -> None:
    """Lower the ``__enzyme_*`` calls in ``fn`` and in what it calls (once per function),
    give their undefined vector lanes a value (:mod:`irgrad.ad.core.defined_lanes`) and
    replace the inline assembly that computes a known operation by its intrinsic
    (:mod:`irgrad.ad.core.known_asm`)."""
    state = ctx.analyses.setdefault("api.prepared", set())
    assert isinstance(state, set)
    for f in _reachable_functions(fn, state):
        if f in state:
            continue
        state.add(f)  # before lowering: a request for f's own derivative inside f stops here
        define_undefined_lanes(f)
        replace_known_asm(f)
        replace_lane_shifts(f)
        found = [(call, kind) for call in f.instructions()
                 if isinstance(call, ir.CallBase) and call.called_function is not None
                 and (kind := entry_kind(call.called_function.name)) is not None]
        for call, kind in sizes_first(found):
            if call.parent is not None:
                lower_call(ctx, call, kind)


def sizes_first(calls: Iterable[tuple[ir.CallBase, EntryKind]]
                ) -> list[tuple[ir.CallBase, EntryKind]]:
    """``calls`` with every ``__enzyme_augmentsize`` first (else in their order): each
    becomes the constant an ``enzyme_allocated, N`` of a split call may need, wherever
    the split calls are, and whatever was lowered before them."""
    return sorted(calls, key=lambda c: c[1] is not EntryKind.AUGMENTSIZE)


_NOT_SUPPORTED = {
    EntryKind.FWDSPLIT: "__enzyme_fwdsplit (forward split mode) is not supported: irgrad's "
    "tape holds what a reverse pass needs, not a forward sweep's inputs; use "
    "__enzyme_fwddiff, or split reverse mode (__enzyme_augmentfwd / __enzyme_reverse)",
    **{k: f"{k.prefix}: floating-point truncation and error estimation are not supported"
       for k in (EntryKind.TRUNCATE, EntryKind.EXPAND, EntryKind.ERROR_ESTIMATE)},
    **{k: f"{k.prefix}: probabilistic programming is not supported"
       for k in (EntryKind.TRACE, EntryKind.CONDITION, EntryKind.SAMPLE, EntryKind.OBSERVE)},
    EntryKind.TODENSE: "__enzyme_todense (sparse shadows) is not supported",
}


def lower_call(ctx: DerivativeContext, call: ir.CallBase,
               kind: EntryKind | DerivativeMode) -> None:
    """Replace one ``__enzyme_*`` call by a call to the synthesized derivative."""
    if isinstance(kind, DerivativeMode):  # the mode only (older callers)
        callee = call.called_function
        found = entry_kind(callee.name) if callee is not None else None
        if found is None:
            raise call_error(call, "not a call of an __enzyme_* entry point")
        kind = found
    entry = kind.prefix
    if kind in _NOT_SUPPORTED:
        raise call_error(call, _NOT_SUPPORTED[kind])
    if kind is EntryKind.VIRTUALREVERSE:
        lower_virtual_reverse(ctx, call)
        return
    if isinstance(call, ir.InvokeInst):  # C++: a call + branch, as Enzyme does
        call = lower_invoke(call)
    if not isinstance(call, ir.CallInst):
        raise call_error(call, f"{entry} must be called with 'call' (not {call.opcode})")
    if kind is EntryKind.AUGMENTSIZE:
        lower_augmentsize(ctx, call)
        return
    if kind is EntryKind.BATCH:
        lower_batch_call(ctx, call)
        return
    if kind is EntryKind.FIXED_POINT:
        lower_fixed_point_call(ctx, call)
        return
    if kind is EntryKind.SET_FIXED_POINT:
        lower_marked_fixed_point(ctx, call)
        return
    if kind in (EntryKind.CHECKPOINT_FOR, EntryKind.CHECKPOINT_WHILE):
        lower_checkpoint_call(ctx, call, entry)
        return
    mode = kind.mode
    parsed = parse_call(call, mode, ctx.module, kind, ctx.has_derivative_without_body)
    if mode in SPLIT_MODES:
        lower_split_call(ctx, call, parsed, entry)
        return
    _check_combined(call, parsed)
    if parsed.width > 1 and mode is DerivativeMode.REVERSE_COMBINED:
        lower_vector_reverse(ctx, call, parsed, return_activity(parsed, call))
        return
    config = combined_config(parsed, call)
    derivative = get_derivative(ctx, call, config)
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    zero_shadows_before(ctx, b, derivative)
    values = derivative_arguments(b, parsed, derivative, config, 0)
    new_call = b.call(derivative, values)
    result: ir.Value | None = None if new_call.type.is_void else new_call
    replace_result(b, call, parsed, result, entry)
    call.erase_from_parent()


def _check_combined(call: ir.CallInst, parsed: ParsedCall) -> None:
    for name, given in (("enzyme_tape", parsed.tape is not None),
                        ("enzyme_allocated", parsed.allocated is not None)):
        if given:
            raise call_error(call, f"{name} is only valid in split mode (__enzyme_augmentfwd "
                             "/ __enzyme_reverse)")
    if parsed.nofree:
        raise call_error(call, f"enzyme_nofree is only valid in split mode ({parsed.entry} "
                         "frees what it allocates when it returns)")
    if parsed.not_overwritten and parsed.mode is DerivativeMode.FORWARD:
        raise call_error(call, "enzyme_not_overwritten is a promise for split reverse mode; "
                         f"{parsed.entry} does not keep a tape")


def lower_enzyme_calls(module: ir.Module,
                       explain: list[DerivativeReport] | None = None) -> ir.Module:
    """Replace every ``__enzyme_*`` call in ``module`` by what it asks for; remove the
    markers, the entry point declarations and Enzyme's hints. With ``explain``, the
    report of every reverse-mode derivative made is appended to it
    (:mod:`irgrad.ad.reverse.explain`)."""
    registrations = read_registrations(module)  # checked even when nothing is differentiated
    check_hints(module)
    before = {f.name for f in module.functions}
    calls = enzyme_calls(module)
    if calls:  # pointers carried through integers become pointers again (their shadows)
        restore_pointers_in(reachable_definitions(module))
    ctx = new_context(module, registrations)
    if explain is not None:
        ctx.analyses[EXPLAIN_KEY] = explain
    roots = differentiated_functions(c for c, _ in calls)
    if roots is not None:  # global activity looks only at what these can reach
        set_roots(ctx, roots)
    for call, kind in sizes_first(calls):
        if call.parent is not None:  # not lowered already as a nested call
            lower_call(ctx, call, kind)
    remove_markers(module)
    resolve_hints(module)
    for f in list(module.functions):  # helpers declared on the way and never called
        if f.is_declaration and not f.uses and f.name not in before:
            module.remove_function(f)
    stamp_target_attributes(module, before)
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
    check_hints(module)
    before = {f.name for f in module.functions}
    ctx = new_context(module)
    roots = differentiated_functions(calls)
    if roots is not None:
        set_roots(ctx, roots)
    found = [(call, kind) for call in calls if call.called_function is not None
             and (kind := entry_kind(call.called_function.name)) is not None]
    for call, kind in sizes_first(found):
        if call.parent is not None:
            lower_call(ctx, call, kind)
    remove_markers(module)
    resolve_hints(module)
    stamp_target_attributes(module, before)
