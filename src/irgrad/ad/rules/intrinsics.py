"""LLVM intrinsics, matched by base name (``llvm.sin.f64``, ``llvm.sin.v4f64`` -> ``llvm.sin``).

Vector overloads use the same partials elementwise. The partials come from
``elementary.MATH`` so each derivative is written once for libm and intrinsics.
"""

from __future__ import annotations

import math

from irgrad.ad.rules.elementary import LLVM_FREXP, LLVM_MODF, MATH, maximum, maxnum, minimum, minnum
from irgrad.ad.rules.expr import ZERO
from irgrad.ad.rules.rule import def_intrinsic

_SAME_AS_MATH = [
    "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "exp", "exp2", "exp10", "log", "log2", "log10", "pow", "powi", "fabs", "copysign",
    "ldexp",
    # zero derivative
    "floor", "ceil", "trunc", "round", "roundeven", "rint", "nearbyint",
    "lround", "llround", "lrint", "llrint",
]  # fmt: skip

for _name in _SAME_AS_MATH:
    def_intrinsic([f"llvm.{_name}"], **MATH[_name].kwargs())

def_intrinsic(["llvm.fma", "llvm.fmuladd"], **MATH["fma"].kwargs())
def_intrinsic(
    ["llvm.minnum"], **{**MATH["minnum"].kwargs(), "primal": minnum}
)
def_intrinsic(
    ["llvm.minimumnum"],
    **{**MATH["minnum"].kwargs(), "primal": minnum, "notes": "IEEE 754-2019 minimumNumber"},
)
def_intrinsic(["llvm.maxnum"], **{**MATH["maxnum"].kwargs(), "primal": maxnum})
def_intrinsic(
    ["llvm.maximumnum"],
    **{**MATH["maxnum"].kwargs(), "primal": maxnum, "notes": "IEEE 754-2019 maximumNumber"},
)
def_intrinsic(["llvm.minimum"], **{**MATH["minimum"].kwargs(), "primal": minimum})
def_intrinsic(["llvm.maximum"], **{**MATH["maximum"].kwargs(), "primal": maximum})
def_intrinsic(["llvm.frexp"], result_index=0, **LLVM_FREXP.kwargs())
def_intrinsic(["llvm.modf"], result_index=0, **LLVM_MODF.kwargs())
# saturating float -> integer conversions (Rust's `as`, flang's int()): like fptosi/fptoui
def_intrinsic(
    ["llvm.fptosi.sat", "llvm.fptoui.sat"],
    partials=[ZERO],
    domain=[(0.1, 0.9)],
    primal=lambda x: float(math.trunc(x)),
    result_kind="int",
    notes="a saturating conversion: an integer result carries no derivative",
)
