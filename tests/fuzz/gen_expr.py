"""Random expressions: bounded reals, in-bounds indices, safe math domains.

Every constructor returns an expression whose interval (:func:`checks.interval`) is
known to satisfy the invariant: ``squash`` brings any expression into ``[-VB, VB]``,
``positive`` gives a value >= 0.5 for ``log``/``sqrt``/``pow``/denominators, and
``index`` gives an integer expression in ``[0, length)`` of the array it indexes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from .checks import MAX_EXP_ARG, VB, interval
from .model import (
    Bin,
    Call,
    Compare,
    Elem,
    Expr,
    Function,
    Global,
    Int,
    IntToReal,
    Logic,
    Member,
    Num,
    Ref,
    Select,
    ToInt,
)

CONSTANTS = (0.125, 0.25, 0.375, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
EXPONENTS = (0.5, 1.5, 2.0, 3.0, -0.5, -1.0)


@dataclass(frozen=True)
class ArrayVar:
    """A real array in scope; ``length`` is its length as an expression, ``min_len`` a
    guaranteed lower bound of its value."""

    name: str
    length: Expr
    min_len: int
    writable: bool
    struct: str | None = None  # an array of structs of this name


@dataclass(frozen=True)
class LoopVar:
    """An int variable in ``[0, hi)`` (``hi_max``: the largest value ``hi`` can have)."""

    name: str
    hi: Expr
    hi_max: int


@dataclass(frozen=True)
class StructVar:
    name: str
    struct: str
    arrow: bool  # a pointer parameter


@dataclass
class Ctx:
    """What a generated function body can see at the current point."""

    rng: random.Random
    features: set[str]
    counter: list[int]  # fresh-name counter shared by all scopes of a case
    prefix: str
    reals: list[str] = field(default_factory=list)  # readable and writable real scalars
    arrays: list[ArrayVar] = field(default_factory=list)
    loops: list[LoopVar] = field(default_factory=list)
    structs: list[StructVar] = field(default_factory=list)
    struct_fields: dict[str, tuple[str, ...]] = field(default_factory=dict)  # real fields
    tables: list[Global] = field(default_factory=list)  # const globals
    helpers: list[Function] = field(default_factory=list)  # callable from here
    n: Expr = field(default_factory=lambda: Ref("n", is_int=True))
    n_min: int = 1  # the value range of n
    n_max: int = 1
    struct_name: str | None = None  # the case's struct type
    pending_frees: list[str] = field(default_factory=list)  # shared by nested scopes
    new_globals: list[Global] = field(default_factory=list)  # shared by nested scopes
    allow_realloc: bool = True
    depth: int = 0

    def child(self) -> Ctx:
        """A nested scope: names declared in it disappear at its end."""
        return replace(
            self, reals=list(self.reals), arrays=list(self.arrays), loops=list(self.loops),
            structs=list(self.structs), depth=self.depth + 1,
        )

    def fresh(self, stem: str) -> str:
        self.counter[0] += 1
        return f"{stem}{self.counter[0]}"

    def holds_n(self, arr: ArrayVar) -> bool:
        """Whether ``arr`` has at least ``n`` elements."""
        return arr.struct is None and (arr.length == self.n or arr.min_len >= self.n_max)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def note(self, feature: str) -> None:
        self.features.add(feature)


def const(ctx: Ctx) -> Num:
    value = ctx.rng.choice(CONSTANTS)
    return Num(-value if ctx.chance(0.3) else value)


# --- integers and indices ---


def nonneg_int(ctx: Ctx) -> Expr:
    """A non-negative int expression from the loop variables in scope."""
    rng = ctx.rng
    if not ctx.loops:
        return Int(rng.randint(0, 7))
    i = Ref(rng.choice(ctx.loops).name, is_int=True)
    form = rng.randint(0, 4)
    if form == 0:
        return Bin("+", i, Int(rng.randint(1, 5)), is_int=True)
    if form == 1:
        return Bin("+", Bin("*", i, Int(rng.randint(2, 3)), is_int=True), Int(rng.randint(0, 3)),
                   is_int=True)
    if form == 2 and len(ctx.loops) > 1:
        j = Ref(rng.choice(ctx.loops).name, is_int=True)
        return Bin("+", i, j, is_int=True)
    if form == 3:
        return Bin("/", i, Int(2), is_int=True)
    return i


def index(ctx: Ctx, arr: ArrayVar) -> Expr:
    """An index into ``arr`` that is in bounds."""
    rng = ctx.rng
    direct = [v for v in ctx.loops if v.hi == arr.length or v.hi_max <= arr.min_len]
    roll = rng.random()
    if direct and roll < 0.45:
        return Ref(rng.choice(direct).name, is_int=True)
    if direct and roll < 0.6:
        ctx.note("index_reversed")
        i = Ref(rng.choice(direct).name, is_int=True)
        return Bin("-", Bin("-", arr.length, Int(1), is_int=True), i, is_int=True)
    if roll < 0.7 or not ctx.loops:
        return Int(rng.randrange(arr.min_len))
    ctx.note("index_modulo")
    return Bin("%", nonneg_int(ctx), arr.length, is_int=True)


# --- reals ---


def squash(ctx: Ctx, e: Expr) -> Expr:
    """``e`` itself when it stays in [-VB, VB], else a smooth map of it into that range."""
    iv = interval(e)
    if iv.within(-VB, VB):
        return e
    form = ctx.rng.randint(0, 2)
    if form == 0:
        return Bin("*", Num(VB), Call("tanh", (Bin("*", Num(1.0 / VB), e),)))
    if form == 1:
        return Call("sin", (e,))
    scale = 2.0
    while iv.mag / scale > VB:
        scale *= 2.0
    return Bin("*", Num(1.0 / scale), e)


def positive(ctx: Ctx, e: Expr) -> Expr:
    """An expression >= 0.5 made of ``e`` (for log, sqrt, pow and denominators)."""
    form = ctx.rng.randint(0, 4)
    if form == 0:
        return Bin("+", Num(1.0), Bin("*", e, e))
    if form == 1:
        return Bin("+", Num(2.0), Call(ctx.rng.choice(("sin", "cos")), (e,)))
    if form == 2:
        return Bin("+", Num(1.5), Call("tanh", (e,)))
    if form == 3:
        ctx.note("libm_hypot")
        return Call("hypot", (e, Num(1.0)))
    ctx.note("kink_fabs")
    return Bin("+", Call("fabs", (e,)), Num(0.5))


def leaf(ctx: Ctx) -> Expr:
    """A variable, array element, struct field, table entry or constant."""
    rng = ctx.rng
    choices: list[str] = ["const"]
    if ctx.reals:
        choices += ["real"] * 3
    plain = [a for a in ctx.arrays if a.struct is None]
    if plain:
        choices += ["elem"] * 4
    if ctx.structs or any(a.struct for a in ctx.arrays):
        choices += ["member"] * 2
    if ctx.tables:
        choices.append("table")
    if ctx.loops:
        choices.append("counter")
    kind = rng.choice(choices)
    if kind == "real":  # recent locals more often, so that fewer are dead
        return Ref(rng.choice(ctx.reals[-2:] if rng.random() < 0.5 else ctx.reals))
    if kind == "elem":
        arr = rng.choice(plain)
        return Elem(arr.name, index(ctx, arr))
    if kind == "member":
        return member(ctx)
    if kind == "table":
        ctx.note("global_const_table")
        tab = rng.choice(ctx.tables)
        arr = ArrayVar(tab.name, Int(tab.length), tab.length, False)
        return Elem(tab.name, index(ctx, arr))
    if kind == "counter":
        ctx.note("int_to_real")
        return Bin("*", Num(0.125), IntToReal(Ref(rng.choice(ctx.loops).name, is_int=True)))
    return const(ctx)


def member(ctx: Ctx) -> Member:
    rng = ctx.rng
    options: list[Member] = []
    for sv in ctx.structs:
        fields = ctx.struct_fields[sv.struct]
        options.append(Member(sv.name, rng.choice(fields), arrow=sv.arrow))
    for arr in ctx.arrays:
        if arr.struct is not None:
            fields = ctx.struct_fields[arr.struct]
            plain = ArrayVar(arr.name, arr.length, arr.min_len, arr.writable)
            options.append(Member(arr.name, rng.choice(fields), index=index(ctx, plain)))
    ctx.note("struct_field")
    return rng.choice(options)


UNARY = ("sin", "cos", "tanh", "atan", "exp", "log", "sqrt", "pow", "square", "fabs")
BINARY = ("+", "-", "*", "/", "fmin", "fmax", "hypot", "pow2", "select", "call")


def real(ctx: Ctx, depth: int) -> Expr:
    """A random real expression of nesting depth at most ``depth``, in [-VB, VB]."""
    rng = ctx.rng
    if depth <= 0 or rng.random() < 0.25:
        return leaf(ctx)
    if rng.random() < 0.4:
        return unary(ctx, rng.choice(UNARY), real(ctx, depth - 1))
    return squash(ctx, binary(ctx, rng.choice(BINARY), depth))


def unary(ctx: Ctx, name: str, a: Expr) -> Expr:
    if name in ("sin", "cos", "tanh", "atan"):
        ctx.note(f"libm_{name}")
        return Call(name, (a,))
    if name == "exp":
        ctx.note("libm_exp")
        arg = a if interval(a).hi <= MAX_EXP_ARG else Call("tanh", (a,))
        return squash(ctx, Call("exp", (arg,)))
    if name in ("log", "sqrt"):
        ctx.note(f"libm_{name}")
        return squash(ctx, Call(name, (positive(ctx, a),)))
    if name == "pow":
        ctx.note("libm_pow")
        return squash(ctx, Call("pow", (positive(ctx, a), Num(ctx.rng.choice(EXPONENTS)))))
    if name == "fabs":
        ctx.note("kink_fabs")
        return Call("fabs", (a,))
    return squash(ctx, Bin("*", a, a))


def compare(ctx: Ctx, depth: int) -> Expr:
    """A data-dependent comparison (a possible kink: recorded by the FD programs)."""
    ctx.note("branch_data")
    op = ctx.rng.choice(("<", ">", "<=", ">="))
    c = Compare(op, real(ctx, depth), real(ctx, max(depth - 1, 0)) if ctx.chance(0.5)
                else const(ctx))
    if ctx.chance(0.15):
        ctx.note("branch_logical")
        other = Compare(ctx.rng.choice(("<", ">")), leaf(ctx), const(ctx))
        return Logic(ctx.rng.choice(("&&", "||")), c, other)
    return c


def binary(ctx: Ctx, op: str, depth: int) -> Expr:
    rng = ctx.rng
    a = real(ctx, depth - 1)
    if op in ("+", "-", "*"):
        return Bin(op, a, real(ctx, depth - 1))
    if op == "/":
        ctx.note("division")
        return Bin("/", a, positive(ctx, real(ctx, depth - 1)))
    if op in ("fmin", "fmax"):
        ctx.note("kink_fmin_fmax")
        return Call(op, (a, real(ctx, depth - 1)))
    if op == "hypot":  # never hypot(0, 0), where the derivative is 0/0
        ctx.note("libm_hypot")
        return Call("hypot", (a, positive(ctx, real(ctx, depth - 1))))
    if op == "pow2":
        ctx.note("libm_pow")
        return Call("pow", (positive(ctx, a), Call("sin", (real(ctx, depth - 1),))))
    if op == "select":
        ctx.note("select_ternary")
        return Select(compare(ctx, depth - 1), a, real(ctx, depth - 1))
    helpers = callable_helpers(ctx, "real")
    if not helpers:
        return Bin("+", a, real(ctx, depth - 1))
    return call(ctx, rng.choice(helpers), depth)


def callable_helpers(ctx: Ctx, ret: str) -> list[Function]:
    """Helpers returning ``ret`` whose parameters this scope can supply."""
    plain = [a for a in ctx.arrays if a.struct is None]
    out = []
    for h in ctx.helpers:
        if h.ret != ret:
            continue
        ok = True
        for p in h.params:
            if p.kind == "array":
                ok = ok and any(a.writable or p.role == "in" for a in plain)
            elif p.kind not in ("real", "int"):
                ok = False
        if ok:
            out.append(h)
    return out


def call(ctx: Ctx, fn: Function, depth: int) -> Call:
    """A call of helper ``fn`` with arguments that fit its parameters."""
    args: list[Expr] = []
    rng = ctx.rng
    arrays = [a for a in ctx.arrays if a.struct is None]
    chosen: ArrayVar | None = None
    for p in fn.params:
        if p.kind == "real":
            args.append(real(ctx, max(depth - 2, 0)))
        elif p.kind == "array":
            writable = [a for a in arrays if a.writable] if p.role != "in" else arrays
            chosen = rng.choice(writable)
            args.append(Ref(chosen.name))
        elif p.kind == "int":
            args.append(chosen.length if chosen is not None else ctx.n)
        else:
            raise ValueError(f"cannot pass a {p.kind} here")
    ctx.note("call_" + fn.linkage)
    return Call(fn.name, tuple(args), is_math=False)


def to_int_bucket(ctx: Ctx, depth: int) -> ToInt:
    """``(int)(2 + 1.9 tanh(e))``: an int in 0..3 from active data (a jump)."""
    ctx.note("int_cast_of_real")
    return ToInt(Bin("+", Num(2.0), Bin("*", Num(1.875), Call("tanh", (real(ctx, depth),)))))
