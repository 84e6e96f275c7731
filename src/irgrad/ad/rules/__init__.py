"""Derivative rules as data: the expression DSL, the rule tables and their registry.

``lookup_instruction("fmul")``, ``lookup_intrinsic("llvm.sin.f64")`` and
``lookup_call("atanf")`` return a :class:`Rule` (or None); ``all_rules()`` lists them.
Importing this package registers every table (arith, intrinsics, libm, BLAS, flang's
runtime).
"""

import re

from irgrad.ad.rules import (  # noqa: F401  (register the tables)
    arith,
    blas,
    blas_lapack,
    blas_lu,
    blas_lu_solve,
    blas_triangular,
    fortran,
    fortran_alloc,
    fortran_product,
    fortran_scalar,
    intrinsics,
    libm,
)
from irgrad.ad.rules.blas_rule import BLAS_RULES, BlasOperands, BlasRule
from irgrad.ad.rules.fortran_rule import FORTRAN_RULES, FortranOperands, FortranRule
from irgrad.ad.rules.masked import masked_kind
from irgrad.ad.rules.rule import (
    Rule,
    all_rules,
    intrinsic_base_name,
    lookup_call,
    lookup_instruction,
    lookup_intrinsic,
)
from irgrad.ad.rules.vector import lane_map_terms, reduction


def intrinsic_has_derivative(name: str) -> bool:
    """An intrinsic the engine differentiates: an elementwise rule, a vector reduction,
    a lane map (``hadd``) or a masked memory access; or one a pre-AD step rewrites into
    those (``llvm.sincos``: a sine and a cosine, by
    :mod:`irgrad.llvm.sincos_libcalls`; x86's packed max/min: a compare and select, by
    :mod:`irgrad.ad.core.known_asm`)."""
    return (lookup_intrinsic(name) is not None or reduction(name) is not None
            or lane_map_terms(name) is not None or masked_kind(name) is not None
            or name.startswith("llvm.sincos.") or _X86_MIN_MAX.match(name) is not None)


_X86_MIN_MAX = re.compile(r"^llvm\.x86\.(sse2?|avx|avx512)\.(max|min)\.p[sd](\.256|\.512)?$")


__all__ = [
    "BLAS_RULES",
    "FORTRAN_RULES",
    "BlasOperands",
    "BlasRule",
    "FortranOperands",
    "FortranRule",
    "Rule",
    "all_rules",
    "intrinsic_base_name",
    "intrinsic_has_derivative",
    "lookup_call",
    "lookup_instruction",
    "lookup_intrinsic",
]
