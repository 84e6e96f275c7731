"""Instructions. Operands live in ``operands`` (so use lists are exact); the named fields
of each class are properties over operand slots. Block operands (branch targets, phi
incoming blocks) are operands too."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from .types import PointerType, Type, VectorType, i1, void
from .values import User, Value, ir_text

if TYPE_CHECKING:
    from .function import BasicBlock, DebugRecord, Function

BINARY_OPCODES = frozenset(
    ["add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub", "fmul", "fdiv", "frem"]
)
CAST_OPCODES = frozenset(
    ["trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "ptrtoaddr"]
)
FAST_MATH_FLAGS = ("fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")


class Instruction(User):
    """Base class: ``opcode`` (LLVM keyword), ``parent`` block, ``flags``, raw ``metadata``
    attachments ``[("dbg", "!12"), ...]`` and ``debug_records`` printed before it."""

    __slots__ = ("debug_records", "flags", "metadata", "opcode", "parent")

    is_terminator = False

    def __init__(
        self,
        opcode: str,
        type: Type,
        operands: Sequence[Value] = (),
        name: str | None = None,
        flags: Sequence[str] = (),
    ) -> None:
        User.__init__(self, type, operands, name)
        self.opcode = opcode
        self.parent: BasicBlock | None = None
        self.flags: list[str] = list(flags)
        self.metadata: list[tuple[str, str]] = []
        self.debug_records: list[DebugRecord] = []

    # -- placement -------------------------------------------------------------------
    @property
    def function(self) -> Function | None:
        return self.parent.parent if self.parent is not None else None

    def erase_from_parent(self) -> None:
        """Unlink from the block and drop all operand references."""
        if self.parent is not None:
            self.parent.instructions.remove(self)
            self.parent = None
        self.drop_all_references()

    def remove_from_parent(self) -> None:
        """Unlink from the block, keeping operands (to insert it elsewhere)."""
        if self.parent is not None:
            self.parent.instructions.remove(self)
            self.parent = None

    def insert_before(self, other: Instruction) -> None:
        block = other.parent
        assert block is not None, "insert_before: target is not in a block"
        block.insert(block.instructions.index(other), self)

    def insert_after(self, other: Instruction) -> None:
        block = other.parent
        assert block is not None, "insert_after: target is not in a block"
        block.insert(block.instructions.index(other) + 1, self)

    # -- metadata --------------------------------------------------------------------
    @property
    def debug_loc(self) -> str | None:
        return self.get_metadata("dbg")

    def get_metadata(self, kind: str) -> str | None:
        for k, v in self.metadata:
            if k == kind:
                return v
        return None

    def set_metadata(self, kind: str, raw: str | None) -> None:
        self.metadata = [(k, v) for k, v in self.metadata if k != kind]
        if raw is not None:
            self.metadata.append((kind, raw))

    # -- control flow ----------------------------------------------------------------
    def successors(self) -> list[BasicBlock]:
        from .function import BasicBlock

        return [op for op in self._operands if isinstance(op, BasicBlock)]

    @property
    def fast_math_flags(self) -> list[str]:
        return [f for f in self.flags if f in FAST_MATH_FLAGS]

    def __str__(self) -> str:
        return ir_text(self)

    def __repr__(self) -> str:
        nm = f"%{self.name} = " if self.name else ""
        return f"<{type(self).__name__} {nm}{self.opcode}>"


def _vector_of(base: Type, like: Type) -> Type:
    return VectorType(like.count, base, like.scalable) if isinstance(like, VectorType) else base


class BinaryOperator(Instruction):
    __slots__ = ()

    def __init__(self, opcode: str, lhs: Value, rhs: Value, name: str | None = None,
                 flags: Sequence[str] = ()) -> None:
        Instruction.__init__(self, opcode, lhs.type, (lhs, rhs), name, flags)

    lhs = property(lambda self: self._operands[0])
    rhs = property(lambda self: self._operands[1])


class UnaryOperator(Instruction):
    __slots__ = ()

    def __init__(self, opcode: str, operand: Value, name: str | None = None,
                 flags: Sequence[str] = ()) -> None:
        Instruction.__init__(self, opcode, operand.type, (operand,), name, flags)

    operand = property(lambda self: self._operands[0])


class CmpInst(Instruction):
    __slots__ = ("predicate",)

    def __init__(self, opcode: str, predicate: str, lhs: Value, rhs: Value,
                 name: str | None = None, flags: Sequence[str] = ()) -> None:
        Instruction.__init__(self, opcode, _vector_of(i1, lhs.type), (lhs, rhs), name, flags)
        self.predicate = predicate

    lhs = property(lambda self: self._operands[0])
    rhs = property(lambda self: self._operands[1])


class ICmpInst(CmpInst):
    __slots__ = ()

    def __init__(self, predicate: str, lhs: Value, rhs: Value, name: str | None = None,
                 flags: Sequence[str] = ()) -> None:
        CmpInst.__init__(self, "icmp", predicate, lhs, rhs, name, flags)


class FCmpInst(CmpInst):
    __slots__ = ()

    def __init__(self, predicate: str, lhs: Value, rhs: Value, name: str | None = None,
                 flags: Sequence[str] = ()) -> None:
        CmpInst.__init__(self, "fcmp", predicate, lhs, rhs, name, flags)


class CastInst(Instruction):
    __slots__ = ()

    def __init__(self, opcode: str, value: Value, dest_type: Type, name: str | None = None,
                 flags: Sequence[str] = ()) -> None:
        Instruction.__init__(self, opcode, dest_type, (value,), name, flags)

    value = property(lambda self: self._operands[0])


class AllocaInst(Instruction):
    __slots__ = ("addrspace", "align", "allocated_type", "inalloca", "swifterror")

    def __init__(self, allocated_type: Type, count: Value | None = None, align: int | None = None,
                 addrspace: int = 0, inalloca: bool = False, name: str | None = None) -> None:
        Instruction.__init__(self, "alloca", PointerType(addrspace),
                             (count,) if count is not None else (), name)
        self.allocated_type = allocated_type
        self.align = align
        self.addrspace = addrspace
        self.inalloca = inalloca
        self.swifterror = False

    @property
    def count(self) -> Value | None:
        return self._operands[0] if self._operands else None


class _MemoryAccess(Instruction):
    __slots__ = ("align", "ordering", "syncscope", "volatile")

    def _init_mem(self, align: int | None, volatile: bool, ordering: str | None,
                  syncscope: str | None) -> None:
        self.align = align
        self.volatile = volatile
        self.ordering = ordering  # None (not atomic) or 'unordered' 'monotonic' ... 'seq_cst'
        self.syncscope = syncscope  # None or the scope string, e.g. 'singlethread'

    @property
    def is_atomic(self) -> bool:
        return self.ordering is not None


class LoadInst(_MemoryAccess):
    __slots__ = ()

    def __init__(self, type: Type, pointer: Value, align: int | None = None,
                 volatile: bool = False, ordering: str | None = None,
                 syncscope: str | None = None, name: str | None = None) -> None:
        Instruction.__init__(self, "load", type, (pointer,), name)
        self._init_mem(align, volatile, ordering, syncscope)

    pointer = property(lambda self: self._operands[0])


class StoreInst(_MemoryAccess):
    __slots__ = ()

    def __init__(self, value: Value, pointer: Value, align: int | None = None,
                 volatile: bool = False, ordering: str | None = None,
                 syncscope: str | None = None) -> None:
        Instruction.__init__(self, "store", void, (value, pointer))
        self._init_mem(align, volatile, ordering, syncscope)

    value = property(lambda self: self._operands[0])
    pointer = property(lambda self: self._operands[1])


class GetElementPtrInst(Instruction):
    __slots__ = ("source_type",)

    def __init__(self, source_type: Type, pointer: Value, indices: Sequence[Value],
                 name: str | None = None, flags: Sequence[str] = (),
                 result_type: Type | None = None) -> None:
        if result_type is None:
            result_type = pointer.type
            for idx in indices:
                if isinstance(idx.type, VectorType) and not isinstance(result_type, VectorType):
                    result_type = VectorType(idx.type.count, pointer.type, idx.type.scalable)
        Instruction.__init__(self, "getelementptr", result_type, (pointer, *indices), name, flags)
        self.source_type = source_type

    pointer = property(lambda self: self._operands[0])

    @property
    def indices(self) -> tuple[Value, ...]:
        return tuple(self._operands[1:])

    @property
    def inbounds(self) -> bool:
        return "inbounds" in self.flags


class PHINode(Instruction):
    """Operands alternate value, block: ``[v0, b0, v1, b1, ...]``."""

    __slots__ = ()

    def __init__(self, type: Type, incoming: Sequence[tuple[Value, BasicBlock]] = (),
                 name: str | None = None, flags: Sequence[str] = ()) -> None:
        ops: list[Value] = []
        for v, b in incoming:
            ops += (v, b)
        Instruction.__init__(self, "phi", type, ops, name, flags)

    @property
    def incoming(self) -> list[tuple[Value, BasicBlock]]:
        ops = self._operands
        return [(ops[k], ops[k + 1]) for k in range(0, len(ops), 2)]  # type: ignore[misc]

    @property
    def num_incoming(self) -> int:
        return len(self._operands) // 2

    def add_incoming(self, value: Value, block: BasicBlock) -> None:
        self.append_operand(value)
        self.append_operand(block)

    def incoming_value_for(self, block: BasicBlock) -> Value | None:
        ops = self._operands
        for k in range(1, len(ops), 2):
            if ops[k] is block:
                return ops[k - 1]
        return None

    def set_incoming_value(self, index: int, value: Value) -> None:
        self.set_operand(2 * index, value)

    def set_incoming_block(self, index: int, block: BasicBlock) -> None:
        self.set_operand(2 * index + 1, block)

    def remove_incoming(self, block: BasicBlock) -> None:
        """Remove every incoming entry from ``block``."""
        ops = self._operands
        k = len(ops) - 1
        while k > 0:
            if ops[k] is block:
                self.remove_operands(k - 1, k + 1)
            k -= 2


class SelectInst(Instruction):
    __slots__ = ()

    def __init__(self, condition: Value, true_value: Value, false_value: Value,
                 name: str | None = None, flags: Sequence[str] = ()) -> None:
        Instruction.__init__(self, "select", true_value.type,
                             (condition, true_value, false_value), name, flags)

    condition = property(lambda self: self._operands[0])
    true_value = property(lambda self: self._operands[1])
    false_value = property(lambda self: self._operands[2])


class ExtractValueInst(Instruction):
    __slots__ = ("indices",)

    def __init__(self, aggregate: Value, indices: Sequence[int], type: Type,
                 name: str | None = None) -> None:
        Instruction.__init__(self, "extractvalue", type, (aggregate,), name)
        self.indices = list(indices)

    aggregate = property(lambda self: self._operands[0])


class InsertValueInst(Instruction):
    __slots__ = ("indices",)

    def __init__(self, aggregate: Value, value: Value, indices: Sequence[int],
                 name: str | None = None) -> None:
        Instruction.__init__(self, "insertvalue", aggregate.type, (aggregate, value), name)
        self.indices = list(indices)

    aggregate = property(lambda self: self._operands[0])
    value = property(lambda self: self._operands[1])


class ExtractElementInst(Instruction):
    __slots__ = ()

    def __init__(self, vector: Value, index: Value, name: str | None = None) -> None:
        Instruction.__init__(self, "extractelement", vector.type.element,  # type: ignore[attr-defined]
                             (vector, index), name)

    vector = property(lambda self: self._operands[0])
    index = property(lambda self: self._operands[1])


class InsertElementInst(Instruction):
    __slots__ = ()

    def __init__(self, vector: Value, element: Value, index: Value,
                 name: str | None = None) -> None:
        Instruction.__init__(self, "insertelement", vector.type, (vector, element, index), name)

    vector = property(lambda self: self._operands[0])
    element = property(lambda self: self._operands[1])
    index = property(lambda self: self._operands[2])


class ShuffleVectorInst(Instruction):
    """``shufflevector v1, v2, mask`` (the mask is a constant operand)."""

    __slots__ = ()

    def __init__(self, vector1: Value, vector2: Value, mask: Value,
                 name: str | None = None) -> None:
        vt = vector1.type
        mt = mask.type
        rt = VectorType(mt.count, vt.element, mt.scalable)  # type: ignore[attr-defined]
        Instruction.__init__(self, "shufflevector", rt, (vector1, vector2, mask), name)

    vector = property(lambda self: self._operands[0])
    vector2 = property(lambda self: self._operands[1])
    mask = property(lambda self: self._operands[2])


class AtomicRMWInst(_MemoryAccess):
    __slots__ = ("operation",)

    def __init__(self, operation: str, pointer: Value, value: Value, ordering: str,
                 syncscope: str | None = None, volatile: bool = False,
                 align: int | None = None, name: str | None = None) -> None:
        Instruction.__init__(self, "atomicrmw", value.type, (pointer, value), name)
        self._init_mem(align, volatile, ordering, syncscope)
        self.operation = operation

    pointer = property(lambda self: self._operands[0])
    value = property(lambda self: self._operands[1])


class AtomicCmpXchgInst(_MemoryAccess):
    __slots__ = ("failure_ordering", "weak")

    def __init__(self, pointer: Value, compare: Value, new_value: Value,
                 success_ordering: str, failure_ordering: str, weak: bool = False,
                 volatile: bool = False, syncscope: str | None = None,
                 align: int | None = None, name: str | None = None) -> None:
        from .types import StructType

        Instruction.__init__(self, "cmpxchg", StructType([compare.type, i1]),
                             (pointer, compare, new_value), name)
        self._init_mem(align, volatile, success_ordering, syncscope)
        self.failure_ordering = failure_ordering
        self.weak = weak

    pointer = property(lambda self: self._operands[0])
    compare = property(lambda self: self._operands[1])
    new_value = property(lambda self: self._operands[2])

    @property
    def success_ordering(self) -> str:
        return self.ordering  # type: ignore[return-value]


class FenceInst(Instruction):
    __slots__ = ("ordering", "syncscope")

    def __init__(self, ordering: str, syncscope: str | None = None) -> None:
        Instruction.__init__(self, "fence", void)
        self.ordering = ordering
        self.syncscope = syncscope


class VAArgInst(Instruction):
    __slots__ = ()

    def __init__(self, pointer: Value, type: Type, name: str | None = None) -> None:
        Instruction.__init__(self, "va_arg", type, (pointer,), name)

    pointer = property(lambda self: self._operands[0])


class FreezeInst(Instruction):
    __slots__ = ()

    def __init__(self, value: Value, name: str | None = None) -> None:
        Instruction.__init__(self, "freeze", value.type, (value,), name)

    value = property(lambda self: self._operands[0])


def iter_block_operands(inst: Instruction) -> Iterator[int]:
    """Indices of operand slots that hold blocks."""
    from .function import BasicBlock

    for k, op in enumerate(inst._operands):
        if isinstance(op, BasicBlock):
            yield k


__all__ = [
    "BINARY_OPCODES",
    "CAST_OPCODES",
    "FAST_MATH_FLAGS",
    "AllocaInst",
    "AtomicCmpXchgInst",
    "AtomicRMWInst",
    "BinaryOperator",
    "CastInst",
    "CmpInst",
    "ExtractElementInst",
    "ExtractValueInst",
    "FCmpInst",
    "FenceInst",
    "FreezeInst",
    "GetElementPtrInst",
    "ICmpInst",
    "InsertElementInst",
    "InsertValueInst",
    "Instruction",
    "LoadInst",
    "PHINode",
    "SelectInst",
    "ShuffleVectorInst",
    "StoreInst",
    "UnaryOperator",
    "VAArgInst",
]
