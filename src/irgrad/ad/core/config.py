"""What a derivative request asks for: Enzyme's DerivativeMode, DiffeType and FnConfig."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irgrad.ir import Function


# keys of FnConfig.extra
TAPE_IN_BUFFER_KEY = "tape_in_buffer"  # split mode: the tape is written to a caller buffer
NOT_OVERWRITTEN_KEY = "not_overwritten"  # split mode: argument indices whose memory is kept
# pairs (k, j), k < j, of pointer arguments that every call site served passes into
# different objects (irgrad.analysis.distinct_arguments): the derivative may assume that
# stores through the one leave what it reads through the other alone
DISTINCT_ARGUMENTS_KEY = "distinct_arguments"
# split mode between derivatives irgrad made: the callee pushes its tape onto the caller's
# byte stack (one more parameter, the caller's tape state) instead of a malloc of its own
TAPE_ON_CALLER_STACK_KEY = "tape_on_caller_stack"


class DerivativeMode(Enum):
    """Which derivative function to synthesize."""

    FORWARD = "forward"  # tangents alongside the primal (__enzyme_fwddiff)
    REVERSE_COMBINED = "reverse"  # augmented forward + reverse in one function (__enzyme_autodiff)
    REVERSE_PRIMAL = "augmented"  # augmented forward pass returning a tape (__enzyme_augmentfwd)
    REVERSE_GRADIENT = "gradient"  # reverse pass consuming a tape (__enzyme_reverse)


class DiffeType(Enum):
    """How one argument (or the return value) takes part in differentiation."""

    DUP = "dup"  # value and shadow (pointer: shadow memory; forward scalar: tangent)
    DUP_NONEED = "dupnoneed"  # like DUP, but the primal result/value is not needed
    OUT = "out"  # active scalar: reverse mode returns its derivative
    CONST = "const"  # not differentiated

    @property
    def is_active(self) -> bool:
        return self is not DiffeType.CONST


@dataclass(frozen=True)
class FnConfig:
    """A derivative request: the key of the derivative cache (one synthesis per key)."""

    function: Function
    mode: DerivativeMode
    arg_types: tuple[DiffeType, ...]
    return_type: DiffeType  # OUT: seeded/adjoint-carrying return; CONST: ignored
    width: int = 1  # vector forward mode: number of tangents carried side by side
    return_primal: bool = False  # the derivative also returns the primal result
    free_memory: bool = True  # tapes are freed by the reverse pass
    extra: tuple[tuple[str, object], ...] = field(default=())

    def __hash__(self) -> int:
        return hash(
            (
                id(self.function),
                self.mode,
                self.arg_types,
                self.return_type,
                self.width,
                self.return_primal,
                self.free_memory,
                self.extra,
            )
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, FnConfig)
            and self.function is other.function
            and self.mode == other.mode
            and self.arg_types == other.arg_types
            and self.return_type == other.return_type
            and self.width == other.width
            and self.return_primal == other.return_primal
            and self.free_memory == other.free_memory
            and self.extra == other.extra
        )
