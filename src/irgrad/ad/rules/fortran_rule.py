"""The record of a derivative rule of flang's runtime, the operands it sees, and the
registry (the tables: :mod:`irgrad.ad.rules.fortran` for the array intrinsics,
:mod:`irgrad.ad.rules.fortran_alloc` for allocation and assignment; the emitter:
:mod:`irgrad.ad.rules.fortran_emit`; the synthesizer that runs them:
:mod:`irgrad.ad.api.fortran_derivatives`).

A rule (:class:`FortranRule`) has:

* ``saves(o)``: what the augmented forward pass keeps for the reverse pass, in order:
  ``"view:<role>"`` the shadow array of a descriptor argument as it is after the call (its
  shape, the shadow's base address), ``"copy:<role>"`` a contiguous copy of a primal array
  the reverse pass reads, ``"value:<name>"`` a pointer the rule computed
  (``o.saved[name]``);
* ``before(e, o)``: run before the primal call in both modes (what the call changes:
  the old shadow block of a reallocated or deallocated array);
* ``shadow(e, o)``: run after the primal call in both modes: the shadow side of an
  allocation (a zeroed block of the primal's size in the shadow descriptor) or of a
  deallocation (the shadow block released: at once in forward mode, after the reverse
  pass in reverse mode, :attr:`FortranOperands.release`);
* ``augment(e, o)``: reverse mode only, after ``shadow``: the zeroed shadow of a result
  the runtime allocated (forward mode makes it from the tangents), the values to save;
* ``forward(e, o)``: the tangent after the primal call (a reduction returns it);
* ``reverse(e, o)``: adds the adjoints into the shadows (``o.d``: the saved views,
  ``o.copies``: the saved copies, ``o.dret``: the adjoint of a returned value).

An inactive operand (``o.d[role]`` None, or a shadow array with a null base at run time)
gets no work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from irgrad import ir
from irgrad.ad.rules.fortran_emit import DescriptorEmitter

Saves = list[str]


@dataclass
class FortranOperands:
    """One runtime call inside a derivative function."""

    function: ir.Function  # the routine's declaration
    roles: tuple[str, ...]
    v: dict[str, ir.Value]  # primal arguments by role
    d: dict[str, ir.Value | None]  # shadow descriptors (reverse: the saved views)
    copies: dict[str, ir.Value] = field(default_factory=dict)
    saved: dict[str, ir.Value] = field(default_factory=dict)
    before: dict[str, ir.Value] = field(default_factory=dict)
    result: ir.Value | None = None  # the primal call's
    dret: ir.Value | None = None
    # drops the shadow array a view describes: now (forward mode) or when the reverse
    # pass is over (reverse mode)
    release: Callable[[DescriptorEmitter, ir.Value], None] | None = None

    def active(self, role: str) -> bool:
        return self.d.get(role) is not None

    def again(self, e: DescriptorEmitter, **replaced: ir.Value) -> ir.Value:
        """The routine called again with some arguments replaced."""
        args = [replaced.get(role, self.v[role]) for role in self.roles]
        return e.b.call(self.function, args)


@dataclass(frozen=True)
class FortranRule:
    family: str
    saves: Callable[[FortranOperands], Saves]
    forward: Callable[[DescriptorEmitter, FortranOperands], ir.Value | None]
    reverse: Callable[[DescriptorEmitter, FortranOperands], None]
    before: Callable[[DescriptorEmitter, FortranOperands], None] | None = None
    shadow: Callable[[DescriptorEmitter, FortranOperands], None] | None = None
    augment: Callable[[DescriptorEmitter, FortranOperands], None] | None = None
    # descriptors on the tape have at most this rank (a role: that argument's rank)
    slot_rank: int | str = 2


FORTRAN_RULES: dict[str, FortranRule] = {}


def def_fortran(rule: FortranRule, *families: str) -> None:
    for fam in (rule.family, *families):
        FORTRAN_RULES[fam] = rule


def nothing(e: DescriptorEmitter, o: FortranOperands) -> None:
    return None


def no_saves(o: FortranOperands) -> Saves:
    return []


def views(o: FortranOperands, *roles: str) -> Saves:
    return [f"view:{r}" for r in roles if o.active(r)]


def shadow_of(o: FortranOperands, role: str) -> ir.Value:
    d = o.d[role]
    assert d is not None
    return d




__all__ = ["FORTRAN_RULES", "FortranOperands", "FortranRule", "Saves", "def_fortran",
           "no_saves", "nothing", "shadow_of", "views"]
