"""The C math library, with its float (``f``) and long double (``l``) variants.

The names come from the one table of known functions
(:data:`irgrad.analysis.known_functions.LIBM_FUNCTIONS`), which maps each C name to the
elementary function whose partials it has (``fmax`` is ``maxnum``, ``scalbn`` is
``ldexp``); the partials come from ``elementary.MATH`` (shared with the intrinsics).
"""

from __future__ import annotations

from irgrad.ad.rules.elementary import MATH
from irgrad.ad.rules.rule import def_call
from irgrad.analysis.known_functions import LIBM_FUNCTIONS, libm_names

for _name, _math in LIBM_FUNCTIONS.items():
    def_call(libm_names(_name), **MATH[_math].kwargs())
