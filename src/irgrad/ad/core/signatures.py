"""The signatures of synthesized derivatives (docs/internals/ad-interfaces.md), in one
place: the synthesizers build their functions with them, and a call through a function's
shadow (an indirect call, :mod:`irgrad.ad.core.function_shadows`) calls a derivative it
does not hold as a :class:`~irgrad.ir.Function`, so it needs the type alone.

* reverse combined ``diffe_f(args, shadows..., [differeturn]) -> {OUT adjoints} | void``
  (led by ``f(x)`` with ``enzyme_primal_return``);
* augmented primal ``augmented_f(args, shadows...) -> tape | {tape, result} |
  {tape, result, shadow of the result}`` (the last when the pointer result is DUP);
* reverse of the split pair: the combined parameters, then ``ptr tape``;
* forward ``fwddiffe_f(args, tangents...) -> tangent | {primal, tangent} | primal``.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.config import DiffeType, FnConfig
from irgrad.analysis.activity import holds_address_type, holds_pointers


def reverse_signature(config: FnConfig) -> tuple[ir.FunctionType, list[str | None]]:
    """The combined reverse derivative's type and parameter names."""
    fn = config.function
    params: list[ir.Type] = []
    names: list[str | None] = []
    for arg, dt in zip(fn.args, config.arg_types, strict=True):
        params.append(arg.type)
        names.append(arg.name)
        if dt in (DiffeType.DUP, DiffeType.DUP_NONEED):
            params.append(arg.type)
            names.append("d" + arg.name if arg.name else None)
    if config.return_type is DiffeType.OUT and not fn.return_type.is_void:
        params.append(fn.return_type)
        names.append("differeturn")
    outs = [a.type for a, dt in zip(fn.args, config.arg_types, strict=True)
            if dt is DiffeType.OUT]
    if config.return_primal and not fn.return_type.is_void:
        outs.insert(0, fn.return_type)  # enzyme_primal_return: {f(x), df/dx...}
    ret: ir.Type = ir.StructType(outs) if outs else ir.void
    return ir.FunctionType(ret, params), names


def returns_shadow(config: FnConfig) -> bool:
    """The augmented primal also returns the shadow of its pointer result (or of the
    address it returns as an integer)."""
    ret = config.function.return_type
    return config.return_type in (DiffeType.DUP, DiffeType.DUP_NONEED) and (
        holds_pointers(ret) or holds_address_type(ret))


def augmented_return_type(config: FnConfig) -> ir.Type:
    """``ptr`` (the tape) for a void function, else ``{ptr, result}``, or ``{ptr, result,
    shadow}`` when the pointer result's shadow is returned too."""
    ret = config.function.return_type
    if ret.is_void:
        return ir.ptr
    if returns_shadow(config):
        return ir.StructType([ir.ptr, ret, ret])
    return ir.StructType([ir.ptr, ret])


def augmented_signature(config: FnConfig) -> ir.FunctionType:
    """``augmented_f``: the combined parameters without ``differeturn``."""
    ft, _ = reverse_signature(config)
    params = list(ft.params)
    if config.return_type is DiffeType.OUT and not config.function.return_type.is_void:
        params.pop()
    return ir.FunctionType(augmented_return_type(config), params)


def gradient_signature(config: FnConfig) -> ir.FunctionType:
    """``reverse_f`` of the split pair: the combined parameters, then the tape."""
    ft, _ = reverse_signature(config)
    return ir.FunctionType(ft.return_type, [*ft.params, ir.ptr])


def forward_return_type(config: FnConfig) -> ir.Type:
    """The forward derivative's return type."""
    ret = config.function.return_type
    if ret.is_void:
        return ir.void
    if config.return_type is DiffeType.CONST:
        return ret if config.return_primal else ir.void
    tan: ir.Type = ret if config.width == 1 else ir.ArrayType(config.width, ret)
    if config.return_primal:
        return ir.StructType([ret, tan])
    return tan


def forward_signature(config: FnConfig) -> ir.FunctionType:
    """The forward derivative's type (each DUP argument followed by ``width`` shadows)."""
    params: list[ir.Type] = []
    for arg, dt in zip(config.function.args, config.arg_types, strict=True):
        params.append(arg.type)
        if dt in (DiffeType.DUP, DiffeType.DUP_NONEED):
            params.extend([arg.type] * config.width)
    return ir.FunctionType(forward_return_type(config), params)


__all__ = [
    "augmented_return_type",
    "augmented_signature",
    "forward_return_type",
    "forward_signature",
    "gradient_signature",
    "returns_shadow",
    "reverse_signature",
]
