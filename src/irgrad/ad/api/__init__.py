"""The top of the AD engine: lowering of the user's ``__enzyme_*`` calls.

``lower_enzyme_calls(module)`` replaces every call of an Enzyme entry point by a call to
its synthesized derivative (:mod:`irgrad.ad.api.lower`); the calls are read by
:mod:`irgrad.ad.api.entry_calls`, split mode by :mod:`irgrad.ad.api.split`;
:mod:`irgrad.ad.api.small_loops` marks small loops of differentiated functions for full
unrolling before AD.
"""

from irgrad.ad.api.entry_calls import entry_mode, enzyme_calls, marker_name, parse_call, strip_casts
from irgrad.ad.api.lower import lower_calls_in_order, lower_enzyme_calls, new_context
from irgrad.ad.api.small_loops import mark_small_loops_for_full_unroll

__all__ = [
    "entry_mode",
    "enzyme_calls",
    "lower_calls_in_order",
    "lower_enzyme_calls",
    "mark_small_loops_for_full_unroll",
    "marker_name",
    "new_context",
    "parse_call",
    "strip_casts",
]
