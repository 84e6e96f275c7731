"""The C math library, with its float (``f``) and long double (``l``) variants.

``fmax``/``fmin`` are ``llvm.maxnum``/``llvm.minnum``; ``scalbn`` is ``ldexp``. The
partials come from ``elementary.MATH`` (shared with the intrinsics).
"""

from __future__ import annotations

from irgrad.ad.rules.elementary import MATH
from irgrad.ad.rules.rule import def_call, libm_names

_LIBM = [
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "exp", "exp2", "exp10", "expm1", "log", "log1p", "log2", "log10",
    "pow", "sqrt", "cbrt", "hypot", "fabs", "copysign", "fma", "fmod",
    "erf", "erfc", "tgamma", "lgamma", "frexp", "ldexp", "modf",
    # zero derivative
    "floor", "ceil", "trunc", "round", "roundeven", "rint", "nearbyint",
    "lround", "llround", "lrint", "llrint",
]  # fmt: skip

for _name in _LIBM:
    def_call(libm_names(_name), **MATH[_name].kwargs())

def_call(libm_names("fmax"), **MATH["maxnum"].kwargs())
def_call(libm_names("fmin"), **MATH["minnum"].kwargs())
def_call(libm_names("scalbn"), **MATH["ldexp"].kwargs())
