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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar, Union

ExprLike = Union["Expr", int, float]


def _nan_on_error(fn: Callable[..., float]) -> Callable[..., float]:
    """Wrap a math function so domain errors give NaN and overflow gives infinity."""

    def wrapped(*args: float) -> float:
        try:
            return float(fn(*args))
        except ValueError:
            return math.nan
        except (OverflowError, ZeroDivisionError):
            return math.inf

    wrapped.__name__ = getattr(fn, "__name__", "fn")
    return wrapped


def ieee_div(a: float, b: float) -> float:
    """``a / b`` with IEEE semantics (no ZeroDivisionError)."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def ieee_pow(a: float, b: float) -> float:
    """C ``pow`` for the cases the rules need (``pow(0, negative)`` is infinity)."""
    if a == 0.0 and b < 0.0:
        odd = float(b).is_integer() and int(b) % 2 == 1
        return math.copysign(math.inf, a) if odd else math.inf
    try:
        return math.pow(a, b)
    except ValueError:
        return math.nan
    except OverflowError:
        return math.inf


def sign_value(x: float) -> float:
    """-1, 0 or 1 (NaN stays NaN)."""
    if math.isnan(x):
        return x
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


def digamma_value(x: float) -> float:
    """The digamma function psi(x) = d/dx log(gamma(x)) (recurrence + asymptotic series)."""
    if math.isnan(x) or (x <= 0 and float(x).is_integer()):
        return math.nan
    result = 0.0
    if x < 0.5:  # reflection: psi(1 - x) - psi(x) = pi * cot(pi * x)
        return digamma_value(1.0 - x) - math.pi / math.tan(math.pi * x)
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return result + math.log(x) - 0.5 * inv - series


def frexp_exp_value(x: float) -> float:
    """The exponent ``e`` that C's ``frexp(x, &e)`` stores, as a float."""
    return float(math.frexp(x)[1])


@dataclass(frozen=True)
class FunctionSpec:
    """A function node: arity, Python implementation, and how the emitter lowers it."""

    name: str
    arity: int
    impl: Callable[..., float]
    emit: str  # an LLVM intrinsic base name, an instruction recipe, or "runtime:<symbol>"
    doc: str


FUNCTIONS: dict[str, FunctionSpec] = {
    spec.name: spec
    for spec in (
        FunctionSpec("sqrt", 1, _nan_on_error(math.sqrt), "llvm.sqrt", "square root"),
        FunctionSpec("sin", 1, _nan_on_error(math.sin), "llvm.sin", "sine"),
        FunctionSpec("cos", 1, _nan_on_error(math.cos), "llvm.cos", "cosine"),
        FunctionSpec("sinh", 1, _nan_on_error(math.sinh), "llvm.sinh", "hyperbolic sine"),
        FunctionSpec("cosh", 1, _nan_on_error(math.cosh), "llvm.cosh", "hyperbolic cosine"),
        FunctionSpec("exp", 1, _nan_on_error(math.exp), "llvm.exp", "e ** a"),
        FunctionSpec("exp2", 1, _nan_on_error(lambda a: 2.0**a), "llvm.exp2", "2 ** a"),
        FunctionSpec("log", 1, _nan_on_error(math.log), "llvm.log", "natural logarithm"),
        FunctionSpec("pow", 2, ieee_pow, "llvm.pow", "a ** b (C pow)"),
        FunctionSpec("fabs", 1, abs, "llvm.fabs", "absolute value"),
        FunctionSpec(
            "sign", 1, sign_value, "select(fcmp ogt a 0, 1, select(fcmp olt a 0, -1, 0))", "-1, 0, 1"
        ),
        FunctionSpec("copysign", 2, math.copysign, "llvm.copysign", "|a| with the sign of b"),
        FunctionSpec("trunc", 1, _nan_on_error(math.trunc), "llvm.trunc", "round toward 0"),
        FunctionSpec(
            "to_fp", 1, float, "sitofp to the rule's floating-point type", "integer -> float"
        ),
        FunctionSpec(
            "frexp_exp",
            1,
            frexp_exp_value,
            "extractvalue 1 of llvm.frexp, then sitofp",
            "exponent e of frexp (a = m * 2**e, 0.5 <= |m| < 1)",
        ),
        FunctionSpec(
            "digamma",
            1,
            digamma_value,
            "runtime:__irgrad_digamma",
            "psi(a) = d/da lgamma(a); the emitter calls a runtime helper (double/float)",
        ),
    )
}


class Expr:
    """Base of all expression nodes (immutable, hashable, structurally compared)."""

    is_bool: ClassVar[bool] = False

    @property
    def children(self) -> tuple[Expr, ...]:
        return ()

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        """The same node with new children (same count)."""
        assert not children
        return self

    def walk(self) -> Iterator[Expr]:
        """All nodes, children before parents (post-order); shared nodes repeat."""
        for child in self.children:
            yield from child.walk()
        yield self

    def map(self, fn: Callable[[Expr], Expr]) -> Expr:
        """Rebuild bottom-up: ``fn`` gets each node with its children already mapped."""
        node = self
        if self.children:
            node = self.with_children(tuple(c.map(fn) for c in self.children))
        return fn(node)

    def symbols(self) -> frozenset[str]:
        return frozenset(n.name for n in self.walk() if isinstance(n, Sym))

    def substitute(self, mapping: Mapping[str, ExprLike]) -> Expr:
        """Replace symbols by name."""
        repl = {k: as_expr(v) for k, v in mapping.items()}
        return self.map(lambda n: repl.get(n.name, n) if isinstance(n, Sym) else n)

    def evaluate(self, env: Mapping[str, float] | Mapping[Sym, float]) -> float:
        """The value under ``env`` (symbol name -> number), with IEEE semantics."""
        values = {(k.name if isinstance(k, Sym) else k): float(v) for k, v in env.items()}
        return self._eval(values)

    def _eval(self, env: dict[str, float]) -> float:
        raise NotImplementedError

    def _require_number(self) -> None:
        if self.is_bool:
            raise TypeError(f"boolean expression {self} used as a number")

    # --- operator overloading (numbers are wrapped in Const) ---
    def __add__(self, other: ExprLike) -> Expr:
        return BinOp("+", self, as_expr(other))

    def __radd__(self, other: ExprLike) -> Expr:
        return BinOp("+", as_expr(other), self)

    def __sub__(self, other: ExprLike) -> Expr:
        return BinOp("-", self, as_expr(other))

    def __rsub__(self, other: ExprLike) -> Expr:
        return BinOp("-", as_expr(other), self)

    def __mul__(self, other: ExprLike) -> Expr:
        return BinOp("*", self, as_expr(other))

    def __rmul__(self, other: ExprLike) -> Expr:
        return BinOp("*", as_expr(other), self)

    def __truediv__(self, other: ExprLike) -> Expr:
        return BinOp("/", self, as_expr(other))

    def __rtruediv__(self, other: ExprLike) -> Expr:
        return BinOp("/", as_expr(other), self)

    def __neg__(self) -> Expr:
        return Neg(self)

    def __pos__(self) -> Expr:
        return self

    def __bool__(self) -> bool:
        raise TypeError("an expression has no truth value; use where()/lt() to branch")


def as_expr(value: ExprLike) -> Expr:
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"cannot use {value!r} in a rule expression")
    return Const(float(value))


@dataclass(frozen=True, eq=True)
class Sym(Expr):
    """A named input: X, Y, Z, RESULT, DRET, DX, DY, DZ."""

    name: str

    def _eval(self, env: dict[str, float]) -> float:
        if self.name not in env:
            raise KeyError(f"no value for symbol {self.name}")
        return env[self.name]

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, eq=True)
class Const(Expr):
    value: float

    def _eval(self, env: dict[str, float]) -> float:
        return self.value

    def __str__(self) -> str:
        v = self.value
        if float(v).is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)


@dataclass(frozen=True, eq=True)
class Neg(Expr):
    operand: Expr

    def __post_init__(self) -> None:
        self.operand._require_number()

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Neg(*children)

    def _eval(self, env: dict[str, float]) -> float:
        return -self.operand._eval(env)

    def __str__(self) -> str:
        inner = str(self.operand)
        return f"-({inner})" if isinstance(self.operand, BinOp | Neg) else f"-{inner}"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


@dataclass(frozen=True, eq=True)
class BinOp(Expr):
    op: str  # one of + - * /
    lhs: Expr
    rhs: Expr

    def __post_init__(self) -> None:
        if self.op not in _PRECEDENCE:
            raise ValueError(f"unknown operator {self.op!r}")
        self.lhs._require_number()
        self.rhs._require_number()

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.lhs, self.rhs)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return BinOp(self.op, *children)

    def _eval(self, env: dict[str, float]) -> float:
        a, b = self.lhs._eval(env), self.rhs._eval(env)
        if self.op == "+":
            return a + b
        if self.op == "-":
            return a - b
        if self.op == "*":
            return a * b
        return ieee_div(a, b)

    def __str__(self) -> str:
        prec = _PRECEDENCE[self.op]

        def side(e: Expr, right: bool) -> str:
            s = str(e)
            if isinstance(e, BinOp):
                p = _PRECEDENCE[e.op]
                if p < prec or (right and p == prec):  # fp arithmetic is not associative
                    return f"({s})"
            if isinstance(e, Neg) and right:
                return f"({s})"
            return s

        return f"{side(self.lhs, False)} {self.op} {side(self.rhs, True)}"


@dataclass(frozen=True, eq=True)
class Call(Expr):
    """A function node; ``fn`` names an entry of :data:`FUNCTIONS`."""

    fn: str
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        spec = FUNCTIONS.get(self.fn)
        if spec is None:
            raise ValueError(f"unknown rule function {self.fn!r}")
        if len(self.args) != spec.arity:
            raise ValueError(f"{self.fn} takes {spec.arity} argument(s), got {len(self.args)}")
        for a in self.args:
            a._require_number()

    @property
    def spec(self) -> FunctionSpec:
        return FUNCTIONS[self.fn]

    @property
    def children(self) -> tuple[Expr, ...]:
        return self.args

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Call(self.fn, children)

    def _eval(self, env: dict[str, float]) -> float:
        return float(self.spec.impl(*(a._eval(env) for a in self.args)))

    def __str__(self) -> str:
        return f"{self.fn}({', '.join(str(a) for a in self.args)})"


_CMP = {
    "lt": (lambda a, b: a < b, "<"),
    "le": (lambda a, b: a <= b, "<="),
    "gt": (lambda a, b: a > b, ">"),
    "ge": (lambda a, b: a >= b, ">="),
    "eq": (lambda a, b: a == b, "=="),
    "ne": (lambda a, b: a != b, "!="),  # unordered: true for NaN (fcmp une)
}


@dataclass(frozen=True, eq=True)
class Cmp(Expr):
    """A comparison (ordered, except ``ne``); boolean valued, only usable in ``where``."""

    is_bool: ClassVar[bool] = True
    pred: str
    lhs: Expr
    rhs: Expr

    def __post_init__(self) -> None:
        if self.pred not in _CMP:
            raise ValueError(f"unknown comparison {self.pred!r}")
        self.lhs._require_number()
        self.rhs._require_number()

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.lhs, self.rhs)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Cmp(self.pred, *children)

    def _eval(self, env: dict[str, float]) -> float:
        return 1.0 if _CMP[self.pred][0](self.lhs._eval(env), self.rhs._eval(env)) else 0.0

    def __str__(self) -> str:
        return f"{self.lhs} {_CMP[self.pred][1]} {self.rhs}"


@dataclass(frozen=True, eq=True)
class Select(Expr):
    """``where(cond, a, b)``: ``a`` if ``cond`` else ``b`` (both arms are evaluated)."""

    cond: Expr
    if_true: Expr
    if_false: Expr

    def __post_init__(self) -> None:
        if not self.cond.is_bool:
            raise TypeError(f"where() needs a comparison as condition, got {self.cond}")
        self.if_true._require_number()
        self.if_false._require_number()

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.cond, self.if_true, self.if_false)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return Select(*children)

    def _eval(self, env: dict[str, float]) -> float:
        cond = self.cond._eval(env)
        a, b = self.if_true._eval(env), self.if_false._eval(env)
        return a if cond else b

    def __str__(self) -> str:
        return f"where({self.cond}, {self.if_true}, {self.if_false})"


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
ZERO = Const(0.0)
ONE = Const(1.0)


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


def lt(a: ExprLike, b: ExprLike) -> Expr:
    return Cmp("lt", as_expr(a), as_expr(b))


def le(a: ExprLike, b: ExprLike) -> Expr:
    return Cmp("le", as_expr(a), as_expr(b))


def gt(a: ExprLike, b: ExprLike) -> Expr:
    return Cmp("gt", as_expr(a), as_expr(b))


def ge(a: ExprLike, b: ExprLike) -> Expr:
    return Cmp("ge", as_expr(a), as_expr(b))


def eq(a: ExprLike, b: ExprLike) -> Expr:
    return Cmp("eq", as_expr(a), as_expr(b))


def ne(a: ExprLike, b: ExprLike) -> Expr:
    return Cmp("ne", as_expr(a), as_expr(b))


def isnan(a: ExprLike) -> Expr:
    """True for NaN: ``fcmp une a, a``."""
    e = as_expr(a)
    return Cmp("ne", e, e)


def where(cond: Expr, if_true: ExprLike, if_false: ExprLike) -> Expr:
    return Select(cond, as_expr(if_true), as_expr(if_false))


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
