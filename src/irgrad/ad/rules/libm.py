"""The C math library, with its float (``f``) and long double (``l``) variants.

The names come from the one table of known functions
(:data:`irgrad.analysis.known_functions.LIBM_FUNCTIONS`), which maps each C name to the
elementary function whose partials it has (``fmax`` is ``maxnum``, ``scalbn`` is
``ldexp``); the partials come from ``elementary.MATH`` (shared with the intrinsics).
The functions without an intrinsic (``fdim``, ``remainder``, the Bessel functions,
``lgamma_r``...) come from ``elementary.LIBM_ONLY``.
"""

from __future__ import annotations

from irgrad.ad.rules.elementary import LIBM_ONLY, MATH
from irgrad.ad.rules.rule import def_call
from irgrad.analysis.known_functions import LIBM_FUNCTIONS, libm_names


def spellings(name: str) -> list[str]:
    """The C names of ``name`` in double, float and long double: ``lgamma_r`` is spelled
    ``lgammaf_r``/``lgammal_r``."""
    if name.endswith("_r"):
        base = name.removesuffix("_r")
        return [f"{b}_r" for b in libm_names(base)]
    return libm_names(name)


for _name, _math in LIBM_FUNCTIONS.items():
    def_call(spellings(_name), **(MATH.get(_math) or LIBM_ONLY[_math]).kwargs())

# those the table of known functions does not list (yet): the analyses take their calls
# for external functions that may write memory, which is safe, only less precise
for _name, _fn in LIBM_ONLY.items():
    if _name not in LIBM_FUNCTIONS:
        def_call(spellings(_name), **_fn.kwargs())
