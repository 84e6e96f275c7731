"""Activities given in Python, mirroring Enzyme's argument markers.

| Python                     | C marker            | meaning                                       |
|----------------------------|---------------------|-----------------------------------------------|
| ``Active(x)``              | ``enzyme_out``      | float scalar; reverse mode returns d/dx        |
| ``Const(x)``               | ``enzyme_const``    | not differentiated                             |
| ``Duplicated(x, dx)``      | ``enzyme_dup``      | value and shadow (array: adjoint/tangent       |
|                            |                     | memory; forward scalar: the tangent)           |
| ``DuplicatedNoNeed(x, dx)``| ``enzyme_dupnoneed``| like Duplicated, the primal value is not needed|

The classes are frozen dataclasses. A bare class (``Active``, ``Const``...) can stand for
"this activity" where only the pattern matters (e.g. ``activities=`` arguments).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Active:
    """An active floating-point scalar (``enzyme_out``): its derivative is returned."""

    value: Any

    marker = "enzyme_out"


@dataclass(frozen=True)
class Const:
    """A value that is not differentiated (``enzyme_const``)."""

    value: Any

    marker = "enzyme_const"


@dataclass(frozen=True)
class Duplicated:
    """A value with its shadow (``enzyme_dup``).

    Reverse mode: arrays only; derivatives are ADDED into ``shadow``. Forward mode: the
    shadow is the tangent (a number for a scalar, an array for an array); tangents of
    outputs written through pointers are stored into their shadows.
    """

    value: Any
    shadow: Any

    marker = "enzyme_dup"


@dataclass(frozen=True)
class DuplicatedNoNeed:
    """Like :class:`Duplicated`, but the primal value is not needed (``enzyme_dupnoneed``)."""

    value: Any
    shadow: Any

    marker = "enzyme_dupnoneed"


Activity = Active | Const | Duplicated | DuplicatedNoNeed
ACTIVITY_CLASSES: tuple[type, ...] = (Active, Const, Duplicated, DuplicatedNoNeed)


def has_shadow(arg: object) -> bool:
    """Whether ``arg`` is a Duplicated / DuplicatedNoNeed wrapper (or such a class)."""
    cls = arg if isinstance(arg, type) else type(arg)
    return cls in (Duplicated, DuplicatedNoNeed)


__all__ = [
    "ACTIVITY_CLASSES",
    "Active",
    "Activity",
    "Const",
    "Duplicated",
    "DuplicatedNoNeed",
    "has_shadow",
]
