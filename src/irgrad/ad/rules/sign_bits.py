"""Floating-point sign operations written as integer bit masks.

Vectorized and hand-tuned code computes ``fabs``, ``fneg`` and ``-fabs`` on a float's bits:
``and <8 x i64> %bits, splat (i64 0x7FFFFFFFFFFFFFFF)`` (Eigen's AVX-512 ``pabs``),
``xor i64 %bits, 0x8000000000000000`` (a negation), ``or`` with the sign bit. On an
integer that carries a float (type analysis says so) these are differentiable: each
multiplies the derivative by +1 or -1 lane by lane, which on the derivative's own bits is
a flip of its sign bit:

* ``abs`` (and with the magnitude mask): flip where ``x`` is negative (d|x|/dx = sign x);
* ``neg`` (xor with the sign bit): flip everywhere;
* ``nabs`` (or with the sign bit): flip where ``x`` is positive (d(-|x|)/dx = -sign x).

The same flip gives the tangent (forward mode) and the adjoint (reverse mode).
"""

from __future__ import annotations

from typing import Literal

from irgrad import ir
from irgrad.ir.builder import IRBuilder

SignOp = Literal["abs", "neg", "nabs"]


def _mask_value(c: ir.Value) -> int | None:
    """The unsigned value of an integer constant or of a splat integer vector constant."""
    if isinstance(c, ir.ConstantInt):
        return c.unsigned_value
    if isinstance(c, ir.ConstantVector):
        elems = {e.unsigned_value if isinstance(e, ir.ConstantInt) else None
                 for e in c.elements}
        if len(elems) == 1:
            return elems.pop()
    return None


def _width(t: ir.Type) -> int | None:
    elem = t.element if isinstance(t, ir.VectorType) else t
    return elem.width if isinstance(elem, ir.IntType) and elem.width in (32, 64) else None


def sign_bit_operation(inst: ir.Instruction) -> tuple[SignOp, int] | None:
    """``(kind, k)`` when ``inst`` is a sign operation on the float bits of operand ``k``
    (the other operand is the mask constant); None otherwise."""
    if inst.opcode not in ("and", "xor", "or"):
        return None
    width = _width(inst.type)
    if width is None:
        return None
    sign = 1 << (width - 1)
    for k in (0, 1):
        mask = _mask_value(inst.operands[1 - k])
        if mask is None:
            continue
        if inst.opcode == "and" and mask == sign - 1:
            return "abs", k
        if inst.opcode == "xor" and mask == sign:
            return "neg", k
        if inst.opcode == "or" and mask == sign:
            return "nabs", k
    return None


def _sign_mask(t: ir.Type) -> ir.Value:
    width = _width(t)
    assert width is not None
    elem = ir.IntType(width)
    c = ir.ConstantInt(elem, 1 << (width - 1))
    if isinstance(t, ir.VectorType):
        return ir.ConstantVector(t, [c], splat=True)
    return c


def flip_sign(b: IRBuilder, kind: SignOp, d_bits: ir.Value, x_bits: ir.Value) -> ir.Value:
    """The derivative's bits ``d_bits`` times the operation's +-1 at ``x_bits`` (both of
    the instruction's integer type)."""
    sign = _sign_mask(d_bits.type)
    if kind == "neg":
        return b.xor(d_bits, sign)
    x_sign = b.and_(x_bits, sign)
    if kind == "nabs":
        x_sign = b.xor(x_sign, sign)
    return b.xor(d_bits, x_sign)


__all__ = ["SignOp", "flip_sign", "sign_bit_operation"]
