"""flang's runtime routines for scalar real intrinsics that LLVM has no instruction for:
``mod(a, p)`` (``_FortranAModReal4``/``8``: ``a - int(a/p)*p``, C's ``fmod``) and
``modulo(a, p)`` (``_FortranAModuloReal4``/``8``: ``a - floor(a/p)*p``). Both take the
source file and line after the operands (integers and a message: no derivatives). The
partials are 1 and ``-int(a/p)`` or ``-floor(a/p)``; both are discontinuous where ``a/p``
is an integer. The rules name the two real operands only (the arguments after them carry
no derivatives).
"""

from __future__ import annotations

import math

from irgrad.ad.rules.expr import X, Y, gt, trunc, where
from irgrad.ad.rules.rule import def_call

_QUOTIENT = trunc(X / Y)


def _modulo(a: float, p: float) -> float:
    return a - math.floor(a / p) * p


for _kind in ("4", "8"):
    def_call([f"_FortranAModReal{_kind}"],
             partials=(1.0, -_QUOTIENT),
             domain=((2.2, 2.8), (1.0, 1.05)),
             primal=math.fmod,
             notes="Fortran's MOD of reals: a - int(a/p)*p")
    def_call([f"_FortranAModuloReal{_kind}"],
             partials=(1.0, -where(gt(_QUOTIENT, X / Y), _QUOTIENT - 1.0, _QUOTIENT)),
             domain=((-2.8, -2.2), (1.0, 1.05)),
             primal=_modulo,
             notes="Fortran's MODULO of reals: a - floor(a/p)*p")
