"""Copies of primal instructions made on shadows (forward mode's most common emission)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
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


def shadow_name(v: ir.Value, prefix: str = "'") -> str | None:
    """The name of ``v``'s shadow: ``'x`` for ``x``."""
    return f"{prefix}{v.name}" if v.name else None


def times_width(fp: ForwardPass, v: ir.Value) -> ir.Value:
    """``v * N``: a byte count of interleaved shadow memory."""
    return fp.b.mul(v, ir.ConstantInt(v.type, fp.width))


__all__ = ["copy_shadow", "shadow_name", "times_width"]
