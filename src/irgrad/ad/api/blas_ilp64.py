"""Fortran BLAS/LAPACK called with 64-bit integers (an ILP64 build): refused, not guessed.

The Fortran interface passes every integer by reference, and its width is the library's
choice: LP64 (32-bit ``INTEGER``, Debian's OpenBLAS and reference LAPACK) or ILP64
(64-bit, ``-fdefault-integer-8`` builds, MKL's ilp64 layer). The rules read by-reference
sizes as 32-bit integers, which is right for LP64; a caller that writes a 64-bit integer
where the routine reads ``n`` would get derivatives of the wrong sizes. So before a
Fortran-spelled routine is differentiated, every call of it in the module is looked at:
an integer argument whose memory the caller fills with an ``i64`` (a store, or a global
of type ``i64``) is a located error.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.diagnostics import located_at
from irgrad.analysis.blas import FORTRAN, INTS, BlasFunction
from irgrad.analysis.underlying_objects import underlying_object
from irgrad.errors import DifferentiationError


def _written_as_i64(arg: ir.Value) -> bool:
    """The caller fills ``arg``'s integer with 64 bits (a global ``i64``, or a store)."""
    base = underlying_object(arg)
    if isinstance(base, ir.GlobalVariable):
        return base.value_type == ir.i64
    return any(isinstance(u, ir.StoreInst) and u.pointer is arg and u.value.type == ir.i64
               for u in arg.users)


def check_lp64(fn: ir.Function, bf: BlasFunction) -> None:
    """Raise a located error when a call of Fortran-spelled ``fn`` passes a 64-bit
    integer for one of its sizes."""
    if bf.spelling is not FORTRAN:
        return
    roles = [(k, r) for k, r in enumerate(bf.params) if r in INTS]
    for use in list(fn.uses):
        call = use.user
        if not isinstance(call, ir.CallBase) or call.callee is not fn:
            continue
        for k, role in roles:
            if k < len(call.args) and _written_as_i64(call.args[k]):
                with located_at(call):
                    raise DifferentiationError(
                        f"{fn.name} is called with a 64-bit integer for '{role}' (an ILP64 "
                        "BLAS/LAPACK interface): irgrad's Fortran BLAS rules read integers "
                        "as 32-bit (LP64); pass 32-bit integers (link an LP64 BLAS such as "
                        "Debian's OpenBLAS) or call the CBLAS interface")


__all__ = ["check_lp64"]
