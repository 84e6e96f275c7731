"""The top of the AD engine: lowering of the user's ``__enzyme_*`` calls.

``lower_enzyme_calls(module)`` replaces every call of an Enzyme entry point by what it asks
for (:mod:`irgrad.ad.api.lower`); the names are in :mod:`irgrad.ad.api.markers`, a call
is read by :mod:`irgrad.ad.api.entry_calls`, its result adapted by
:mod:`irgrad.ad.api.results`; split mode is :mod:`irgrad.ad.api.split`, vector reverse
mode :mod:`irgrad.ad.api.vector_reverse`, ``__enzyme_batch`` :mod:`irgrad.ad.api.batch`,
Enzyme's in-code hints :mod:`irgrad.ad.api.hints`;
:mod:`irgrad.ad.api.small_loops` marks small loops of differentiated functions for full
unrolling before AD.
"""

from irgrad.ad.api.entry_calls import parse_call
from irgrad.ad.api.lower import lower_calls_in_order, lower_enzyme_calls, new_context
from irgrad.ad.api.markers import entry_kind, entry_mode, enzyme_calls, marker_name, strip_casts
from irgrad.ad.api.small_loops import mark_small_loops_for_full_unroll

__all__ = [
    "entry_kind",
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
