"""Shadows of functions: Enzyme's convention for function pointers in active memory.

The shadow of a function ``f`` is a constant global holding its derivatives:

* reverse mode: ``{ptr augmented_f, ptr reverse_f}`` -- what ``__enzyme_virtualreverse(f)``
  returns and what a derivative stores into shadow memory where the primal stores ``f``;
* forward mode: ``{ptr fwddiffe_f}`` (one table per vector width).

The derivatives in a table cannot know the activities of the call that will reach them,
so they use the *canonical* configuration (Enzyme's too): every pointer argument
duplicated, every floating-point argument active, integers constant; a floating-point
result active, a pointer result duplicated (its shadow returned), everything else
constant (:func:`canonical_config`).

A function that cannot be differentiated still gets a table (a function pointer may be
stored without ever being called with active arguments): its entries are the derivatives
of a stub that prints why and aborts (:func:`failing_primal`). External functions are
differentiated through a wrapper (:func:`callable_primal`): its derivative uses the rule
for a C math function, treats an inactive library function as inactive, and is an error
(``No derivative found``) for anything else.

The shadow of a constant global that holds functions (a C++ vtable, a table of callbacks)
is a copy in which every function is replaced by its table (:func:`shadow_global`).
"""

from __future__ import annotations

from dataclasses import replace

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.failures import emit_failure
from irgrad.ad.core.shadow_globals import global_activity_of, shadow_globals_of
from irgrad.analysis.activity import has_float, holds_pointers
from irgrad.analysis.fortran_runtime import is_fortran_type_description
from irgrad.analysis.function_pointers import (
    as_function,
    holds_functions,
    points_into_function_table,
)
from irgrad.analysis.global_activity import global_base
from irgrad.errors import DifferentiationError

REVERSE_MODES = (DerivativeMode.REVERSE_COMBINED, DerivativeMode.REVERSE_PRIMAL,
                 DerivativeMode.REVERSE_GRADIENT)


def canonical_config(fn: ir.Function, mode: DerivativeMode, width: int = 1) -> FnConfig:
    """The activities the derivatives in ``fn``'s shadow use (see the module docstring)."""
    forward = mode is DerivativeMode.FORWARD
    args: list[DiffeType] = []
    for p in fn.function_type.params:
        if p.is_pointer or (forward and p.is_fp_or_fp_vector):
            args.append(DiffeType.DUP)
        elif not forward and has_float(p):
            args.append(DiffeType.OUT)
        else:
            args.append(DiffeType.CONST)
    ret = fn.return_type
    if forward:
        ret_dt = DiffeType.DUP if (ret.is_fp_or_fp_vector or ret.is_pointer) else DiffeType.CONST
        return FnConfig(fn, mode, tuple(args), ret_dt, width=width,
                        return_primal=not ret.is_void)
    if has_float(ret) and not ret.is_pointer:
        ret_dt = DiffeType.OUT
    elif holds_pointers(ret):
        ret_dt = DiffeType.DUP
    else:
        ret_dt = DiffeType.CONST
    return FnConfig(fn, DerivativeMode.REVERSE_PRIMAL, tuple(args), ret_dt)


def function_of_type(ft: ir.FunctionType) -> ir.Function:
    """A function of type ``ft`` that is in no module: the canonical configuration and
    the signatures of the derivatives a call through a table reaches are computed from
    it."""
    return ir.Function("__irgrad_table_call", ft, "", [f"a{k}" for k in range(len(ft.params))])


def table_type(mode: DerivativeMode) -> ir.StructType:
    """``{augmented, reverse}`` in reverse mode, ``{forward}`` in forward mode."""
    n = 1 if mode is DerivativeMode.FORWARD else 2
    return ir.StructType([ir.ptr] * n)


def shadow_table(ctx: DerivativeContext, fn: ir.Function, mode: DerivativeMode,
                 width: int = 1, *, strict: bool = False) -> ir.GlobalVariable:
    """The constant global that is ``fn``'s shadow in derivatives of ``mode``.
    ``strict``: a function that cannot be differentiated is an error (else its table
    holds derivatives that fail at run time)."""
    forward = mode is DerivativeMode.FORWARD
    key = ("function-shadow", fn, forward, width)
    got = ctx.analyses.get(key)
    if isinstance(got, ir.GlobalVariable):
        return got
    module = ctx.module
    prefix = "__irgrad_fwdshadow" if forward else "__irgrad_shadow"
    if forward and width > 1:
        prefix += str(width)
    ty = table_type(mode)
    gv = ir.GlobalVariable(module.unique_name(f"{prefix}.{fn.name}"), ty,
                           ir.ConstantAggregateZero(ty), True, "internal")
    module.add_global(gv)
    ctx.analyses[key] = gv  # before synthesis: a function that stores its own address
    try:
        entries = _table_entries(ctx, fn, mode, width, strict)
    except BaseException:
        del ctx.analyses[key]
        ctx.module.remove_global(gv)
        raise
    gv.initializer = ir.ConstantStruct(ty, entries)
    return gv


def _table_entries(ctx: DerivativeContext, fn: ir.Function, mode: DerivativeMode,
                   width: int, strict: bool) -> list[ir.Value]:
    primal = callable_primal(ctx, fn)
    try:
        return _derivatives(ctx, canonical_config(primal, mode, width))
    except DifferentiationError as exc:
        if strict:
            raise
        stub = failing_primal(ctx, fn.function_type,
                              f"irgrad: no derivative for {fn.name}, reached through a "
                              f"function pointer: {exc}")
        return _derivatives(ctx, canonical_config(stub, mode, width))


def _derivatives(ctx: DerivativeContext, config: FnConfig) -> list[ir.Value]:
    if config.mode is DerivativeMode.FORWARD:
        return [ctx.get_or_create(config)]
    return list(ctx.augmented_pair(config))


def shadow_of_constant(ctx: DerivativeContext, c: ir.Value, mode: DerivativeMode,
                       width: int = 1, *, strict: bool = False) -> ir.Value | None:
    """The shadow of a constant pointer: a function's table, or the same offset into the
    shadow of a constant global holding functions, or flang's description of a derived
    type itself; None when the constant has none."""
    fn = as_function(c)
    if fn is not None:
        return shadow_table(ctx, fn, mode, width, strict=strict)
    if is_fortran_type_description(c):
        return c  # metadata, its own shadow
    if isinstance(c, ir.GlobalVariable):
        return shadow_global(ctx, c, mode, width)
    if isinstance(c, ir.ConstantExpr) and c.opcode in ("getelementptr", "bitcast",
                                                        "addrspacecast"):
        base = shadow_of_constant(ctx, c.operands[0], mode, width)
        if base is None:
            return None
        return ir.ConstantExpr(c.opcode, c.type, [base, *c.operands[1:]], c.flags,
                               c.predicate, c.source_type)
    return None


def constant_has_shadow(c: ir.Value) -> bool:
    """Whether :func:`shadow_of_constant` gives ``c`` a shadow."""
    return (as_function(c) is not None or points_into_function_table(c)
            or is_fortran_type_description(global_base(c)))


def shadow_global(ctx: DerivativeContext, gv: ir.GlobalVariable, mode: DerivativeMode,
                  width: int = 1) -> ir.GlobalVariable | None:
    """The shadow of constant global ``gv`` holding functions (a vtable, a table of
    ``{callback, weight, coefficients}`` records): a copy in which each function is its
    table, each floating-point value is zero (the table is constant) and each pointer to
    floating-point data is the shadow of that data (:func:`_data_pointer_shadow`); integers
    and pointers to other data stay as they are (bookkeeping, names, type info). Reverse
    mode adds the adjoints of the table's values into it, so there it is writable."""
    if not holds_functions(gv):
        return None
    forward = mode is DerivativeMode.FORWARD
    key = ("global-shadow", gv, forward, width)
    got = ctx.analyses.get(key)
    if isinstance(got, ir.GlobalVariable):
        return got
    init = gv.initializer
    assert init is not None
    shadow = ir.GlobalVariable(ctx.module.unique_name(gv.name + ".shadow"), gv.value_type,
                               ir.ConstantAggregateZero(gv.value_type), forward, "internal")
    shadow.align = gv.align
    ctx.module.add_global(shadow)
    ctx.analyses[key] = shadow
    shadow.initializer = _shadow_initializer(ctx, init, mode, width)
    return shadow


def _shadow_initializer(ctx: DerivativeContext, c: ir.Value, mode: DerivativeMode,
                        width: int) -> ir.Value:
    fn = as_function(c)
    if fn is not None:
        return shadow_table(ctx, fn, mode, width)
    if isinstance(c, ir.ConstantAggregate):
        elems = [_shadow_initializer(ctx, e, mode, width) for e in c.elements]
        if all(a is b for a, b in zip(elems, c.elements, strict=True)):
            return c
        return type(c)(c.type, elems)
    if isinstance(c, ir.ConstantFP | ir.ConstantDataString) and has_float(c.type):
        return ir.null_value(c.type)
    if c.type.is_pointer and isinstance(c, ir.Constant):
        return _data_pointer_shadow(ctx, c, mode, width)
    return c


def _data_pointer_shadow(ctx: DerivativeContext, c: ir.Constant, mode: DerivativeMode,
                         width: int) -> ir.Value:
    """The shadow of a constant pointer kept in a table of functions: another such table's
    shadow; for a global holding floating-point data, its shadow global when it is active,
    else its zero shadow (forward) or sink (reverse), as for a constant global read
    directly. Anything else (null, strings, type info) is itself."""
    g = global_base(c)
    if g is None or not isinstance(g, ir.GlobalVariable):
        return c
    if holds_functions(g):
        got = shadow_of_constant(ctx, c, mode, width)
        return c if got is None else got
    if not has_float(g.value_type):
        return c
    shadows = shadow_globals_of(ctx)
    why = shadows.why_not(g)
    if why is not None:
        raise DifferentiationError(f"a table of functions points to global @{g.name}, which "
                                   f"has no shadow: {why}")
    if g in global_activity_of(ctx).active:
        if width != 1:
            raise DifferentiationError(
                f"a table of functions points to active global @{g.name}: vector forward "
                "mode (enzyme_width > 1) through such a table is not supported")
        return shadows.rebuild(c, shadows.shadow(g))
    reverse = mode is not DerivativeMode.FORWARD
    return shadows.rebuild(c, shadows.constant_shadow(g, reverse=reverse))


# -- primal functions the tables and dispatchers differentiate ------------------------------
def callable_primal(ctx: DerivativeContext, fn: ir.Function) -> ir.Function:
    """``fn`` itself when it has a body; for an external function a wrapper that calls it
    (so the rule of a C math function, or its inactivity, applies)."""
    if not fn.is_declaration:
        return fn
    key = ("wrapper", fn)
    got = ctx.analyses.get(key)
    if isinstance(got, ir.Function):
        return got
    ft = fn.function_type
    wrap = ir.Function(ctx.module.unique_name(f"__irgrad_wrap.{fn.name}"), ft, "internal",
                       [f"a{k}" for k in range(len(ft.params))])
    ctx.module.add_function(wrap)
    b = ir.IRBuilder(wrap.append_basic_block("entry"))
    r = b.call(fn, list(wrap.args), ft)
    if ft.return_type.is_void:
        b.ret_void()
    else:
        b.ret(r)
    ctx.analyses[key] = wrap
    return wrap


def failing_primal(ctx: DerivativeContext, ft: ir.FunctionType, message: str) -> ir.Function:
    """A function of type ``ft`` that prints ``message`` and aborts: its derivatives stand
    where a derivative does not exist (they fail only if they are ever called)."""
    key = ("failing", ft, message)
    got = ctx.analyses.get(key)
    if isinstance(got, ir.Function):
        return got
    fn = ir.Function(ctx.module.unique_name("__irgrad_no_derivative"), ft, "internal",
                     [f"a{k}" for k in range(len(ft.params))])
    ctx.module.add_function(fn)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    emit_failure(b, ctx.module, message)
    ctx.analyses[key] = fn
    return fn


def shadow_config(config: FnConfig, fn: ir.Function) -> FnConfig:
    """``config`` for another function of the same type (a dispatcher's candidate)."""
    return replace(config, function=fn)


__all__ = [
    "REVERSE_MODES",
    "callable_primal",
    "canonical_config",
    "constant_has_shadow",
    "failing_primal",
    "function_of_type",
    "shadow_config",
    "shadow_global",
    "shadow_of_constant",
    "shadow_table",
    "table_type",
]
