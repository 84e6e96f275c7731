"""The node types of the rule expression DSL, with their value and printed form.

``Sym``, ``Const``, ``Neg``, ``BinOp``, ``Call``, ``Cmp`` and ``Select`` (see
:mod:`irgrad.ad.rules.expr` for what each means and how it is emitted). Nodes are frozen
dataclasses: immutable, hashable and compared by structure, so rules can be compared and
cached. ``evaluate`` gives the value with IEEE semantics in Python floats; ``str`` prints
the expression with the fewest parentheses that keep its meaning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import ClassVar, Union

from irgrad.ad.rules.expr_functions import FUNCTIONS, FunctionSpec, ieee_div

ExprLike = Union["Expr", int, float]


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


class _TwoOperands(Expr):
    """What ``BinOp`` and ``Cmp`` share: two numeric operands ``lhs`` and ``rhs``."""

    lhs: Expr
    rhs: Expr

    def _require_numeric_operands(self) -> None:
        self.lhs._require_number()
        self.rhs._require_number()

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.lhs, self.rhs)

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        lhs, rhs = children
        return replace(self, lhs=lhs, rhs=rhs)  # type: ignore[type-var]


@dataclass(frozen=True, eq=True)
class BinOp(_TwoOperands):
    op: str  # one of + - * /
    lhs: Expr
    rhs: Expr

    def __post_init__(self) -> None:
        if self.op not in _PRECEDENCE:
            raise ValueError(f"unknown operator {self.op!r}")
        self._require_numeric_operands()

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
class Cmp(_TwoOperands):
    """A comparison (ordered, except ``ne``); boolean valued, only usable in ``where``."""

    is_bool: ClassVar[bool] = True
    pred: str
    lhs: Expr
    rhs: Expr

    def __post_init__(self) -> None:
        if self.pred not in _CMP:
            raise ValueError(f"unknown comparison {self.pred!r}")
        self._require_numeric_operands()

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


ZERO = Const(0.0)
ONE = Const(1.0)


__all__ = [
    "ONE",
    "ZERO",
    "BinOp",
    "Call",
    "Cmp",
    "Const",
    "Expr",
    "ExprLike",
    "Neg",
    "Select",
    "Sym",
    "as_expr",
]
