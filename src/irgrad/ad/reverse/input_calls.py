"""Reverse mode of an input function (``sscanf``/``fscanf``/``scanf``, ``fgets``,
``fread``, ``read``) writing into memory that carries derivatives: the values it stores
were read from text or a file, so the adjoint gathered in their shadow since the call
belongs to no input and is dropped -- each floating-point conversion's slot (``%lf``,
``%f``, ``%Lf``), or the bytes ``fread``/``read`` filled, is set to zero. The values the
call replaced get no adjoint from after the call, as for any overwrite. The call itself
runs in the forward pass, as the primal's. A scanf call whose format is not a constant
string is refused when it writes into such memory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.input_formats import input_destination, scanned_floats

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils
    from irgrad.ir import IRBuilder


def reverse_input_call(gu: GradientUtils, call: ir.CallBase, name: str, b: IRBuilder) -> None:
    dests = [k for k, a in enumerate(call.args)
             if input_destination(name, k) and gu.is_shadowed(a)]
    if not dests or name == "fgets":
        return
    bb = call.parent
    assert bb is not None
    if name in ("fread", "read"):
        size_args = (call.args[1], call.args[2]) if name == "fread" else (call.args[2],)
        sizes = [gu.lookup(gu.primal(a), bb) for a in size_args]
        size = b.mul(sizes[0], sizes[1]) if len(sizes) == 2 else sizes[0]
        if size.type != ir.i64:
            size = b.zext(size, ir.i64)
        for k in dests:
            b.memset(gu.lookup_shadow(call.args[k], bb, call), 0, size)
        return
    floats = scanned_floats(call, name)
    if floats is None:
        raise gu.error(f"{name} with a format that is not a constant string writes into "
                       "memory that carries derivatives: which arguments receive "
                       "floating-point values cannot be known (parse into a local first)",
                       call)
    for k in dests:
        ty = floats.get(k)
        if ty is not None:
            b.store(ir.ConstantFP(ty, 0.0), gu.lookup_shadow(call.args[k], bb, call))


__all__ = ["reverse_input_call"]
