"""Forward mode of an input function (``sscanf``/``fscanf``/``scanf``, ``fgets``,
``fread``, ``read``): what it writes was read from text or a file and carries no
tangent, so where a destination has a shadow, the floating-point values written there get
zero tangents -- each ``%lf``/``%f``/``%Lf`` conversion's slot, or the bytes ``fread``
and ``read`` fill. A scanf call whose format is not a constant string, with a shadowed
destination, is refused: which slots receive floats cannot be known."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.input_formats import input_destination, scanned_floats

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def visit_input_call(fp: ForwardPass, call: ir.CallBase, name: str) -> None:
    tangents = {k: fp.tangent(a) for k, a in enumerate(call.args) if input_destination(name, k)}
    shadowed = {k: t for k, t in tangents.items() if t is not None}
    if not shadowed:
        return
    if name in ("fgets",):
        return  # characters
    if name in ("fread", "read"):
        size = (fp.b.mul(call.args[1], call.args[2]) if name == "fread" else call.args[2])
        if size.type != ir.i64:
            size = fp.b.zext(size, ir.i64)
        for t in shadowed.values():
            for s in t if isinstance(t, list) else [t]:
                fp.b.memset(s, 0, size)
        return
    floats = scanned_floats(call, name)
    if floats is None:
        raise fp.error(call, f"{name} with a format that is not a constant string writes "
                       "into memory that carries derivatives: which arguments receive "
                       "floating-point values cannot be known (parse into a local first)")
    for k, t in shadowed.items():
        ty = floats.get(k)
        if ty is None:
            continue  # an integer or characters
        for s in t if isinstance(t, list) else [t]:
            fp.b.store(ir.ConstantFP(ty, 0.0), s)


__all__ = ["visit_input_call"]
