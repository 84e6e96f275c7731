"""Forward mode through complex library calls (:mod:`irgrad.ad.rules.complex_calls`):
the result's tangent is ``sum_j f'_j(z) * t_j``, lane by lane in vector mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.rules.complex_calls import complex_derivatives, operand_pairs, tangent_of

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def visit_complex_call(fp: ForwardPass, call: ir.CallBase, name: str) -> None:
    args = list(call.args)
    if all(fp.tangent(a) is None for a in args):
        return
    b = fp.b  # (positioned after the call by the pass)
    derivs = complex_derivatives(b, name, call, args, call)
    lanes = [fp.lanes(fp.tangent_or_zero(a), a.type) for a in args]
    out = [tangent_of(b, name, derivs, operand_pairs(b, [lane[k] for lane in lanes]),
                      call.type)
           for k in range(fp.width)]
    fp.tangents[call] = fp.pack(out, call.type)
