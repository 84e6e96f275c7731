"""Copies of primal instructions made on shadows (forward mode's most common emission)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.global_activity import global_base
from irgrad.ir.clone import clone_instruction

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def copy_shadow(fp: ForwardPass, inst: ir.Instruction, mapping: dict[ir.Value, ir.Value],
                suffix: str = "'") -> ir.Instruction:
    """A copy of ``inst`` at the builder with operands replaced by ``mapping`` (the same
    operation on the shadows), named after ``inst`` with ``suffix``."""
    new = clone_instruction(inst, mapping)
    new.name = None
    new.metadata = [(k, v) for k, v in inst.metadata if k == "dbg"]
    fp.b.insert(new, shadow_name(inst, suffix) if not inst.type.is_void else None)
    return new


def holds_own_shadows(src: ir.Value) -> bool:
    """``src`` points into constant data that holds no floating-point value and no
    function, only integers and pointers to other constant data (a table of string
    literals, ``const char* names[] = {...}``): a copy of it into shadowed memory gives
    the shadow the same bytes, as a store of such a constant pointer or of an integer
    does (a zeroed shadow would hold null where the primal holds a string)."""
    g = global_base(src)
    return (g is not None and g.is_constant and g.initializer is not None
            and _own_shadow_data(g.initializer, 0))


def _own_shadow_data(c: ir.Value, depth: int) -> bool:
    if depth > 8 or isinstance(c, ir.ConstantFP | ir.Function) or c.type.is_fp_or_fp_vector:
        return False
    if isinstance(c, ir.ConstantAggregate):
        return all(_own_shadow_data(e, depth + 1) for e in c.elements)
    if isinstance(c, ir.GlobalVariable | ir.ConstantExpr):
        g = global_base(c)
        return g is not None and g.is_constant
    return isinstance(c, ir.ConstantInt | ir.ConstantPointerNull | ir.ConstantAggregateZero
                      | ir.ConstantDataString | ir.UndefValue)


def shadow_name(v: ir.Value, prefix: str = "'") -> str | None:
    """The name of ``v``'s shadow: ``'x`` for ``x``."""
    return f"{prefix}{v.name}" if v.name else None


def times_width(fp: ForwardPass, v: ir.Value) -> ir.Value:
    """``v * N``: a byte count of interleaved shadow memory."""
    return fp.b.mul(v, ir.ConstantInt(v.type, fp.width))


__all__ = ["copy_shadow", "holds_own_shadows", "shadow_name", "times_width"]
