"""A tiny symbolic expression language for derivative rules.

A rule's partial derivative ``d result / d operand_i`` is an :class:`Expr` over a few
symbols: ``X``, ``Y``, ``Z`` (operands 0, 1, 2), ``RESULT`` (the primal result, reused
where it is cheaper, e.g. ``exp' = RESULT``), ``DRET`` (the incoming adjoint in reverse
mode) and ``DX``, ``DY``, ``DZ`` (operand tangents in forward mode).

The node set is deliberately small so that the IR emitter (``irgrad.ad``) can turn an
expression into LLVM instructions by a post-order walk:

==============  ==========================================  =============================
node            meaning                                     emitted as
==============  ==========================================  =============================
``Sym``         an operand / result / adjoint / tangent     the looked-up value
``Const``       a floating-point constant                   ``ConstantFP`` of the type
``Neg``         ``-a``                                      ``fneg``
``BinOp``       ``a + b``, ``a - b``, ``a * b``, ``a / b``  ``fadd fsub fmul fdiv``
``Call``        a function in :data:`FUNCTIONS`             see its ``emit`` field
``Cmp``         ``lt le gt ge eq ne`` (boolean valued)      ``fcmp olt/ole/ogt/oge/oeq/une``
``Select``      ``where(cond, a, b)``                       ``select``
==============  ==========================================  =============================

Boolean expressions (``Cmp``) may only appear as the condition of a ``Select``.

``evaluate(env)`` computes the value with IEEE semantics in Python floats (division by
zero gives infinities/NaN, math domain errors give NaN, both arms of ``where`` are
evaluated like LLVM's ``select``). The rule coverage test uses it.

The DSL is spread over small modules, all re-exported here (rules import from this one):
:mod:`~irgrad.ad.rules.expr_functions` (the callable functions and their IEEE semantics),
:mod:`~irgrad.ad.rules.expr_nodes` (the node types, their evaluation and printing) and
:mod:`~irgrad.ad.rules.expr_simplify` (symbolic zeros, folding); this module holds the
symbols and the builder functions rules are written with.
"""

from __future__ import annotations

from collections.abc import Callable

from irgrad.ad.rules.expr_functions import (
    FUNCTIONS,
    LIBM_CALL,
    FunctionSpec,
    digamma_value,
    frexp_exp_value,
    ieee_div,
    ieee_pow,
    sign_value,
)
from irgrad.ad.rules.expr_nodes import (
    ONE,
    ZERO,
    BinOp,
    Call,
    Cmp,
    Const,
    Expr,
    ExprLike,
    Neg,
    Select,
    Sym,
    as_expr,
)
from irgrad.ad.rules.expr_simplify import is_zero, simplify

# --- symbols ---
X = Sym("X")
Y = Sym("Y")
Z = Sym("Z")
RESULT = Sym("RESULT")
DRET = Sym("DRET")
DX = Sym("DX")
DY = Sym("DY")
DZ = Sym("DZ")
OPERANDS: tuple[Sym, ...] = (X, Y, Z)
TANGENTS: tuple[Sym, ...] = (DX, DY, DZ)


def _call(name: str) -> Callable[..., Expr]:
    def build(*args: ExprLike) -> Expr:
        return Call(name, tuple(as_expr(a) for a in args))

    build.__name__ = name
    build.__doc__ = FUNCTIONS[name].doc
    return build


sqrt = _call("sqrt")
sin = _call("sin")
cos = _call("cos")
sinh = _call("sinh")
cosh = _call("cosh")
exp = _call("exp")
exp2 = _call("exp2")
log = _call("log")
pow = _call("pow")  # the DSL mirrors C's names
fabs = _call("fabs")
sign = _call("sign")
copysign = _call("copysign")
trunc = _call("trunc")
to_fp = _call("to_fp")
frexp_exp = _call("frexp_exp")
digamma = _call("digamma")
rint = _call("rint")
j0 = _call("j0")
j1 = _call("j1")
y0 = _call("y0")
y1 = _call("y1")
jn = _call("jn")
yn = _call("yn")


def _compare(pred: str) -> Callable[[ExprLike, ExprLike], Expr]:
    def build(a: ExprLike, b: ExprLike) -> Expr:
        return Cmp(pred, as_expr(a), as_expr(b))

    build.__name__ = pred
    return build


lt = _compare("lt")
le = _compare("le")
gt = _compare("gt")
ge = _compare("ge")
eq = _compare("eq")
ne = _compare("ne")


def isnan(a: ExprLike) -> Expr:
    """True for NaN: ``fcmp une a, a``."""
    e = as_expr(a)
    return Cmp("ne", e, e)


def where(cond: Expr, if_true: ExprLike, if_false: ExprLike) -> Expr:
    return Select(cond, as_expr(if_true), as_expr(if_false))


__all__ = [
    "DRET",
    "DX",
    "DY",
    "DZ",
    "FUNCTIONS",
    "LIBM_CALL",
    "ONE",
    "OPERANDS",
    "RESULT",
    "TANGENTS",
    "ZERO",
    "BinOp",
    "Call",
    "Cmp",
    "Const",
    "Expr",
    "ExprLike",
    "FunctionSpec",
    "Neg",
    "Select",
    "Sym",
    "X",
    "Y",
    "Z",
    "as_expr",
    "copysign",
    "cos",
    "cosh",
    "digamma",
    "digamma_value",
    "eq",
    "exp",
    "exp2",
    "fabs",
    "frexp_exp",
    "frexp_exp_value",
    "ge",
    "gt",
    "ieee_div",
    "ieee_pow",
    "is_zero",
    "isnan",
    "j0",
    "j1",
    "jn",
    "le",
    "log",
    "lt",
    "ne",
    "pow",
    "rint",
    "sign",
    "sign_value",
    "simplify",
    "sin",
    "sinh",
    "sqrt",
    "to_fp",
    "trunc",
    "where",
    "y0",
    "y1",
    "yn",
]
