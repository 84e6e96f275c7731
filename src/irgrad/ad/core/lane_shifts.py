"""Lanes of a floating-point vector moved through a wide integer, read back as lanes.

Instruction combining writes "lanes 3 and 4 of an ``<8 x double>``" as integer arithmetic
on the vector's bits when it narrows a shuffle (Eigen's AVX-512 reductions compiled with
``-march=native``)::

    %w = bitcast <8 x double> %v to i512
    %s = lshr i512 %w, 192
    %t = trunc i512 %s to i128
    %r = bitcast i128 %t to <2 x double>

On a little-endian target that is ``shufflevector %v, poison, <3, 4>``: bits ``[c, c+m)``
of the integer are lanes ``c/e`` to ``(c+m)/e - 1`` when both are multiples of the lane
width ``e``. Before differentiation each such read becomes the shuffle (or
``extractelement`` for one lane), which carries derivatives like any lane move; integer
arithmetic on an active value's bits stays a located error.

When the vector came from memory, LLVM loads the integer directly (``load i512, ptr %p``):
then bits ``[c, c+m)`` are the ``m/8`` bytes at ``p + c/8``, read as the type the bits are
cast to, by a load at the same place as the wide one. Type analysis saw only an integer
there, and the derivative would have been lost.
"""

from __future__ import annotations

import math

from irgrad import ir
from irgrad.analysis.layout import store_size


def _shifted(t: ir.Instruction) -> tuple[ir.Value, int] | None:
    """For ``trunc (lshr x, c)`` (or ``trunc x``): x and c (c a constant)."""
    if t.opcode != "trunc":
        return None
    v, shift = t.operands[0], 0
    if isinstance(v, ir.Instruction) and v.opcode == "lshr":
        amount = v.operands[1]
        if not isinstance(amount, ir.ConstantInt):
            return None
        shift, v = amount.value, v.operands[0]
    return v, shift


def _lane_source(t: ir.Instruction) -> tuple[ir.Value, int] | None:
    """For ``trunc (lshr (bitcast V), c)`` (or ``trunc (bitcast V)``): V and c, when V is
    a vector of floating-point lanes."""
    got = _shifted(t)
    if got is None:
        return None
    v, shift = got
    if not (isinstance(v, ir.Instruction) and v.opcode == "bitcast"):
        return None
    src = v.operands[0]
    vt = src.type
    if not (isinstance(vt, ir.VectorType) and isinstance(vt.element, ir.FloatType)):
        return None
    return src, shift


def _wide_load_source(t: ir.Instruction) -> tuple[ir.LoadInst, int] | None:
    """For ``trunc (lshr (load iK, p), c)``: the load and c (a simple load)."""
    got = _shifted(t)
    if got is None:
        return None
    v, shift = got
    if not isinstance(v, ir.LoadInst) or v.volatile or v.ordering is not None:
        return None
    return v, shift


def _typed_load(inst: ir.CastInst, t: ir.Instruction) -> ir.Value | None:
    """The bits ``inst`` reinterprets, loaded as its type from their bytes (None when the
    bits do not come from a simple wide load at a byte offset)."""
    got = _wide_load_source(t)
    if got is None:
        return None
    load, shift = got
    width = t.type.width  # type: ignore[attr-defined]
    if shift % 8 or store_size(inst.type) * 8 != width or shift + width > load.type.width:  # type: ignore[attr-defined]
        return None
    b = ir.IRBuilder(position=load)
    p = load.pointer
    if shift:
        p = b.gep(ir.i8, p, [ir.ConstantInt(ir.i64, shift // 8)])
    align = math.gcd(load.align or 1, shift // 8) if shift else load.align
    return b.load(inst.type, p, align, name=inst.name or None)


def replace_lane_shifts(fn: ir.Function) -> bool:
    """Rewrite the lane reads through wide integers in ``fn`` (see the module's
    docstring); True when something changed."""
    changed = False
    for inst in list(fn.instructions()):
        if not (isinstance(inst, ir.CastInst) and inst.opcode == "bitcast"):
            continue
        t = inst.operands[0]
        if not isinstance(t, ir.Instruction):
            continue
        got = _lane_source(t)
        if got is None:
            loaded = _typed_load(inst, t)
            if loaded is not None:
                inst.replace_all_uses_with(loaded)
                inst.erase_from_parent()
                _erase_dead_chain(t)
                changed = True
            continue
        src, shift = got
        vt = src.type
        assert isinstance(vt, ir.VectorType)
        lane = store_size(vt.element) * 8
        out = inst.type
        out_lane = out.element if isinstance(out, ir.VectorType) else out
        width = t.type.width  # type: ignore[attr-defined]
        if (out_lane != vt.element or shift % lane or width % lane
                or shift + width > lane * vt.count):
            continue
        first, count = shift // lane, width // lane
        b = ir.IRBuilder(position=inst)
        if isinstance(out, ir.VectorType):
            new = b.shuffle_vector(src, ir.PoisonValue(vt), list(range(first, first + count)),
                                   name=inst.name or None)
        else:
            new = b.extract_element(src, ir.ConstantInt(ir.i64, first), name=inst.name or None)
        inst.replace_all_uses_with(new)
        inst.erase_from_parent()
        _erase_dead_chain(t)
        changed = True
    return changed


def _erase_dead_chain(v: ir.Value) -> None:
    """The integer steps (trunc, lshr, bitcast, the wide load) that nothing uses any
    more."""
    while isinstance(v, ir.Instruction) and v.opcode in ("trunc", "lshr", "bitcast", "load") \
            and not v.uses and v.parent is not None:
        nxt = v.operands[0]
        v.erase_from_parent()
        v = nxt


__all__ = ["replace_lane_shifts"]
