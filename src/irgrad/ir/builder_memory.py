"""Memory of :class:`~irgrad.ir.builder.IRBuilder`: ``alloca``, ``load``, ``store``,
``getelementptr``, atomics, ``fence`` and the ``llvm.memset``/``llvm.memcpy`` intrinsics
(which is why it builds on the call emitters).
"""

from __future__ import annotations

from collections.abc import Sequence

from irgrad.errors import UsageError

from .builder_base import Operand
from .builder_control import ControlFlowBuilder
from .constants import ConstantInt
from .control import CallInst
from .instructions import (
    AllocaInst,
    AtomicCmpXchgInst,
    AtomicRMWInst,
    FenceInst,
    GetElementPtrInst,
    Instruction,
    LoadInst,
    StoreInst,
)
from .types import ArrayType, FunctionType, Type, VectorType, i1, i8, i32, i64, ptr, void
from .values import Value


class MemoryBuilder(ControlFlowBuilder):
    """Emitters of memory instructions and memory intrinsics."""

    # -- memory --------------------------------------------------------------------------
    def alloca(self, type: Type, count: Operand | None = None, align: int | None = None,
               name: str | None = None) -> Instruction:
        cnt = self._value(count, i64) if count is not None else None
        return self.insert(AllocaInst(type, cnt, align), name)

    def load(self, type: Type, pointer: Value, align: int | None = None,
             name: str | None = None, *, volatile: bool = False) -> Instruction:
        if not pointer.type.is_pointer:
            raise UsageError(f"load: address must be a pointer, got {pointer.type}")
        return self.insert(LoadInst(type, pointer, align, volatile), name)

    def store(self, value: Value, pointer: Value, align: int | None = None, *,
              volatile: bool = False) -> Instruction:
        if not pointer.type.is_pointer:
            raise UsageError(f"store: address must be a pointer, got {pointer.type}")
        return self.insert(StoreInst(value, pointer, align, volatile))

    def gep(self, source_type: Type, pointer: Value, indices: Sequence[Operand],
            inbounds: bool = False, name: str | None = None,
            flags: Sequence[str] = ()) -> Instruction:
        """``getelementptr``; Python ints become ``i64`` (``i32`` when indexing a struct)."""
        idx: list[Value] = []
        cur: Type | None = None
        for k, v in enumerate(indices):
            in_struct = k > 0 and cur is not None and cur.is_struct
            if isinstance(v, Value):
                idx.append(v)
            else:
                idx.append(ConstantInt(i32 if in_struct else i64, int(v)))
            # the type the next index steps into
            if k == 0:
                cur = source_type
            elif cur is not None:
                if cur.is_struct and isinstance(v, int):
                    cur = cur.elements[v]  # type: ignore[attr-defined]
                elif isinstance(cur, ArrayType | VectorType):
                    cur = cur.element
                else:
                    cur = None
        fl = list(flags)
        if inbounds and "inbounds" not in fl:
            fl.insert(0, "inbounds")
        return self.insert(GetElementPtrInst(source_type, pointer, idx, None, fl), name)

    def struct_gep(self, struct_type: Type, pointer: Value, index: int,
                   name: str | None = None) -> Instruction:
        """Address of field ``index``: ``getelementptr inbounds %T, ptr %p, i32 0, i32 index``."""
        return self.insert(GetElementPtrInst(
            struct_type, pointer, [ConstantInt(i32, 0), ConstantInt(i32, index)], None,
            ["inbounds"]), name)

    def const_gep(self, source_type: Type, pointer: Value, *indices: int,
                  inbounds: bool = True, name: str | None = None) -> Instruction:
        """GEP with constant ``i64`` indices (LLVM's CreateConstGEP1_64/2_64)."""
        return self.gep(source_type, pointer, [ConstantInt(i64, k) for k in indices],
                        inbounds, name)

    def atomicrmw(self, operation: str, pointer: Value, value: Value, ordering: str = "seq_cst",
                  align: int | None = None, name: str | None = None) -> Instruction:
        return self.insert(AtomicRMWInst(operation, pointer, value, ordering, align=align), name)

    def cmpxchg(self, pointer: Value, compare: Value, new_value: Value,
                success_ordering: str = "seq_cst", failure_ordering: str = "seq_cst",
                align: int | None = None, name: str | None = None) -> Instruction:
        return self.insert(AtomicCmpXchgInst(pointer, compare, new_value, success_ordering,
                                             failure_ordering, align=align), name)

    def fence(self, ordering: str = "seq_cst") -> Instruction:
        return self.insert(FenceInst(ordering))

    def memset(self, pointer: Value, value: Operand, length: Operand,
               align: int | None = None, volatile: bool = False) -> CallInst:
        """``call void @llvm.memset.p0.i64(ptr, i8, i64, i1 volatile)``."""
        fn = self.declare_intrinsic("llvm.memset.p0.i64",
                                    FunctionType(void, [ptr, i8, i64, i1]))
        attrs: list[list[str]] = [[f"align {align}"] if align else [], [], [], []]
        return self.call(fn, [pointer, self._value(value, i8), self._value(length, i64),
                              ConstantInt(i1, int(volatile))], arg_attrs=attrs)

    def memcpy(self, dest: Value, src: Value, length: Operand, dest_align: int | None = None,
               src_align: int | None = None, volatile: bool = False) -> CallInst:
        """``call void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1 volatile)``."""
        fn = self.declare_intrinsic("llvm.memcpy.p0.p0.i64",
                                    FunctionType(void, [ptr, ptr, i64, i1]))
        attrs: list[list[str]] = [[f"align {dest_align}"] if dest_align else [],
                                  [f"align {src_align}"] if src_align else [], [], []]
        return self.call(fn, [dest, src, self._value(length, i64),
                              ConstantInt(i1, int(volatile))], arg_attrs=attrs)

    def memmove(self, dest: Value, src: Value, length: Operand,
                volatile: bool = False) -> CallInst:
        """``call void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1 volatile)``."""
        fn = self.declare_intrinsic("llvm.memmove.p0.p0.i64",
                                    FunctionType(void, [ptr, ptr, i64, i1]))
        return self.call(fn, [dest, src, self._value(length, i64),
                              ConstantInt(i1, int(volatile))])


__all__ = ["MemoryBuilder"]
