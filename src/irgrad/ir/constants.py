"""Constants: scalars, aggregates, constant expressions, block addresses, inline asm."""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .types import FloatType, FunctionType, IntType, PointerType, TokenType, Type
from .values import User, Value

if TYPE_CHECKING:
    from .function import BasicBlock, Function


class Constant(User):
    """Base class of constants (their operands are constants too)."""

    __slots__ = ()

    @property
    def is_constant(self) -> bool:
        return True

    def is_null_value(self) -> bool:
        return False


class ConstantInt(Constant):
    __slots__ = ("value",)

    def __init__(self, type: Type, value: int) -> None:
        Constant.__init__(self, type)
        self.value = value

    @property
    def width(self) -> int:
        return self.type.width  # type: ignore[attr-defined]

    @property
    def signed_value(self) -> int:
        w = self.width
        v = self.value & ((1 << w) - 1)
        return v - (1 << w) if v >> (w - 1) else v

    @property
    def unsigned_value(self) -> int:
        return self.value & ((1 << self.width) - 1)

    def is_null_value(self) -> bool:
        return self.value == 0

    def __repr__(self) -> str:
        return f"<ConstantInt {self.type} {self.value}>"


def _double_hex(value: float) -> str:
    return "0x" + struct.pack(">d", value).hex().upper()


def format_fp(type: FloatType, value: float) -> str:
    """LLVM's spelling of a float/double constant value (decimal when exact, else hex)."""
    if type.kind in ("float", "double"):
        if type.kind == "float":
            value = struct.unpack("<f", struct.pack("<f", value))[0] if math.isfinite(value) else value
        if math.isfinite(value):
            # LLVM: 6 significant digits if they read back exactly, printed as %e
            text = f"{value:.5e}"
            if float(text) == value:
                mant, exp = text.split("e")
                return f"{mant}0e{exp}"
        return _double_hex(value)
    if type.kind == "half":
        bits = struct.unpack("<H", struct.pack("<e", value))[0]
        return f"0xH{bits:04X}"
    if type.kind == "bfloat":
        bits = struct.unpack("<I", struct.pack("<f", value))[0] >> 16
        return f"0xR{bits:04X}"
    if type.kind == "x86_fp80":
        return "0xK" + _x86_fp80_hex(value)
    if type.kind == "fp128":
        bits = _fp128_bits(value)
        return f"0xL{bits & ((1 << 64) - 1):016X}{bits >> 64:016X}"
    # ppc_fp128 (double-double): the value in the high double, zero in the low one
    return "0xM" + _double_hex(value)[2:] + "0000000000000000"


def _x86_fp80_hex(value: float) -> str:
    """x86 80-bit extended: sign+exponent (16 bits), explicit-integer mantissa (64 bits)."""
    sign = 0x8000 if math.copysign(1.0, value) < 0 else 0
    if math.isnan(value):
        return f"{0x7FFF:04X}{0xC000000000000000:016X}"
    if math.isinf(value):
        return f"{sign | 0x7FFF:04X}{1 << 63:016X}"
    if value == 0.0:
        return f"{sign:04X}{0:016X}"
    m, e = math.frexp(abs(value))  # abs(value) = m * 2**e, 0.5 <= m < 1 (exact)
    return f"{sign | (e + 16382):04X}{int(m * 2.0**64):016X}"


def _fp128_bits(value: float) -> int:
    """IEEE binary128 bits of a double value (exact)."""
    sign = 1 << 127 if math.copysign(1.0, value) < 0 else 0
    if math.isnan(value):
        return (0x7FFF << 112) | (1 << 111)
    if math.isinf(value):
        return sign | (0x7FFF << 112)
    if value == 0.0:
        return sign
    m, e = math.frexp(abs(value))
    exponent = e - 1 + 16383
    if exponent <= 0:  # a double's subnormals are normal in binary128; this cannot happen
        raise ValueError(f"fp128 exponent out of range for {value!r}")
    fraction = int((m * 2.0 - 1.0) * 2.0**112)
    return sign | (exponent << 112) | fraction


class ConstantFP(Constant):
    """A floating-point constant; ``text`` keeps the original spelling for exact round trips."""

    __slots__ = ("text", "value")

    def __init__(self, type: Type, value: float, text: str | None = None) -> None:
        Constant.__init__(self, type)
        self.value = value
        self.text = text

    def spelling(self) -> str:
        if self.text is not None:
            return self.text
        return format_fp(self.type, self.value)  # type: ignore[arg-type]

    def is_null_value(self) -> bool:
        return self.value == 0.0 and math.copysign(1.0, self.value) > 0

    def __repr__(self) -> str:
        return f"<ConstantFP {self.type} {self.spelling()}>"


class ConstantPointerNull(Constant):
    __slots__ = ()

    def __init__(self, type: Type | None = None) -> None:
        Constant.__init__(self, type or PointerType(0))

    def is_null_value(self) -> bool:
        return True


class UndefValue(Constant):
    __slots__ = ()

    def __init__(self, type: Type) -> None:
        Constant.__init__(self, type)


class PoisonValue(UndefValue):
    __slots__ = ()


class ConstantAggregateZero(Constant):
    """``zeroinitializer``."""

    __slots__ = ()

    def __init__(self, type: Type) -> None:
        Constant.__init__(self, type)

    def is_null_value(self) -> bool:
        return True


class ConstantTokenNone(Constant):
    __slots__ = ()

    def __init__(self) -> None:
        Constant.__init__(self, TokenType())


class ConstantTargetNone(Constant):
    """``target("...") none``."""

    __slots__ = ()

    def __init__(self, type: Type) -> None:
        Constant.__init__(self, type)


class ConstantAggregate(Constant):
    __slots__ = ()

    def __init__(self, type: Type, elements: Sequence[Value]) -> None:
        Constant.__init__(self, type, elements)

    @property
    def elements(self) -> tuple[Value, ...]:
        return tuple(self._operands)


class ConstantArray(ConstantAggregate):
    __slots__ = ()


class ConstantStruct(ConstantAggregate):
    __slots__ = ()


class ConstantVector(ConstantAggregate):
    """``<T a, T b>``; with ``splat=True`` (``splat (T a)``) the single operand is repeated."""

    __slots__ = ("splat",)

    def __init__(self, type: Type, elements: Sequence[Value], splat: bool = False) -> None:
        ConstantAggregate.__init__(self, type, elements)
        self.splat = splat

    @property
    def elements(self) -> tuple[Value, ...]:
        if self.splat:
            return tuple(self._operands) * self.type.count  # type: ignore[attr-defined]
        return tuple(self._operands)


class ConstantDataString(Constant):
    """``c"..."``: an ``[N x i8]`` array written as a string."""

    __slots__ = ("data",)

    def __init__(self, type: Type, data: bytes) -> None:
        Constant.__init__(self, type)
        self.data = data


class ConstantExpr(Constant):
    """A constant expression: ``getelementptr``, casts, ``add``/``sub``/``xor``..., compares.

    ``flags`` are keywords such as ``inbounds``/``nuw``/``nsw`` (and raw ``inrange(a, b)``);
    ``source_type`` is the GEP source element type; ``predicate`` the compare predicate.
    """

    __slots__ = ("flags", "opcode", "predicate", "source_type")

    def __init__(
        self,
        opcode: str,
        type: Type,
        operands: Sequence[Value],
        flags: Sequence[str] = (),
        predicate: str | None = None,
        source_type: Type | None = None,
    ) -> None:
        Constant.__init__(self, type, operands)
        self.opcode = opcode
        self.flags = list(flags)
        self.predicate = predicate
        self.source_type = source_type

    def __repr__(self) -> str:
        return f"<ConstantExpr {self.opcode}>"


class BlockAddress(Constant):
    """``blockaddress(@f, %bb)``; ``block`` is a BasicBlock, or its name until resolved."""

    __slots__ = ("block",)

    def __init__(self, function: Value, block: BasicBlock | str) -> None:
        Constant.__init__(self, PointerType(0), [function])
        self.block = block

    @property
    def function(self) -> Function:
        return self._operands[0]  # type: ignore[return-value]


class DSOLocalEquivalent(Constant):
    __slots__ = ()

    def __init__(self, gv: Value) -> None:
        Constant.__init__(self, gv.type, [gv])

    @property
    def global_value(self) -> Value:
        return self._operands[0]


class NoCFIValue(DSOLocalEquivalent):
    __slots__ = ()


class InlineAsm(Value):
    """``asm sideeffect alignstack inteldialect unwind "asm", "constraints"`` as a callee."""

    __slots__ = ("align_stack", "asm", "can_throw", "constraints", "dialect", "side_effect")

    def __init__(
        self,
        type: FunctionType,
        asm: str,
        constraints: str,
        side_effect: bool = False,
        align_stack: bool = False,
        dialect: str = "att",
        can_throw: bool = False,
    ) -> None:
        Value.__init__(self, type)
        self.asm = asm
        self.constraints = constraints
        self.side_effect = side_effect
        self.align_stack = align_stack
        self.dialect = dialect
        self.can_throw = can_throw

    @property
    def is_constant(self) -> bool:
        return True


def const_int(type: IntType, value: int) -> ConstantInt:
    return ConstantInt(type, value)


def const_fp(type: FloatType, value: float) -> ConstantFP:
    return ConstantFP(type, float(value))


def null_value(type: Type) -> Constant:
    """The zero value of a type (``0``, ``0.0``, ``null``, ``zeroinitializer``)."""
    if isinstance(type, IntType):
        return ConstantInt(type, 0)
    if isinstance(type, FloatType):
        return ConstantFP(type, 0.0)
    if isinstance(type, PointerType):
        return ConstantPointerNull(type)
    if isinstance(type, TokenType):
        return ConstantTokenNone()
    return ConstantAggregateZero(type)


__all__ = [
    "BlockAddress",
    "Constant",
    "ConstantAggregate",
    "ConstantAggregateZero",
    "ConstantArray",
    "ConstantDataString",
    "ConstantExpr",
    "ConstantFP",
    "ConstantInt",
    "ConstantPointerNull",
    "ConstantStruct",
    "ConstantTargetNone",
    "ConstantTokenNone",
    "ConstantVector",
    "DSOLocalEquivalent",
    "InlineAsm",
    "NoCFIValue",
    "PoisonValue",
    "UndefValue",
    "const_fp",
    "const_int",
    "format_fp",
    "null_value",
]
