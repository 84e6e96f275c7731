"""Derivatives made of the user's custom derivative functions.

A derivative request (:class:`FnConfig`) for a function with a registered custom
derivative gets a small wrapper with irgrad's own signature for that mode
(:mod:`irgrad.ad.core.signatures`), which calls the user's functions with Enzyme's
calling convention (:mod:`irgrad.ad.core.custom_derivatives`):

* reverse, combined (``diffe_<f>``): the augmented forward pass, then the reverse pass
  with its tape;
* split (``augmented_<f>`` / ``reverse_<f>``): the augmented forward pass returns
  irgrad's tape pointer: the user's tape itself when it is a pointer, else the user's
  tape stored in a heap box that the reverse wrapper reads and frees;
* forward (``fwddiffe_<f>``): the forward derivative (``{result, tangent}``); with a
  split forward registration the augmented forward pass first, its tape to the split
  forward derivative.

The activities of one request are mapped onto the full-activity convention: an inactive
floating-point argument gets a zero tangent (forward) or its derivative is dropped
(reverse); an inactive pointer gets a null shadow, which custom code must test before it
reads or adds into it (Enzyme passes the primal pointer instead, so custom code adding
into that "shadow" would corrupt the input).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.custom_derivatives import (
    AugmentedLayout,
    Custom,
    CustomForward,
    CustomFunction,
    CustomGradient,
    Param,
    Role,
    active_scalars,
)
from irgrad.ad.core.signatures import (
    augmented_return_type,
    forward_return_type,
    reverse_signature,
)
from irgrad.analysis.layout import alloc_size
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.core.context import DerivativeContext

_SHADOWED = (DiffeType.DUP, DiffeType.DUP_NONEED)


def synthesize_custom(ctx: DerivativeContext, config: FnConfig, custom: Custom) -> ir.Function:
    """The derivative ``config`` asks for, made of the registered functions."""
    if config.mode is DerivativeMode.FORWARD:
        assert isinstance(custom, CustomForward)
        return _forward(ctx, config, custom)
    assert isinstance(custom, CustomGradient)
    if config.mode is DerivativeMode.REVERSE_COMBINED:
        return _combined(ctx, config, custom)
    return _split_pair(ctx, config, custom)


# -- the wrapper's parameters ------------------------------------------------------------


@dataclass
class _Inputs:
    """The wrapper's parameters, by original argument."""

    primals: list[ir.Value]
    shadows: list[ir.Value | None]
    dret: ir.Value | None = None
    tape: ir.Value | None = None


def _new_function(ctx: DerivativeContext, prefix: str, config: FnConfig,
                  ft: ir.FunctionType, names: list[str | None]) -> ir.Function:
    module = ctx.module
    fn = ir.Function(module.unique_name(f"{prefix}_{config.function.name}"), ft, "internal",
                     names)
    module.add_function(fn)
    fn.blocks.append(ir.BasicBlock("entry", fn))
    return fn


def _inputs(fn: ir.Function, config: FnConfig, *, dret: bool, tape: bool) -> _Inputs:
    args = list(fn.args)
    k = 0
    inputs = _Inputs([], [])
    for dt in config.arg_types:
        inputs.primals.append(args[k])
        k += 1
        if dt in _SHADOWED:
            inputs.shadows.append(args[k])
            k += 1
        else:
            inputs.shadows.append(None)
    if dret:
        inputs.dret = args[k]
        k += 1
    if tape:
        inputs.tape = args[k]
        k += 1
    assert k == len(args), (fn.name, k, len(args))
    return inputs


def _argument(p: Param, inputs: _Inputs) -> ir.Value:
    if p.role in (Role.PRIMAL, Role.INT_COPY):
        return inputs.primals[p.index]
    if p.role is Role.SHADOW:
        shadow = inputs.shadows[p.index]
        if shadow is not None:
            return shadow
        # inactive at this call: a zero tangent, or a null shadow pointer (Enzyme passes
        # the primal pointer, which custom code adding into its shadow would overwrite)
        return ir.null_value(p.type)
    if p.role is Role.DRET:
        return inputs.dret if inputs.dret is not None else ir.null_value(p.type)
    assert p.role is Role.TAPE and inputs.tape is not None
    return inputs.tape


def _call(b: IRBuilder, cf: CustomFunction, inputs: _Inputs) -> ir.Value | None:
    """Call a registered function; its result (read from ``sret`` memory if need be)."""
    args = [_argument(p, inputs) for p in cf.params]
    if cf.sret is not None:
        slot = b.alloca(cf.sret)
        b.call(cf.function, [slot, *args])
        return b.load(cf.sret, slot)
    res = b.call(cf.function, args)
    return None if res.type.is_void else res


def _element(b: IRBuilder, agg: ir.Value, k: int) -> ir.Value:
    if isinstance(agg.type, ir.VectorType):
        return b.extract_element(agg, ir.ConstantInt(ir.i32, k))
    return b.extract_value(agg, [k])


def _augmented_results(b: IRBuilder, custom: CustomGradient | CustomForward,
                       res: ir.Value | None, inputs: _Inputs
                       ) -> tuple[ir.Value | None, ir.Value | None]:
    """(tape, result) of a call of a custom augmented forward pass."""
    layout = custom.layout
    if layout is AugmentedLayout.PRIMAL:  # it returns nothing: the function gives the result
        return None, b.call(custom.function, inputs.primals)
    if layout is AugmentedLayout.TAPE:
        return res, None
    if layout is AugmentedLayout.RESULT:
        return None, res
    if layout is AugmentedLayout.TAPE_RESULT:
        assert res is not None
        return _element(b, res, 0), _element(b, res, 1)
    return None, None


# -- reverse mode --------------------------------------------------------------------------


def _derivatives(b: IRBuilder, config: FnConfig, res: ir.Value | None) -> ir.Value | None:
    """The wrapper's return value: the OUT arguments' derivatives from the custom reverse
    pass's result (which holds those of every floating-point argument)."""
    fn = config.function
    scalars = active_scalars(fn)
    outs = [k for k, dt in enumerate(config.arg_types) if dt is DiffeType.OUT]
    if not outs:
        return None
    assert res is not None
    ret_ty = ir.StructType([fn.args[k].type for k in outs])
    agg: ir.Value = ir.UndefValue(ret_ty)
    single = len(scalars) == 1 and res.type == fn.args[scalars[0]].type
    for j, k in enumerate(outs):
        d = res if single else b.extract_value(res, [scalars.index(k)])
        agg = b.insert_value(agg, d, [j])
    return agg


def _reverse_inputs(inputs: _Inputs, dret: ir.Value | None, tape: ir.Value | None) -> _Inputs:
    return _Inputs(inputs.primals, inputs.shadows, dret, tape)


def _combined(ctx: DerivativeContext, config: FnConfig, custom: CustomGradient) -> ir.Function:
    ft, names = reverse_signature(config)
    has_dret = len(ft.params) > sum(2 if dt in _SHADOWED else 1 for dt in config.arg_types)
    w = _new_function(ctx, "custom_diffe", config, ft, names)
    ctx.register(config, w)
    b = IRBuilder(w.blocks[0])
    inputs = _inputs(w, config, dret=has_dret, tape=False)
    res = _call(b, custom.augmented, inputs)
    tape, _ = _augmented_results(b, custom, res, inputs)
    d = _call(b, custom.reverse, _reverse_inputs(inputs, inputs.dret, tape))
    _return(b, _derivatives(b, config, d))
    return w


def _return(b: IRBuilder, value: ir.Value | None) -> None:
    if value is None:
        b.ret_void()
    else:
        b.ret(value)


def _split_pair(ctx: DerivativeContext, config: FnConfig, custom: CustomGradient) -> ir.Function:
    """``augmented_<f>`` and ``reverse_<f>``, both registered; the one asked for."""
    aug_cfg = replace(config, mode=DerivativeMode.REVERSE_PRIMAL)
    rev_cfg = replace(config, mode=DerivativeMode.REVERSE_GRADIENT)
    ft, names = reverse_signature(config)
    n_fwd = sum(2 if dt in _SHADOWED else 1 for dt in config.arg_types)
    has_dret = len(ft.params) > n_fwd
    aug = _new_function(ctx, "custom_augmented", config,
                        ir.FunctionType(augmented_return_type(config),
                                        ft.params[:n_fwd]), names[:n_fwd])
    rev = _new_function(ctx, "custom_reverse", config,
                        ir.FunctionType(ft.return_type, [*ft.params, ir.ptr]),
                        [*names, "tape"])
    ctx.register(aug_cfg, aug)
    ctx.register(rev_cfg, rev)
    try:
        _fill_augmented(ctx, aug, aug_cfg, custom)
        _fill_reverse(ctx, rev, rev_cfg, custom, has_dret)
    except BaseException:
        for f in (aug, rev):
            ctx.module.remove_function(f)
        ctx.cache.pop(aug_cfg, None)
        ctx.cache.pop(rev_cfg, None)
        raise
    return aug if config.mode is DerivativeMode.REVERSE_PRIMAL else rev


def _boxed(custom: CustomGradient | CustomForward) -> bool:
    """The user's tape travels in a heap box (it is neither a pointer nor empty)."""
    t = custom.tape_type
    return t is not None and not t.is_pointer and alloc_size(t) > 0


def _fill_augmented(ctx: DerivativeContext, aug: ir.Function, config: FnConfig,
                    custom: CustomGradient) -> None:
    b = IRBuilder(aug.blocks[0])
    inputs = _inputs(aug, config, dret=False, tape=False)
    res = _call(b, custom.augmented, inputs)
    tape, result = _augmented_results(b, custom, res, inputs)
    ptr: ir.Value = ir.ConstantPointerNull(ir.ptr)
    if tape is not None and tape.type.is_pointer:
        ptr = tape
    elif tape is not None and _boxed(custom):
        malloc = ctx.module.get_or_insert_function("malloc", ir.FunctionType(ir.ptr, [ir.i64]))
        ptr = b.call(malloc, [ir.ConstantInt(ir.i64, alloc_size(tape.type))], name="tape.box")
        b.store(tape, ptr)
    if config.function.return_type.is_void:
        b.ret(ptr)
        return
    assert result is not None
    agg = b.insert_value(ir.UndefValue(aug.return_type), ptr, [0])
    b.ret(b.insert_value(agg, result, [1]))


def _fill_reverse(ctx: DerivativeContext, rev: ir.Function, config: FnConfig,
                  custom: CustomGradient, has_dret: bool) -> None:
    b = IRBuilder(rev.blocks[0])
    inputs = _inputs(rev, config, dret=has_dret, tape=True)
    box = inputs.tape
    assert box is not None
    tape: ir.Value | None = None
    t = custom.tape_type
    if t is not None and t.is_pointer:
        tape = box
    elif t is not None and _boxed(custom):
        tape = b.load(t, box)
        free = ctx.module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
        b.call(free, [box])
    elif t is not None:
        tape = ir.null_value(t)
    d = _call(b, custom.reverse, _reverse_inputs(inputs, inputs.dret, tape))
    _return(b, _derivatives(b, config, d))


# -- forward mode --------------------------------------------------------------------------


def _forward(ctx: DerivativeContext, config: FnConfig, custom: CustomForward) -> ir.Function:
    fn = config.function
    if config.width != 1:
        raise DifferentiationError(
            f"the custom forward derivative of {fn.name} ({custom.source}) computes one "
            f"tangent; it cannot be used in vector forward mode (enzyme_width {config.width})")
    params: list[ir.Type] = []
    names: list[str | None] = []
    for arg, dt in zip(fn.args, config.arg_types, strict=True):
        params.append(arg.type)
        names.append(arg.name)
        if dt in _SHADOWED:
            params.append(arg.type)
            names.append(f"'{arg.name}" if arg.name else None)
    ft = ir.FunctionType(forward_return_type(config), params)
    w = _new_function(ctx, "custom_fwddiffe", config, ft, names)
    ctx.register(config, w)
    b = IRBuilder(w.blocks[0])
    inputs = _inputs(w, config, dret=False, tape=False)
    primal: ir.Value | None = None
    if custom.augmented is not None:
        res = _call(b, custom.augmented, inputs)
        inputs.tape, primal = _augmented_results(b, custom, res, inputs)
    res = _call(b, custom.forward, inputs)
    if fn.return_type.is_void:
        b.ret_void()
        return w
    assert res is not None
    if res.type == fn.return_type:  # a split forward derivative returning the tangent
        tangent = res
    else:
        primal, tangent = _element(b, res, 0), _element(b, res, 1)
    assert primal is not None
    ret_ty = w.return_type
    if ret_ty.is_void:
        b.ret_void()
    elif config.return_type is DiffeType.CONST:
        b.ret(primal)
    elif config.return_primal:
        agg = b.insert_value(ir.UndefValue(ret_ty), primal, [0])
        b.ret(b.insert_value(agg, tangent, [1]))
    else:
        b.ret(tangent)
    return w


__all__ = ["synthesize_custom"]
