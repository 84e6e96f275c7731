"""The functions a rule expression may call: arity, Python semantics, how they are emitted.

:data:`FUNCTIONS` maps a name (``sqrt``, ``pow``, ``digamma``...) to a :class:`FunctionSpec`:
its arity, a Python implementation with C/IEEE semantics (the rule coverage test evaluates
expressions with it: division by zero gives infinities/NaN, math domain errors give NaN)
and the recipe :mod:`irgrad.ad.rules.emit` lowers it with (an LLVM intrinsic, an instruction
sequence, or a runtime helper).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Callable
from dataclasses import dataclass


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


def round_even_value(x: float) -> float:
    """C ``rint`` in the default rounding mode: to the nearest integer, ties to even."""
    return float(round(x)) if math.isfinite(x) else x


_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")


def _libm_unary(name: str) -> Callable[[float], float]:
    """The C library's ``double name(double)`` (the Bessel functions: Python has none)."""
    fn = getattr(_LIBM, name)
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]

    def impl(x: float) -> float:
        return float(fn(x))

    impl.__name__ = name
    return impl


def _libm_order(name: str) -> Callable[[float, float], float]:
    """``double name(int n, double x)`` (``jn``, ``yn``); the order comes as a float."""
    fn = getattr(_LIBM, name)
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_int, ctypes.c_double]

    def impl(n: float, x: float) -> float:
        return float(fn(int(n), x))

    impl.__name__ = name
    return impl


#: rule functions emitted as a call of the C library function of the rule's type
#: (``j1``, ``j1f``, ``j1l``); ``jn``/``yn`` take their order as an ``int``
LIBM_CALL = "libm:"


@dataclass(frozen=True)
class FunctionSpec:
    """A function node: arity, Python implementation, and how the emitter lowers it."""

    name: str
    arity: int
    impl: Callable[..., float]
    emit: str  # an LLVM intrinsic base name, an instruction recipe, "runtime:<symbol>" or
    # "libm:<name>" (a C library call)
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
        FunctionSpec("rint", 1, round_even_value, "llvm.rint", "round to nearest, ties to even"),
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
        *(FunctionSpec(n, 1, _libm_unary(n), LIBM_CALL + n, f"Bessel function {n}(a)")
          for n in ("j0", "j1", "y0", "y1")),
        *(FunctionSpec(n, 2, _libm_order(n), LIBM_CALL + n,
                       f"Bessel function {n}(a, b) of integer order a (converted to int)")
          for n in ("jn", "yn")),
    )
}


__all__ = [
    "FUNCTIONS",
    "LIBM_CALL",
    "FunctionSpec",
    "digamma_value",
    "frexp_exp_value",
    "ieee_div",
    "ieee_pow",
    "round_even_value",
    "sign_value",
]
