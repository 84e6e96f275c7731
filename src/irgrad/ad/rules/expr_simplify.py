"""Simplification of rule expressions: symbolic zeros, identities, constant folding.

A partial derivative that simplifies to ``Const(0)`` is a *symbolic zero*: the rule
interpreter emits nothing for it (Enzyme likewise skips zero contributions).
"""

from __future__ import annotations

from irgrad.ad.rules.expr_nodes import ONE, ZERO, BinOp, Const, Expr, Neg, Select


def is_zero(e: Expr) -> bool:
    return isinstance(e, Const) and e.value == 0.0


def _fold(node: Expr) -> Expr:
    """One bottom-up simplification step (symbolic zeros, identities, constant folding)."""
    if isinstance(node, Neg):
        if isinstance(node.operand, Const):
            return Const(-node.operand.value)
        if isinstance(node.operand, Neg):
            return node.operand.operand
        return node
    if isinstance(node, BinOp):
        a, b, op = node.lhs, node.rhs, node.op
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(node._eval({}))
        if op == "+":
            if is_zero(a):
                return b
            if is_zero(b):
                return a
            if isinstance(b, Neg):
                return BinOp("-", a, b.operand)
        elif op == "-":
            if is_zero(b):
                return a
            if is_zero(a):
                return _fold(Neg(b))
        elif op == "*":
            if is_zero(a) or is_zero(b):
                return ZERO  # symbolic zero: a zero partial contributes nothing
            if a == ONE:
                return b
            if b == ONE:
                return a
            if a == Const(-1.0):
                return _fold(Neg(b))
            if b == Const(-1.0):
                return _fold(Neg(a))
            if isinstance(a, Neg):
                return _fold(Neg(_fold(BinOp("*", a.operand, b))))
            if isinstance(b, Neg):
                return _fold(Neg(_fold(BinOp("*", a, b.operand))))
        elif op == "/":
            if is_zero(a):
                return ZERO
            if b == ONE:
                return a
        return node
    if isinstance(node, Select) and node.if_true == node.if_false:
        return node.if_true
    return node


def simplify(e: Expr) -> Expr:
    """Light algebraic clean-up; zero partials become ``Const(0)`` (symbolic zeros)."""
    return e.map(_fold)


__all__ = ["is_zero", "simplify"]
