"""Derivative rules as data: the expression DSL, the rule tables and their registry.

``lookup_instruction("fmul")``, ``lookup_intrinsic("llvm.sin.f64")`` and
``lookup_call("atanf")`` return a :class:`Rule` (or None); ``all_rules()`` lists them.
Importing this package registers every table (arith, intrinsics, libm).
"""

from irgrad.ad.rules import arith, intrinsics, libm  # noqa: F401  (register the tables)
from irgrad.ad.rules.rule import (
    Rule,
    all_rules,
    intrinsic_base_name,
    lookup_call,
    lookup_instruction,
    lookup_intrinsic,
)

__all__ = [
    "Rule",
    "all_rules",
    "intrinsic_base_name",
    "lookup_call",
    "lookup_instruction",
    "lookup_intrinsic",
]
