"""Indirect calls with active arguments, differentiated through a *dispatcher*.

``call %fp(args)`` is differentiated as a call of a function the AD engine writes, the
dispatcher ``D(fp, args)``: it compares ``fp`` with each function the pointer may hold and
calls that function directly; the dispatcher is then differentiated like any other callee
(its augmented primal and reverse, or its forward derivative), so each target's derivative
gets the exact activities of the call -- an ``enzyme_const`` pointer argument stays
constant, a floating-point argument that is inactive costs nothing.

The candidates (:func:`candidates`):

* the targets the IR names (``!callees`` metadata -- LLVM adds it for internal
  functions --, a select of two functions, a vtable slot of a constant vtable, a global
  that only ever holds one function): the complete set;
* otherwise every function of the module with the call's type whose address is taken.

An external function among them without a derivative is a compile-time error that names
the call. A defined target that cannot be differentiated becomes a case that prints the
reason and aborts if it is ever reached: the set holds every target of the call anywhere
in the program, and this path may never see that one (a shared helper called with a
different callback elsewhere).

What the dispatcher does when ``fp`` is none of them (its *default*): when the call site
has a shadow of ``fp`` (the pointer was loaded from active memory or passed duplicated)
and of every pointer argument, it calls through the shadow -- the table
:mod:`irgrad.ad.core.function_shadows` put there, or what ``__enzyme_virtualreverse``
returned; otherwise it prints where the call is and aborts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from irgrad import ir
from irgrad.ad.core.config import FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.failures import emit_failure
from irgrad.ad.core.function_shadows import callable_primal
from irgrad.analysis.function_pointers import address_taken_functions, call_targets
from irgrad.errors import DifferentiationError

# (function the pointer is compared with, function called or the failure message)
Case = tuple[ir.Function, "ir.Function | str"]


class Dispatchers:
    """The dispatchers of one module (the calls in their default case go through the
    function pointer's shadow: :meth:`is_table_call`)."""

    def __init__(self) -> None:
        self.table_calls: set[ir.CallBase] = set()
        self.made: dict[tuple[object, ...], ir.Function] = {}
        self.functions: set[ir.Function] = set()


def dispatchers(ctx: DerivativeContext) -> Dispatchers:
    got = ctx.analyses.get("dispatchers")
    if not isinstance(got, Dispatchers):
        got = Dispatchers()
        ctx.analyses["dispatchers"] = got
    return got


def is_table_call(ctx: DerivativeContext, call: ir.CallBase) -> bool:
    """The default case of a dispatcher: a call through the shadow of its pointer."""
    return call in dispatchers(ctx).table_calls


def candidates(ctx: DerivativeContext, call: ir.CallBase) -> tuple[list[ir.Function], bool]:
    """The functions ``call`` may reach and whether that set is complete (see the module
    docstring)."""
    targets = call_targets(call)
    if targets is not None:
        return targets, True
    made = dispatchers(ctx).functions
    synthesized = set(ctx.cache.values())
    found = [f for f in address_taken_functions(ctx.module, call.function_type)
             if f not in synthesized and f not in made and not f.name.startswith("__irgrad")]
    return found, False


def dispatcher(ctx: DerivativeContext, call: ir.CallBase, *, through_shadow: bool,
               make_config: Callable[[ir.Function, bool], FnConfig],
               synthesize: Callable[[FnConfig], object],
               where: str) -> tuple[ir.Function, bool]:
    """The dispatcher for ``call`` whose derivative (``synthesize(make_config(D, open))``)
    exists; ``open``: its default case calls through the pointer's shadow (asked for with
    ``through_shadow``, not done when the IR names every target).
    ``where``: the call's location and function, for the messages."""
    targets, complete = candidates(ctx, call)
    if complete:
        through_shadow = False
    failing: dict[ir.Function, str] = {}
    for f in targets:
        if f.function_type != call.function_type:
            msg = (f"irgrad: the indirect call {where} reaches {f.name}, whose type "
                   f"{f.function_type} is not the call's {call.function_type}")
            if complete:
                raise DifferentiationError(msg.removeprefix("irgrad: "))
            failing[f] = msg
    if not targets and not through_shadow:
        raise DifferentiationError(
            f"No derivative found for the indirect call {where}: the function pointer "
            "has no shadow (it is not loaded from active memory or passed with a shadow) "
            f"and no function of type {call.function_type} in this module has its address "
            "taken, so irgrad cannot tell what it calls")
    default = None if through_shadow else (
        f"irgrad: the indirect call {where} reached a function that is not among the "
        f"{len(targets)} function(s) of its type in this module (no derivative for it)")
    while True:
        cases: list[Case] = [(f, failing.get(f) or callable_primal(ctx, f)) for f in targets]
        d = _build(ctx, call.function_type, cases, default)
        try:
            synthesize(make_config(d, through_shadow))
            return d, through_shadow
        except DifferentiationError as exc:
            culprit = _culprit(ctx, exc, d, cases)
            if culprit is not None and culprit.is_declaration:
                raise DifferentiationError(
                    f"No derivative found for {culprit.name}: the indirect call {where} "
                    "may reach it, and it is an external function without a definition "
                    "or a derivative rule") from None
            if culprit is None:
                raise
            failing[culprit] = (f"irgrad: the indirect call {where} reached {culprit.name}, "
                                f"which cannot be differentiated: {exc}")


def _culprit(ctx: DerivativeContext, exc: DifferentiationError, d: ir.Function,
             cases: Sequence[Case]) -> ir.Function | None:
    """The candidate whose derivative failed (the function synthesized right below the
    dispatcher when the error was raised)."""
    stack: list[ir.Function] = getattr(exc, "synthesis_stack", None) or []
    if d not in stack:
        return None
    k = stack.index(d)
    if k + 1 >= len(stack):
        return None
    below = stack[k + 1]
    for target, callee in cases:
        if callee is below or target is below:
            return target
    return None


def _build(ctx: DerivativeContext, ft: ir.FunctionType, cases: Sequence[Case],
           default: str | None) -> ir.Function:
    reg = dispatchers(ctx)
    key = (ft, tuple(cases), default)
    got = reg.made.get(key)
    if got is not None:
        return got
    module = ctx.module
    d = ir.Function(module.unique_name("__irgrad_dispatch"),
                    ir.FunctionType(ft.return_type, [ir.ptr, *ft.params]), "internal",
                    ["fp", *[f"a{k}" for k in range(len(ft.params))]])
    module.add_function(d)
    fp, args = d.args[0], list(d.args[1:])
    b = ir.IRBuilder(d.append_basic_block("entry"))
    for k, (target, callee) in enumerate(cases):
        hit = d.append_basic_block(f"case{k}")
        miss = d.append_basic_block(f"next{k}")
        b.cond_br(b.icmp("eq", fp, target), hit, miss)
        b.position_at_end(hit)
        if isinstance(callee, str):
            emit_failure(b, module, callee)
        else:
            _ret(b, b.call(callee, args, ft), ft)
        b.position_at_end(miss)
    if default is None:
        call = b.call(fp, args, ft)
        reg.table_calls.add(call)
        _ret(b, call, ft)
    else:
        emit_failure(b, module, default)
    reg.made[key] = d
    reg.functions.add(d)
    return d


def _ret(b: ir.IRBuilder, value: ir.Value, ft: ir.FunctionType) -> None:
    if ft.return_type.is_void:
        b.ret_void()
    else:
        b.ret(value)


__all__ = ["Dispatchers", "candidates", "dispatcher", "dispatchers", "is_table_call"]
