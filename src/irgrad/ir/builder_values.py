"""Value computations of :class:`~irgrad.ir.builder.IRBuilder`: arithmetic, comparisons,
``select``, casts, aggregates and vectors (instructions without memory or control effects).

Operands may be Python ``int``/``float`` where the other operand fixes the type
(``b.fmul(x, 2.0)``); two-operand instructions check that the operand types agree.
"""

from __future__ import annotations

from collections.abc import Sequence

from irgrad.errors import UsageError

from .builder_base import IRBuilderBase, Operand, aggregate_element_type
from .constants import ConstantInt, ConstantVector
from .instructions import (
    CAST_OPCODES,
    BinaryOperator,
    CastInst,
    ExtractElementInst,
    ExtractValueInst,
    FCmpInst,
    FreezeInst,
    ICmpInst,
    InsertElementInst,
    InsertValueInst,
    Instruction,
    SelectInst,
    ShuffleVectorInst,
    UnaryOperator,
)
from .types import Type, VectorType, i32, i64, ptr
from .values import Value

ICMP_PREDICATES = frozenset(["eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"])
FCMP_PREDICATES = frozenset(
    ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
     "ule", "une", "uno", "true"]
)


class ValueBuilder(IRBuilderBase):
    """Emitters of arithmetic, comparison, cast, aggregate and vector instructions."""

    # -- arithmetic --------------------------------------------------------------------
    def binop(self, opcode: str, a: Operand, b: Operand, name: str | None = None,
              flags: Sequence[str] = ()) -> Instruction:
        lhs, rhs = self._same_type_pair(opcode, a, b)
        is_fp = opcode.startswith("f")
        if is_fp != lhs.type.is_fp_or_fp_vector:
            kind = "floating-point" if is_fp else "integer"
            raise UsageError(f"{opcode}: needs {kind} operands, got {lhs.type}")
        return self.insert(BinaryOperator(opcode, lhs, rhs, None, flags), name)

    def fadd(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("fadd", a, b, name, flags)

    def fsub(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("fsub", a, b, name, flags)

    def fmul(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("fmul", a, b, name, flags)

    def fdiv(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("fdiv", a, b, name, flags)

    def frem(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("frem", a, b, name, flags)

    def add(self, a: Operand, b: Operand, name: str | None = None,
            flags: Sequence[str] = ()) -> Instruction:
        return self.binop("add", a, b, name, flags)

    def sub(self, a: Operand, b: Operand, name: str | None = None,
            flags: Sequence[str] = ()) -> Instruction:
        return self.binop("sub", a, b, name, flags)

    def mul(self, a: Operand, b: Operand, name: str | None = None,
            flags: Sequence[str] = ()) -> Instruction:
        return self.binop("mul", a, b, name, flags)

    def sdiv(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("sdiv", a, b, name, flags)

    def udiv(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("udiv", a, b, name, flags)

    def srem(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("srem", a, b, name, flags)

    def urem(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("urem", a, b, name, flags)

    def shl(self, a: Operand, b: Operand, name: str | None = None,
            flags: Sequence[str] = ()) -> Instruction:
        return self.binop("shl", a, b, name, flags)

    def lshr(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("lshr", a, b, name, flags)

    def ashr(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("ashr", a, b, name, flags)

    def and_(self, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.binop("and", a, b, name, flags)

    def or_(self, a: Operand, b: Operand, name: str | None = None,
            flags: Sequence[str] = ()) -> Instruction:
        return self.binop("or", a, b, name, flags)

    def xor(self, a: Operand, b: Operand, name: str | None = None,
            flags: Sequence[str] = ()) -> Instruction:
        return self.binop("xor", a, b, name, flags)

    def neg(self, v: Value, name: str | None = None) -> Instruction:
        """Integer negation (``sub 0, v``)."""
        return self.sub(0, v, name)

    def not_(self, v: Value, name: str | None = None) -> Instruction:
        """Bitwise not (``xor v, -1``)."""
        return self.xor(v, -1, name)

    def fneg(self, v: Value, name: str | None = None, flags: Sequence[str] = ()) -> Instruction:
        if not v.type.is_fp_or_fp_vector:
            raise UsageError(f"fneg: needs a floating-point operand, got {v.type}")
        return self.insert(UnaryOperator("fneg", v, None, flags), name)

    def freeze(self, v: Value, name: str | None = None) -> Instruction:
        return self.insert(FreezeInst(v), name)

    # -- comparisons and select ----------------------------------------------------------
    def icmp(self, predicate: str, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        if predicate not in ICMP_PREDICATES:
            raise UsageError(f"icmp: unknown predicate '{predicate}'")
        lhs, rhs = self._same_type_pair("icmp", a, b)
        return self.insert(ICmpInst(predicate, lhs, rhs, None, flags), name)

    def fcmp(self, predicate: str, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        if predicate not in FCMP_PREDICATES:
            raise UsageError(f"fcmp: unknown predicate '{predicate}'")
        lhs, rhs = self._same_type_pair("fcmp", a, b)
        return self.insert(FCmpInst(predicate, lhs, rhs, None, flags), name)

    def select(self, condition: Value, a: Operand, b: Operand, name: str | None = None,
               flags: Sequence[str] = ()) -> Instruction:
        tv, fv = self._same_type_pair("select", a, b)
        return self.insert(SelectInst(condition, tv, fv, None, flags), name)

    def _same_type_pair(self, opcode: str, a: Operand, b: Operand) -> tuple[Value, Value]:
        """Both operands as values (numbers take the other's type); their types must agree."""
        lhs, rhs = self._pair(a, b)
        if lhs.type != rhs.type:
            raise UsageError(f"{opcode}: operand types differ ({lhs.type} and {rhs.type})")
        return lhs, rhs

    # -- casts ---------------------------------------------------------------------------
    def cast(self, opcode: str, v: Value, type: Type, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        if opcode not in CAST_OPCODES:
            raise UsageError(f"unknown cast opcode '{opcode}'")
        return self.insert(CastInst(opcode, v, type, None, flags), name)

    def trunc(self, v: Value, type: Type, name: str | None = None,
              flags: Sequence[str] = ()) -> Instruction:
        return self.cast("trunc", v, type, name, flags)

    def zext(self, v: Value, type: Type, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        return self.cast("zext", v, type, name, flags)

    def sext(self, v: Value, type: Type, name: str | None = None) -> Instruction:
        return self.cast("sext", v, type, name)

    def fptrunc(self, v: Value, type: Type, name: str | None = None,
                flags: Sequence[str] = ()) -> Instruction:
        return self.cast("fptrunc", v, type, name, flags)

    def fpext(self, v: Value, type: Type, name: str | None = None,
              flags: Sequence[str] = ()) -> Instruction:
        return self.cast("fpext", v, type, name, flags)

    def fptosi(self, v: Value, type: Type, name: str | None = None) -> Instruction:
        return self.cast("fptosi", v, type, name)

    def fptoui(self, v: Value, type: Type, name: str | None = None) -> Instruction:
        return self.cast("fptoui", v, type, name)

    def sitofp(self, v: Value, type: Type, name: str | None = None) -> Instruction:
        return self.cast("sitofp", v, type, name)

    def uitofp(self, v: Value, type: Type, name: str | None = None,
               flags: Sequence[str] = ()) -> Instruction:
        return self.cast("uitofp", v, type, name, flags)

    def bitcast(self, v: Value, type: Type, name: str | None = None) -> Instruction:
        return self.cast("bitcast", v, type, name)

    def ptrtoint(self, v: Value, type: Type, name: str | None = None) -> Instruction:
        return self.cast("ptrtoint", v, type, name)

    def inttoptr(self, v: Value, type: Type = ptr, name: str | None = None) -> Instruction:
        return self.cast("inttoptr", v, type, name)

    def addrspacecast(self, v: Value, type: Type, name: str | None = None) -> Instruction:
        return self.cast("addrspacecast", v, type, name)

    # -- aggregates and vectors ------------------------------------------------------------
    def extract_value(self, aggregate: Value, indices: int | Sequence[int],
                      name: str | None = None) -> Instruction:
        idx = [indices] if isinstance(indices, int) else list(indices)
        ty = aggregate_element_type(aggregate.type, idx)
        return self.insert(ExtractValueInst(aggregate, idx, ty), name)

    def insert_value(self, aggregate: Value, value: Value, indices: int | Sequence[int],
                     name: str | None = None) -> Instruction:
        idx = [indices] if isinstance(indices, int) else list(indices)
        ty = aggregate_element_type(aggregate.type, idx)
        if ty != value.type:
            raise UsageError(f"insertvalue: field has type {ty}, value has type {value.type}")
        return self.insert(InsertValueInst(aggregate, value, idx), name)

    def extract_element(self, vector: Value, index: Operand,
                        name: str | None = None) -> Instruction:
        return self.insert(ExtractElementInst(vector, self._value(index, i64)), name)

    def insert_element(self, vector: Value, element: Value, index: Operand,
                       name: str | None = None) -> Instruction:
        return self.insert(InsertElementInst(vector, element, self._value(index, i64)), name)

    def shuffle_vector(self, v1: Value, v2: Value, mask: Value | Sequence[int],
                       name: str | None = None) -> Instruction:
        if not isinstance(mask, Value):
            elems = list(mask)
            mask = ConstantVector(VectorType(len(elems), i32),
                                  [ConstantInt(i32, k) for k in elems])
        return self.insert(ShuffleVectorInst(v1, v2, mask), name)


__all__ = ["FCMP_PREDICATES", "ICMP_PREDICATES", "ValueBuilder"]
