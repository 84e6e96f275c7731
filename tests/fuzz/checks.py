"""Well-definedness of generated programs: value ranges, math domains and scopes.

Every real value a program stores (locals, array elements, struct fields, globals,
parameters, returns) lies in ``[-VB, VB]``: that is the invariant the generator keeps and
that :func:`check_function` proves with interval arithmetic, so no value overflows, every
``log``/``sqrt``/``pow`` argument is positive, no denominator can be zero, and finite
differences see a function of moderate size. The reducer runs the same check on every
candidate, so a reduced program is as well defined as a generated one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .model import (
    Assign,
    Bin,
    Block,
    Call,
    CallStmt,
    Compare,
    Decl,
    Elem,
    Expr,
    For,
    Free,
    Function,
    HeapAlloc,
    If,
    Int,
    IntToReal,
    Logic,
    Member,
    MemCopy,
    Neg,
    Num,
    Realloc,
    Ref,
    Return,
    Select,
    Stmt,
    Switch,
    ToInt,
    While,
)

VB = 4.0  # every stored real is in [-VB, VB]
NMAX = 8  # the int parameter n of an entry is at most NMAX
LOCAL_LEN = 2 * NMAX  # local arrays and mutable globals; helpers' lengths never exceed it
MIN_POSITIVE = 0.05  # log / sqrt / pow bases stay at least this far from 0
MAX_EXP_ARG = 3.0


class InvalidProgram(ValueError):
    """A generated or reduced program is not well defined (a fuzzer bug, or a rejected
    reduction step)."""


@dataclass(frozen=True)
class Interval:
    lo: float
    hi: float

    def within(self, lo: float, hi: float) -> bool:
        return lo <= self.lo and self.hi <= hi

    @property
    def mag(self) -> float:
        return max(abs(self.lo), abs(self.hi))


STORED = Interval(-VB, VB)
UNIT = Interval(-1.0, 1.0)


def _corners(f: object, a: Interval, b: Interval) -> Interval:
    vals = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]  # type: ignore[operator]
    return Interval(min(vals), max(vals))


def _min_abs(a: Interval) -> float:
    return 0.0 if a.lo <= 0.0 <= a.hi else min(abs(a.lo), abs(a.hi))


def _math(name: str, args: list[Interval]) -> Interval:
    a = args[0]
    if name in ("sin", "cos"):
        return UNIT
    if name == "tanh":
        return Interval(math.tanh(a.lo), math.tanh(a.hi))
    if name == "atan":
        return Interval(math.atan(a.lo), math.atan(a.hi))
    if name == "exp":
        if a.hi > MAX_EXP_ARG:
            raise InvalidProgram(f"exp of a value up to {a.hi}")
        return Interval(math.exp(a.lo), math.exp(a.hi))
    if name in ("log", "sqrt"):
        if a.lo < MIN_POSITIVE:
            raise InvalidProgram(f"{name} of a value down to {a.lo}")
        fn = math.log if name == "log" else math.sqrt
        return Interval(fn(a.lo), fn(a.hi))
    if name == "pow":
        b = args[1]
        if a.lo < MIN_POSITIVE or b.mag > 3.0:
            raise InvalidProgram(f"pow({a}, {b}) out of its safe domain")
        return _corners(lambda x, y: x**y, a, b)
    if name == "fabs":
        return Interval(_min_abs(a), a.mag)
    if name in ("fmin", "fmax"):
        b = args[1]
        pick = min if name == "fmin" else max
        return Interval(pick(a.lo, b.lo), pick(a.hi, b.hi))
    if name == "hypot":
        b = args[1]
        return Interval(math.hypot(_min_abs(a), _min_abs(b)), math.hypot(a.mag, b.mag))
    raise InvalidProgram(f"unknown math function {name}")


def interval(e: Expr) -> Interval:
    """A range that contains every value of the real (or int) expression ``e``."""
    if isinstance(e, Num):
        return Interval(e.value, e.value)
    if isinstance(e, Int):
        return Interval(float(e.value), float(e.value))
    if isinstance(e, Ref | Elem | Member):
        return Interval(0.0, float(NMAX)) if isinstance(e, Ref) and e.is_int else STORED
    if isinstance(e, Neg):
        a = interval(e.a)
        return Interval(-a.hi, -a.lo)
    if isinstance(e, Bin):
        a, b = interval(e.a), interval(e.b)
        if e.is_int:
            return Interval(-float(NMAX * NMAX * 4), float(NMAX * NMAX * 4))
        if e.op == "+":
            return Interval(a.lo + b.lo, a.hi + b.hi)
        if e.op == "-":
            return Interval(a.lo - b.hi, a.hi - b.lo)
        if e.op == "*" and e.a == e.b:
            return Interval(_min_abs(a) ** 2, a.mag**2)
        if e.op == "*":
            return _corners(lambda x, y: x * y, a, b)
        if e.op == "/":
            if b.lo <= 0.1 and b.hi >= -0.1:
                raise InvalidProgram(f"denominator in {b}")
            return _corners(lambda x, y: x / y, a, b)
        raise InvalidProgram(f"real operator {e.op}")
    if isinstance(e, Call):
        args = [interval(a) for a in e.args]
        if e.is_math:
            return _math(e.func, args)
        for arg, iv in zip(e.args, args, strict=True):
            if not _is_int(arg) and not iv.within(-VB, VB):
                raise InvalidProgram(f"argument {iv} of {e.func} outside the stored range")
        return Interval(0.0, float(NMAX)) if e.is_int else STORED
    if isinstance(e, Compare | Logic):
        interval(e.a)
        interval(e.b)
        return Interval(0.0, 1.0)
    if isinstance(e, Select):
        interval(e.cond)
        a, b = interval(e.a), interval(e.b)
        return Interval(min(a.lo, b.lo), max(a.hi, b.hi))
    if isinstance(e, ToInt):
        a = interval(e.a)
        if not a.within(0.0, 64.0):
            raise InvalidProgram(f"(int) of {a}")
        return Interval(float(math.floor(a.lo)), float(math.floor(a.hi)))
    if isinstance(e, IntToReal):
        return interval(e.a)
    raise InvalidProgram(f"unknown expression {type(e).__name__}")


def _is_int(e: Expr) -> bool:
    if isinstance(e, Int | ToInt):
        return True
    if isinstance(e, Ref | Bin | Call):
        return e.is_int
    return False


# --- scopes and statements ---


class _Scope:
    def __init__(self, names: set[str], fillable: set[str]) -> None:
        self.names = [set(names)]
        self.fillable = fillable  # mutable globals: in scope once a copy fills them

    def push(self) -> None:
        self.names.append(set())

    def pop(self) -> None:
        self.names.pop()

    def add(self, name: str) -> None:
        self.names[-1].add(name)

    def has(self, name: str) -> bool:
        return any(name in level for level in self.names)


def _uses(e: Expr | None) -> list[str]:
    if e is None or isinstance(e, Num | Int):
        return []
    if isinstance(e, Ref):
        return [e.name]
    if isinstance(e, Elem):
        return [e.array, *_uses(e.index)]
    if isinstance(e, Member):
        return [e.base, *_uses(e.index)]
    if isinstance(e, Neg | ToInt | IntToReal):
        return _uses(e.a)
    if isinstance(e, Bin | Compare | Logic):
        return _uses(e.a) + _uses(e.b)
    if isinstance(e, Call):
        names = [] if e.is_math else [e.func]
        for a in e.args:
            names += _uses(a)
        return names
    if isinstance(e, Select):
        return _uses(e.cond) + _uses(e.a) + _uses(e.b)
    raise InvalidProgram(f"unknown expression {type(e).__name__}")


def _need(scope: _Scope, *exprs: Expr | None) -> None:
    for e in exprs:
        for name in _uses(e):
            if not scope.has(name):
                raise InvalidProgram(f"'{name}' used out of scope")


def _stored(e: Expr, what: str) -> None:
    iv = interval(e)
    if not iv.within(-VB, VB):
        raise InvalidProgram(f"{what} may be {iv}, outside [-{VB}, {VB}]")


def _check_block(block: Block, scope: _Scope) -> None:
    scope.push()
    for stmt in block.stmts:
        _check_stmt(stmt, scope)
    scope.pop()


def _check_stmt(s: Stmt, scope: _Scope) -> None:
    if isinstance(s, Decl):
        _need(scope, s.init)
        if s.init is not None and s.ctype == "real":
            _stored(s.init, f"initial value of {s.name}")
        scope.add(s.name)
    elif isinstance(s, Assign):
        _need(scope, s.target, s.value)
        real = not (isinstance(s.target, Ref) and s.target.is_int)
        if real and s.op == "=":
            _stored(s.value, "stored value")
        elif real and s.op == "*=":
            if not interval(s.value).within(-1.0, 1.0):
                raise InvalidProgram("*= by a factor outside [-1, 1]")
        elif real:
            raise InvalidProgram(f"real '{s.op}' cannot keep values bounded")
        else:
            interval(s.value)
    elif isinstance(s, For):
        _need(scope, s.lo, s.hi)
        scope.push()
        scope.add(s.var)
        _check_block(s.body, scope)
        scope.pop()
    elif isinstance(s, While):
        _need(scope, s.limit)
        scope.push()
        scope.add(s.counter)
        _need(scope, s.cond)
        if s.cond is not None:
            interval(s.cond)
        _check_block(s.body, scope)
        scope.pop()
    elif isinstance(s, If):
        _need(scope, s.cond)
        interval(s.cond)
        _check_block(s.then, scope)
        if s.orelse is not None:
            _check_block(s.orelse, scope)
    elif isinstance(s, Switch):
        _need(scope, s.subject)
        interval(s.subject)
        for _, body in s.cases:
            _check_block(body, scope)
        _check_block(s.default, scope)
    elif isinstance(s, CallStmt):
        _need(scope, s.call)
        interval(s.call)
    elif isinstance(s, Return):
        _need(scope, s.value)
        if s.value is not None and not _is_int(s.value):
            _stored(s.value, "returned value")
    elif isinstance(s, HeapAlloc):
        _need(scope, s.count)
        scope.add(s.name)
        if s.fill is not None:
            scope.push()
            scope.add(s.fill_var)
            _need(scope, s.fill)
            _stored(s.fill, f"fill of {s.name}")
            scope.pop()
    elif isinstance(s, Realloc):
        _need(scope, Ref(s.name), s.old_count, s.new_count)
        scope.push()
        scope.add(s.fill_var)
        _need(scope, s.fill)
        _stored(s.fill, f"fill of {s.name}")
        scope.pop()
    elif isinstance(s, Free):
        _need(scope, Ref(s.name))
    elif isinstance(s, MemCopy):
        _need(scope, s.count, None if s.zero else Ref(s.src))
        if s.dst in scope.fillable:
            scope.add(s.dst)
        else:
            _need(scope, Ref(s.dst))
    else:
        raise InvalidProgram(f"unknown statement {type(s).__name__}")


def check_function(fn: Function, file_scope: set[str], fillable: set[str]) -> None:
    """Raise :class:`InvalidProgram` unless ``fn`` keeps the invariants. ``file_scope``:
    functions, tables and counters; ``fillable``: mutable global arrays."""
    scope = _Scope(file_scope | {p.name for p in fn.params}, fillable)
    _check_block(fn.body, scope)
    if fn.ret != "void":
        last = fn.body.stmts[-1] if fn.body.stmts else None
        if not isinstance(last, Return) or last.value is None:
            raise InvalidProgram(f"{fn.name} does not end with a return")
