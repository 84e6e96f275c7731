"""The signatures of synthesized derivative functions (docs/internals/ad-interfaces.md),
shared by the synthesizers of each mode and the wrappers of custom derivatives."""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.config import DiffeType, FnConfig

_SHADOWED = (DiffeType.DUP, DiffeType.DUP_NONEED)


def reverse_signature(config: FnConfig) -> tuple[ir.FunctionType, list[str | None]]:
    """``diffe_<f>``: the arguments, each DUP one followed by its shadow, then
    ``differeturn`` when the result is OUT; returns a struct of the OUT arguments'
    derivatives (void when there are none), led by ``f(x)`` with ``return_primal``
    (Enzyme's ``enzyme_primal_return``). Also the parameter names."""
    fn = config.function
    params: list[ir.Type] = []
    names: list[str | None] = []
    for arg, dt in zip(fn.args, config.arg_types, strict=True):
        params.append(arg.type)
        names.append(arg.name)
        if dt in _SHADOWED:
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


def augmented_return_type(fn: ir.Function) -> ir.Type:
    """``augmented_<f>`` returns the tape, with f's result: ``ptr`` or ``{ptr, T}``."""
    return ir.ptr if fn.return_type.is_void else ir.StructType([ir.ptr, fn.return_type])


def forward_return_type(config: FnConfig) -> ir.Type:
    """The return type of ``fwddiffe_<f>``: the tangent (``[N x T]`` at width N), with
    ``return_primal`` ``{primal, tangent}``; a CONST result alone when asked for."""
    ret = config.function.return_type
    if ret.is_void:
        return ir.void
    if config.return_type is DiffeType.CONST:
        return ret if config.return_primal else ir.void
    tan: ir.Type = ret if config.width == 1 else ir.ArrayType(config.width, ret)
    if config.return_primal:
        return ir.StructType([ret, tan])
    return tan


__all__ = ["augmented_return_type", "forward_return_type", "reverse_signature"]
