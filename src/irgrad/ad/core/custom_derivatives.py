"""Custom derivatives: the user's own derivative functions (Enzyme's registrations).

``__enzyme_register_gradient_<name> = {fn, augmented_forward, reverse}``,
``__enzyme_register_derivative_<name> = {fn, forward}`` and
``__enzyme_register_splitderivative_<name> = {fn, augmented_forward, forward}`` are read
by :mod:`irgrad.ad.api.registrations` into a :class:`CustomDerivatives` registry per
module. The :class:`~irgrad.ad.core.context.DerivativeContext` consults it: a derivative
request for a registered function is answered by a small wrapper that calls the user's
functions (:mod:`irgrad.ad.core.custom_wrappers`), wherever the request comes from (the
user's ``__enzyme_*`` call, or a call inside a function being differentiated, at any
depth, in a loop, in split mode).

The calling convention is Enzyme's, with every argument taken as active ("full
activity"; Enzyme massages its calls the same way):

* each pointer argument is followed by its shadow, in every custom function;
* a floating-point argument (scalar, vector, or aggregate of them): in forward mode it is
  followed by its tangent (0 when inactive at a call); in reverse mode it is active, the
  reverse pass returns its derivative (dropped when it is inactive at a call);
* an integer argument is passed once, or twice (Enzyme passes constant integers as their
  own "shadow"): which one is read from the arity of the registered function;
* the augmented forward pass returns the tape and the primal result: ``void*`` (or any
  tape type) for a ``void`` function, ``{tape, result}`` otherwise, or the result alone
  when there is no tape (a struct returned through ``sret`` counts as returned); one
  that returns nothing for a function with a result has nothing to do and keeps no
  tape: the result comes from a call of the function itself;
* the reverse pass takes the augmented forward pass's arguments, then the adjoint of the
  result (when the function returns a floating-point value), then the tape (when there
  is one); it adds into the shadows and returns the derivatives of the floating-point
  arguments: nothing, one value (or a struct of one), or a struct of them, in order;
* the forward derivative takes the arguments each followed by its tangent and returns
  ``{result, tangent}`` (nothing for a ``void`` function); the split forward derivative
  takes the same followed by the tape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode
from irgrad.analysis.activity import has_float
from irgrad.errors import DifferentiationError

if TYPE_CHECKING:
    from collections.abc import Sequence


class Role(Enum):
    """What one parameter of a custom derivative function receives."""

    PRIMAL = "argument"
    SHADOW = "shadow of argument"
    INT_COPY = "copy of argument"  # Enzyme's "shadow" of a constant integer
    DRET = "adjoint of the result"
    TAPE = "tape"


@dataclass(frozen=True)
class Param:
    role: Role
    index: int  # the original argument (-1 for the result's adjoint and the tape)
    type: ir.Type

    def describe(self, fn: ir.Function) -> str:
        if self.index < 0:
            return f"{self.role.value} ({self.type})"
        arg = fn.args[self.index]
        name = f" '{arg.name}'" if arg.name else ""
        return f"{self.role.value} {self.index + 1}{name} ({self.type})"


def param_kind(ty: ir.Type) -> str:
    """'pointer', 'float' (floating-point scalar, vector or aggregate), 'int' or 'other'."""
    if ty.is_pointer:
        return "pointer"
    if has_float(ty):
        return "float"
    if ty.is_integer:
        return "int"
    return "other"


def argument_params(fn: ir.Function, *, float_shadows: bool, int_copies: bool) -> list[Param]:
    """The leading parameters of a custom function of ``fn`` (module docstring)."""
    out: list[Param] = []
    for k, a in enumerate(fn.args):
        out.append(Param(Role.PRIMAL, k, a.type))
        kind = param_kind(a.type)
        if kind == "pointer" or (kind == "float" and float_shadows):
            out.append(Param(Role.SHADOW, k, a.type))
        elif kind == "int" and int_copies:
            out.append(Param(Role.INT_COPY, k, a.type))
    return out


def active_scalars(fn: ir.Function) -> list[int]:
    """The arguments whose derivatives a custom reverse pass returns, in order."""
    return [k for k, a in enumerate(fn.args) if param_kind(a.type) == "float"]


class AugmentedLayout(Enum):
    """How a custom augmented forward pass returns (tape, result)."""

    NOTHING = "nothing"  # void: no tape (the function returns void)
    TAPE = "tape"  # the tape (the function returns void)
    RESULT = "result"  # the result, no tape
    TAPE_RESULT = "tape+result"  # {tape, result}
    # void, for a function that returns a value: no tape, and the result comes from a call
    # of the function itself (an augmented pass with nothing to do, as Enzyme allows)
    PRIMAL = "primal"


@dataclass(frozen=True)
class CustomFunction:
    """A registered function and how to call it: its parameters (``int_copies`` chosen
    from its arity), its return value read through ``sret`` when it has one."""

    function: ir.Function
    params: tuple[Param, ...]
    sret: ir.Type | None = None  # the struct returned through the first parameter

    @property
    def return_type(self) -> ir.Type:
        return self.sret if self.sret is not None else self.function.return_type


@dataclass(frozen=True)
class CustomGradient:
    """``__enzyme_register_gradient_*``: reverse mode (combined and split)."""

    function: ir.Function
    augmented: CustomFunction
    reverse: CustomFunction
    layout: AugmentedLayout
    tape_type: ir.Type | None  # None: no tape
    source: str  # the registration (for messages)


@dataclass(frozen=True)
class CustomForward:
    """``__enzyme_register_derivative_*`` (``augmented`` None) or
    ``__enzyme_register_splitderivative_*`` (``augmented`` runs first, its tape goes to
    ``forward``): forward mode."""

    function: ir.Function
    forward: CustomFunction
    source: str
    augmented: CustomFunction | None = None
    layout: AugmentedLayout = AugmentedLayout.NOTHING
    tape_type: ir.Type | None = None


Custom = CustomGradient | CustomForward

_REGISTRATION_FOR_MODE = {
    DerivativeMode.FORWARD: "__enzyme_register_derivative_",
    DerivativeMode.REVERSE_COMBINED: "__enzyme_register_gradient_",
    DerivativeMode.REVERSE_PRIMAL: "__enzyme_register_gradient_",
    DerivativeMode.REVERSE_GRADIENT: "__enzyme_register_gradient_",
}


@dataclass
class CustomDerivatives:
    """The custom derivatives of one module, by function."""

    gradients: dict[ir.Function, CustomGradient] = field(default_factory=dict)
    forwards: dict[ir.Function, CustomForward] = field(default_factory=dict)

    def has(self, fn: ir.Function | None) -> bool:
        """Does ``fn`` have a custom derivative in some mode (then every derivative of it
        must come from the registrations, never from its body)?"""
        return fn is not None and (fn in self.gradients or fn in self.forwards)

    def for_mode(self, fn: ir.Function, mode: DerivativeMode) -> Custom | None:
        """The registration that answers a ``mode`` request for ``fn``; None when ``fn``
        has none; an error when ``fn`` has registrations, but none for ``mode``."""
        table = self.forwards if mode is DerivativeMode.FORWARD else self.gradients
        found: Custom | None = table.get(fn)
        if found is not None or not self.has(fn):
            return found
        other = self.gradients.get(fn) or self.forwards.get(fn)
        assert other is not None
        what = "forward mode" if mode is DerivativeMode.FORWARD else "reverse mode"
        raise DifferentiationError(
            f"{fn.name} has a custom derivative ({other.source}) that cannot be used in "
            f"{what}: {what} needs {_REGISTRATION_FOR_MODE[mode]}<name> = "
            + ("{fn, forward}" if mode is DerivativeMode.FORWARD
               else "{fn, augmented_forward, reverse}")
            + f" for {fn.name}")


def describe_params(fn: ir.Function, params: Sequence[Param]) -> str:
    return "(" + ", ".join(p.describe(fn) for p in params) + ")"


__all__ = [
    "AugmentedLayout",
    "Custom",
    "CustomDerivatives",
    "CustomForward",
    "CustomFunction",
    "CustomGradient",
    "Param",
    "Role",
    "active_scalars",
    "argument_params",
    "describe_params",
    "param_kind",
]
