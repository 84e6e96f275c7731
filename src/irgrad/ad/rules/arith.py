"""Floating-point instructions: fadd fsub fmul fdiv frem fneg and the casts.

The casts between floating-point types (fpext, fptrunc) pass the derivative through
(scaled by 1: the precision change is not part of the derivative). Casts from integers
give a value with no derivative; casts to integers end the derivative (zero).
"""

from __future__ import annotations

import math

from irgrad.ad.rules.expr import RESULT, ZERO, X, Y, trunc
from irgrad.ad.rules.rule import def_instruction

def_instruction(
    ["fadd"], partials=[1.0, 1.0], domain=[(-3.0, 3.0)] * 2, primal=lambda x, y: x + y
)
def_instruction(
    ["fsub"], partials=[1.0, -1.0], domain=[(-3.0, 3.0)] * 2, primal=lambda x, y: x - y
)
def_instruction(["fmul"], partials=[Y, X], domain=[(-3.0, 3.0)] * 2, primal=lambda x, y: x * y)
def_instruction(
    ["fdiv"],
    partials=[1.0 / Y, -(RESULT * (1.0 / Y))],
    domain=[(-3.0, 3.0), (0.5, 3.0)],
    primal=lambda x, y: x / y,
    notes="d/dy (x/y) = -x/y**2 = -RESULT/y, written -RESULT*(1/y): the reciprocal is the "
    "d/dx partial's too (one division where both operands are active, none per element where "
    "a loop divides by an invariant y, which LLVM hoists); for a constant numerator c (1/r, "
    "dt/d, m/sqrt(s)) -RESULT*(RESULT*(1/c)) with 1/c folded: no division at all (the inner "
    "product is about 1/y, so it overflows only where the partial does)",
    when_constant={0: [1.0 / Y, -(RESULT * (RESULT * (1.0 / X)))]},
)
def_instruction(
    ["frem"],
    partials=[1.0, -trunc(X / Y)],
    domain=[(2.2, 2.8), (1.0, 1.05)],
    primal=math.fmod,
    notes="frem is C fmod: x - trunc(x/y)*y",
)
def_instruction(["fneg"], partials=[-1.0], domain=[(-3.0, 3.0)], primal=lambda x: -x)
def_instruction(
    ["fpext", "fptrunc"],
    partials=[1.0],
    domain=[(-3.0, 3.0)],
    primal=lambda x: x,
    notes="precision changes are not differentiated: the numerical test models them as "
    "the identity",
)
def_instruction(
    ["sitofp", "uitofp"],
    partials=[ZERO],
    domain=[(0.0, 9.0)],
    primal=float,
    operand_kinds=["int"],
    notes="the integer operand carries no derivative; the result is a constant",
)
def_instruction(
    ["fptosi", "fptoui"],
    partials=[ZERO],
    domain=[(0.1, 0.9)],
    primal=lambda x: float(math.trunc(x)),
    result_kind="int",
    notes="an integer result carries no derivative",
)
