"""The elementary math functions, defined once.

Each :class:`MathFn` holds a function's partials, its Python primal and a sampling domain.
``intrinsics.py`` registers them under ``llvm.<name>`` and ``libm.py`` under the C names
(``sin``, ``sinf``, ``sinl``), so a derivative is written in exactly one place.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from irgrad.ad.rules.expr import (
    ONE,
    RESULT,
    ZERO,
    Expr,
    ExprLike,
    X,
    Y,
    copysign,
    cos,
    cosh,
    digamma,
    eq,
    exp,
    exp2,
    frexp_exp,
    ge,
    gt,
    isnan,
    j0,
    j1,
    jn,
    le,
    log,
    pow,
    rint,
    sin,
    sinh,
    sqrt,
    to_fp,
    trunc,
    where,
    y0,
    y1,
    yn,
)
from irgrad.ad.rules.expr_functions import FUNCTIONS
from irgrad.ad.rules.rule import Interval, OperandKind, ResultKind

LN2 = math.log(2.0)
LN10 = math.log(10.0)
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@dataclass(frozen=True)
class MathFn:
    partials: tuple[ExprLike, ...]
    domain: tuple[Interval | None, ...]
    primal: Callable[..., float]
    operand_kinds: tuple[OperandKind, ...] | None = None
    result_kind: ResultKind = "float"
    notes: str = ""
    helpers: tuple[str, ...] = field(default=())

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``def_call`` / ``def_intrinsic``."""
        return {
            "partials": self.partials,
            "domain": self.domain,
            "primal": self.primal,
            "operand_kinds": self.operand_kinds,
            "result_kind": self.result_kind,
            "notes": self.notes,
            "helpers": self.helpers,
        }


# --- Python primals with C semantics ---


def c_round(x: float) -> float:
    """C ``round``: halfway cases away from zero."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def round_even(x: float) -> float:
    """``rint``/``nearbyint``/``roundeven`` in the default rounding mode (ties to even)."""
    return float(round(x))


def minnum(x: float, y: float) -> float:
    """``fmin``/``llvm.minnum``: a NaN operand is ignored."""
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    return min(x, y)


def maxnum(x: float, y: float) -> float:
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    return max(x, y)


def minimum(x: float, y: float) -> float:
    """``llvm.minimum``: NaN propagates."""
    return math.nan if math.isnan(x) or math.isnan(y) else min(x, y)


def maximum(x: float, y: float) -> float:
    return math.nan if math.isnan(x) or math.isnan(y) else max(x, y)


def _picked_first_min() -> Expr:
    """1 where min(X, Y) returns X (ties go to X; a NaN Y means X is returned)."""
    return where(le(X, Y), 1.0, where(isnan(Y), 1.0, 0.0))


def _picked_first_max() -> Expr:
    return where(ge(X, Y), 1.0, where(isnan(Y), 1.0, 0.0))


def _min_max(primal: Callable[..., float], first: Expr, note: str) -> MathFn:
    return MathFn(
        partials=(first, 1.0 - first),
        domain=((-3.0, 3.0), (-3.0, 3.0)),
        primal=primal,
        notes=f"the derivative flows to the operand that was picked; {note}",
    )


def _zero(primal: Callable[[float], float], domain: Interval, result: ResultKind) -> MathFn:
    return MathFn(
        partials=(ZERO,),
        domain=(domain,),
        primal=primal,
        result_kind=result,
        notes="piecewise constant: zero derivative",
    )


def _unary(partial: ExprLike, domain: Interval, primal: Callable[[float], float]) -> MathFn:
    return MathFn(partials=(partial,), domain=(domain,), primal=primal)


MATH: dict[str, MathFn] = {
    # trigonometric
    "sin": _unary(cos(X), (-3.0, 3.0), math.sin),
    "cos": _unary(-sin(X), (-3.0, 3.0), math.cos),
    "tan": _unary(1.0 + RESULT * RESULT, (-1.2, 1.2), math.tan),
    "asin": _unary(1.0 / sqrt(1.0 - X * X), (-0.9, 0.9), math.asin),
    "acos": _unary(-1.0 / sqrt(1.0 - X * X), (-0.9, 0.9), math.acos),
    "atan": _unary(1.0 / (1.0 + X * X), (-3.0, 3.0), math.atan),
    "atan2": MathFn(
        partials=(Y / (X * X + Y * Y), -X / (X * X + Y * Y)),
        domain=((-2.0, 2.0), (0.2, 2.0)),
        primal=math.atan2,
        notes="atan2(y, x): X is y, Y is x",
    ),
    # hyperbolic
    "sinh": _unary(cosh(X), (-2.0, 2.0), math.sinh),
    "cosh": _unary(sinh(X), (-2.0, 2.0), math.cosh),
    "tanh": _unary(1.0 - RESULT * RESULT, (-2.0, 2.0), math.tanh),
    "asinh": _unary(1.0 / sqrt(X * X + 1.0), (-3.0, 3.0), math.asinh),
    "acosh": _unary(1.0 / sqrt(X * X - 1.0), (1.2, 4.0), math.acosh),
    "atanh": _unary(1.0 / (1.0 - X * X), (-0.9, 0.9), math.atanh),
    # exponential and logarithmic
    "exp": _unary(RESULT, (-3.0, 3.0), math.exp),
    "exp2": _unary(RESULT * LN2, (-3.0, 3.0), math.exp2),
    "exp10": _unary(RESULT * LN10, (-2.0, 2.0), lambda x: 10.0**x),
    "expm1": _unary(RESULT + 1.0, (-2.0, 2.0), math.expm1),
    "log": _unary(1.0 / X, (0.1, 5.0), math.log),
    "log2": _unary(1.0 / (X * LN2), (0.1, 5.0), math.log2),
    "log10": _unary(1.0 / (X * LN10), (0.1, 5.0), math.log10),
    "log1p": _unary(1.0 / (X + 1.0), (-0.5, 5.0), math.log1p),
    # powers and roots
    "pow": MathFn(
        partials=(
            where(eq(Y, 0.0), 0.0, Y * pow(X, Y - 1.0)),
            where(eq(X, 0.0), 0.0, RESULT * log(X)),
        ),
        domain=((0.2, 3.0), (-2.0, 3.0)),
        primal=math.pow,
        notes="pow(0, y): the exponent's partial is taken as 0 (log(0) would give NaN)",
    ),
    "powi": MathFn(
        partials=(where(eq(to_fp(Y), 0.0), 0.0, to_fp(Y) * pow(X, to_fp(Y) - 1.0)), ZERO),
        domain=((0.3, 2.0), (-3.0, 4.0)),
        primal=lambda x, n: x ** int(n),
        operand_kinds=("float", "int"),
        notes="the integer exponent is never active",
    ),
    "sqrt": _unary(0.5 / RESULT, (0.1, 5.0), math.sqrt),
    "cbrt": _unary(1.0 / (3.0 * RESULT * RESULT), (0.2, 5.0), math.cbrt),
    "hypot": MathFn(
        partials=(X / RESULT, Y / RESULT),
        domain=((0.5, 3.0), (-3.0, -0.5)),
        primal=math.hypot,
    ),
    # sign and magnitude
    # the sign bit's: +1 at +0.0, -1 at -0.0 (a one-sided derivative, as Enzyme takes it
    # and as the integer-mask form of fabs gives, irgrad.ad.rules.sign_bits)
    "fabs": _unary(copysign(1.0, X), (-3.0, 3.0), abs),
    "copysign": MathFn(
        partials=(copysign(1.0, X) * copysign(1.0, Y), ZERO),
        domain=((-3.0, 3.0), (-3.0, 3.0)),
        primal=math.copysign,
        notes="the sign operand has no derivative",
    ),
    "fma": MathFn(
        partials=(Y, X, 1.0),
        domain=((-3.0, 3.0), (-3.0, 3.0), (-3.0, 3.0)),
        primal=lambda x, y, z: x * y + z,
    ),
    "minnum": _min_max(minnum, _picked_first_min(), "a NaN operand is ignored"),
    "maxnum": _min_max(maxnum, _picked_first_max(), "a NaN operand is ignored"),
    "minimum": _min_max(minimum, _picked_first_min(), "NaN propagates"),
    "maximum": _min_max(maximum, _picked_first_max(), "NaN propagates"),
    "fmod": MathFn(
        partials=(1.0, -trunc(X / Y)),
        domain=((2.2, 2.8), (1.0, 1.05)),
        primal=math.fmod,
        notes="x - trunc(x/y)*y; discontinuous where x/y is an integer",
    ),
    # special functions
    "erf": _unary(TWO_OVER_SQRT_PI * exp(-(X * X)), (-2.0, 2.0), math.erf),
    "erfc": _unary(-TWO_OVER_SQRT_PI * exp(-(X * X)), (-2.0, 2.0), math.erfc),
    "tgamma": MathFn(
        partials=(RESULT * digamma(X),),
        domain=((0.5, 4.0),),
        primal=math.gamma,
        notes="uses digamma, a runtime helper",
        helpers=("__irgrad_digamma",),
    ),
    "lgamma": MathFn(
        partials=(digamma(X),),
        domain=((0.5, 5.0),),
        primal=math.lgamma,
        notes="uses digamma, a runtime helper; the sign (signgam) is not differentiated",
        helpers=("__irgrad_digamma",),
    ),
    # floating-point decomposition
    "frexp": MathFn(
        partials=(exp2(-frexp_exp(X)), ZERO),
        domain=((0.3, 50.0), None),
        primal=lambda x, _exp_ptr: math.frexp(x)[0],
        operand_kinds=("float", "ptr"),
        notes="frexp(x, int *e): mantissa = x * 2**-e; the exponent store is inactive",
    ),
    "ldexp": MathFn(
        partials=(exp2(to_fp(Y)), ZERO),
        domain=((-3.0, 3.0), (-4.0, 4.0)),
        primal=lambda x, n: math.ldexp(x, int(n)),
        operand_kinds=("float", "int"),
        notes="ldexp(x, n) = x * 2**n; n is an integer",
    ),
    "modf": MathFn(
        partials=(1.0, ZERO),
        domain=((0.1, 0.9), None),
        primal=lambda x, _int_ptr: math.modf(x)[0],
        operand_kinds=("float", "ptr"),
        notes="modf(x, double *ip) returns x - trunc(x); the integral part store is "
        "piecewise constant",
    ),
    # piecewise constant
    "floor": _zero(math.floor, (0.1, 0.9), "float"),
    "ceil": _zero(math.ceil, (0.1, 0.9), "float"),
    "trunc": _zero(math.trunc, (0.1, 0.9), "float"),
    "round": _zero(c_round, (0.1, 0.4), "float"),
    "roundeven": _zero(round_even, (0.1, 0.4), "float"),
    "rint": _zero(round_even, (0.1, 0.4), "float"),
    "nearbyint": _zero(round_even, (0.1, 0.4), "float"),
    "lround": _zero(c_round, (0.1, 0.4), "int"),
    "llround": _zero(c_round, (0.1, 0.4), "int"),
    "lrint": _zero(round_even, (0.1, 0.4), "int"),
    "llrint": _zero(round_even, (0.1, 0.4), "int"),
}


def _bessel(name: str, partial: ExprLike, domain: Interval) -> MathFn:
    return MathFn(partials=(partial,), domain=(domain,), primal=FUNCTIONS[name].impl,
                  notes="a Bessel function: its derivative calls the C library's")


def _bessel_order(name: str, of: Callable[[ExprLike, ExprLike], Expr],
                  domain: Interval) -> MathFn:
    n = to_fp(X)
    return MathFn(
        partials=(ZERO, 0.5 * (of(n - 1.0, Y) - of(n + 1.0, Y))),
        domain=((-3.0, 4.0), domain),
        primal=FUNCTIONS[name].impl,
        operand_kinds=("int", "float"),
        notes=f"{name}(n, x)' = ({name}(n-1, x) - {name}(n+1, x)) / 2; the order is an integer",
    )


def _fdim_partial(sign_of_x: float) -> Expr:
    return where(gt(X, Y), sign_of_x, 0.0)


# C library functions that have no LLVM intrinsic: registered under their C names only
# (``libm.py``), with their ``f``/``l`` variants
LIBM_ONLY: dict[str, MathFn] = {
    "fdim": MathFn(
        partials=(_fdim_partial(1.0), _fdim_partial(-1.0)),
        domain=((-3.0, 3.0), (-3.0, 3.0)),
        primal=lambda x, y: x - y if x > y else 0.0,
        notes="fdim(x, y) = x > y ? x - y : 0",
    ),
    "remainder": MathFn(
        partials=(1.0, -rint(X / Y)),
        domain=((2.2, 2.4), (1.0, 1.05)),
        primal=math.remainder,
        notes="x - n*y with n = x/y rounded to nearest, ties to even (IEEE remainder); "
        "discontinuous where x/y is halfway between integers",
    ),
    "remquo": MathFn(
        partials=(1.0, -rint(X / Y), ZERO),
        domain=((2.2, 2.4), (1.0, 1.05), None),
        primal=lambda x, y, _quo_ptr: math.remainder(x, y),
        operand_kinds=("float", "float", "ptr"),
        notes="remainder(x, y); the quotient bits stored through the pointer are integers",
    ),
    "nextafter": MathFn(
        partials=(1.0, ZERO),
        domain=((0.1, 1.0), (2.0, 3.0)),
        primal=math.nextafter,
        notes="the neighbouring float of x toward y: x's derivative, y only gives a direction",
    ),
    "nexttoward": MathFn(
        partials=(1.0, ZERO),
        domain=((0.1, 1.0), (2.0, 3.0)),
        primal=math.nextafter,
        notes="nextafter with a long double direction",
    ),
    "logb": _zero(lambda x: float(math.frexp(x)[1] - 1), (1.1, 1.9), "float"),
    "ilogb": _zero(lambda x: float(math.frexp(x)[1] - 1), (1.1, 1.9), "int"),
    "j0": _bessel("j0", -j1(X), (0.2, 5.0)),
    "j1": _bessel("j1", 0.5 * (j0(X) - jn(2.0, X)), (0.2, 5.0)),
    "y0": _bessel("y0", -y1(X), (0.5, 5.0)),
    "y1": _bessel("y1", 0.5 * (y0(X) - yn(2.0, X)), (0.5, 5.0)),
    "jn": _bessel_order("jn", jn, (0.2, 5.0)),
    "yn": _bessel_order("yn", yn, (0.5, 5.0)),
    "lgamma_r": MathFn(
        partials=(digamma(X), ZERO),
        domain=((0.5, 5.0), None),
        primal=lambda x, _sign_ptr: math.lgamma(x),
        operand_kinds=("float", "ptr"),
        notes="lgamma_r(x, int *sign): digamma, a runtime helper; the sign store is an integer",
        helpers=("__irgrad_digamma",),
    ),
}


# the intrinsic returning {mantissa, exponent}; its element 0 is differentiable
LLVM_FREXP = MathFn(
    partials=(exp2(-frexp_exp(X)),),
    domain=((0.3, 50.0),),
    primal=lambda x: math.frexp(x)[0],
    result_kind="struct",
    notes="llvm.frexp returns { mantissa, i32 exponent }: RESULT is the mantissa",
)

# the intrinsic returning {fractional part, integral part}: only element 0 varies
LLVM_MODF = MathFn(
    partials=(ONE,),
    domain=((0.1, 0.9),),
    primal=lambda x: math.modf(x)[0],
    result_kind="struct",
    notes="llvm.modf returns { x - trunc(x), trunc(x) }: d(fract)/dx = 1 (C modf becomes it)",
)
