"""Instructions. Operands live in ``operands`` (so use lists are exact); the named fields
of each class are properties over operand slots. Block operands (branch targets, phi
incoming blocks) are operands too."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from .types import FunctionType, PointerType, Type, VectorType, i1, void
from .values import User, Value

if TYPE_CHECKING:
    from .constants import ConstantInt
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
        from .printer import print_instruction

        return print_instruction(self)

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


class CallBase(Instruction):
    """Common part of call, invoke and callbr. Operand layout: ``args``, bundle operands,
    extra destinations (invoke/callbr), callee last."""

    __slots__ = (
        "_bundle_tags",
        "_nargs",
        "_ndests",
        "arg_attrs",
        "calling_conv",
        "fn_attrs",
        "function_type",
        "return_attrs",
    )

    def __init__(self, opcode: str, function_type: FunctionType, callee: Value,
                 args: Sequence[Value], dests: Sequence[Value] = (), name: str | None = None,
                 *, bundles: Sequence[tuple[str, Sequence[Value]]] = (),
                 calling_conv: str = "", return_attrs: Sequence[str] = (),
                 arg_attrs: Sequence[Sequence[str]] | None = None,
                 fn_attrs: Sequence[str] = (), flags: Sequence[str] = ()) -> None:
        ops: list[Value] = list(args)
        tags: list[tuple[str, int]] = []
        for tag, vals in bundles:
            ops.extend(vals)
            tags.append((tag, len(vals)))
        ops.extend(dests)
        ops.append(callee)
        Instruction.__init__(self, opcode, function_type.return_type, ops, name, flags)
        self.function_type = function_type
        self._nargs = len(args)
        self._bundle_tags = tags
        self._ndests = len(dests)
        self.calling_conv = calling_conv
        self.return_attrs: list[str] = list(return_attrs)
        self.arg_attrs: list[list[str]] = (
            [list(a) for a in arg_attrs] if arg_attrs is not None else [[] for _ in args]
        )
        self.fn_attrs: list[str] = list(fn_attrs)

    @property
    def callee(self) -> Value:
        return self._operands[-1]

    @callee.setter
    def callee(self, value: Value) -> None:
        self.set_operand(len(self._operands) - 1, value)

    @property
    def called_function(self) -> Function | None:
        from .function import Function

        c = self._operands[-1]
        return c if isinstance(c, Function) else None

    @property
    def args(self) -> tuple[Value, ...]:
        return tuple(self._operands[: self._nargs])

    @property
    def num_args(self) -> int:
        return self._nargs

    def arg(self, index: int) -> Value:
        return self._operands[index]

    def set_arg(self, index: int, value: Value) -> None:
        self.set_operand(index, value)

    @property
    def bundles(self) -> list[tuple[str, list[Value]]]:
        out: list[tuple[str, list[Value]]] = []
        k = self._nargs
        for tag, n in self._bundle_tags:
            out.append((tag, list(self._operands[k : k + n])))
            k += n
        return out

    def _dest(self, index: int) -> BasicBlock:
        start = len(self._operands) - 1 - self._ndests
        return self._operands[start + index]  # type: ignore[return-value]

    @property
    def _dests(self) -> list[Value]:
        start = len(self._operands) - 1 - self._ndests
        return self._operands[start:-1]


class CallInst(CallBase):
    __slots__ = ("tail",)

    def __init__(self, function_type: FunctionType, callee: Value, args: Sequence[Value],
                 name: str | None = None, *, tail: str = "", **kw) -> None:  # type: ignore[no-untyped-def]
        CallBase.__init__(self, "call", function_type, callee, args, (), name, **kw)
        self.tail = tail  # '' / 'tail' / 'musttail' / 'notail'


class InvokeInst(CallBase):
    __slots__ = ()
    is_terminator = True

    def __init__(self, function_type: FunctionType, callee: Value, args: Sequence[Value],
                 normal_dest: BasicBlock, unwind_dest: BasicBlock, name: str | None = None,
                 **kw) -> None:  # type: ignore[no-untyped-def]
        CallBase.__init__(self, "invoke", function_type, callee, args,
                          (normal_dest, unwind_dest), name, **kw)

    normal_dest = property(lambda self: self._dest(0))
    unwind_dest = property(lambda self: self._dest(1))


class CallBrInst(CallBase):
    __slots__ = ()
    is_terminator = True

    def __init__(self, function_type: FunctionType, callee: Value, args: Sequence[Value],
                 default_dest: BasicBlock, indirect_dests: Sequence[BasicBlock],
                 name: str | None = None, **kw) -> None:  # type: ignore[no-untyped-def]
        CallBase.__init__(self, "callbr", function_type, callee, args,
                          (default_dest, *indirect_dests), name, **kw)

    default_dest = property(lambda self: self._dest(0))

    @property
    def indirect_dests(self) -> list[BasicBlock]:
        return self._dests[1:]  # type: ignore[return-value]


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


class ReturnInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, value: Value | None = None) -> None:
        Instruction.__init__(self, "ret", void, (value,) if value is not None else ())

    @property
    def value(self) -> Value | None:
        return self._operands[0] if self._operands else None


class BranchInst(Instruction):
    """``br label %t`` (operands ``[t]``) or ``br i1 %c, label %t, label %f``."""

    __slots__ = ()
    is_terminator = True

    def __init__(self, true_dest: BasicBlock, condition: Value | None = None,
                 false_dest: BasicBlock | None = None) -> None:
        ops = (true_dest,) if condition is None else (condition, true_dest, false_dest)
        Instruction.__init__(self, "br", void, ops)  # type: ignore[arg-type]

    @property
    def is_conditional(self) -> bool:
        return len(self._operands) == 3

    @property
    def condition(self) -> Value | None:
        return self._operands[0] if len(self._operands) == 3 else None

    @property
    def true_dest(self) -> BasicBlock:
        return self._operands[1 if len(self._operands) == 3 else 0]  # type: ignore[return-value]

    @property
    def false_dest(self) -> BasicBlock | None:
        return self._operands[2] if len(self._operands) == 3 else None  # type: ignore[return-value]


class SwitchInst(Instruction):
    """Operands ``[condition, default, c0, b0, c1, b1, ...]``."""

    __slots__ = ()
    is_terminator = True

    def __init__(self, condition: Value, default_dest: BasicBlock,
                 cases: Sequence[tuple[ConstantInt, BasicBlock]] = ()) -> None:
        ops: list[Value] = [condition, default_dest]
        for c, b in cases:
            ops += (c, b)
        Instruction.__init__(self, "switch", void, ops)

    condition = property(lambda self: self._operands[0])
    default_dest = property(lambda self: self._operands[1])

    @property
    def cases(self) -> list[tuple[ConstantInt, BasicBlock]]:
        ops = self._operands
        return [(ops[k], ops[k + 1]) for k in range(2, len(ops), 2)]  # type: ignore[misc]

    def add_case(self, value: ConstantInt, dest: BasicBlock) -> None:
        self.append_operand(value)
        self.append_operand(dest)


class IndirectBrInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, address: Value, destinations: Sequence[BasicBlock]) -> None:
        Instruction.__init__(self, "indirectbr", void, (address, *destinations))

    address = property(lambda self: self._operands[0])

    @property
    def destinations(self) -> list[BasicBlock]:
        return self._operands[1:]  # type: ignore[return-value]


class UnreachableInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self) -> None:
        Instruction.__init__(self, "unreachable", void)


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


class LandingPadInst(Instruction):
    __slots__ = ("clause_kinds", "cleanup")

    def __init__(self, type: Type, cleanup: bool = False,
                 clauses: Sequence[tuple[str, Value]] = (), name: str | None = None) -> None:
        Instruction.__init__(self, "landingpad", type, [v for _, v in clauses], name)
        self.cleanup = cleanup
        self.clause_kinds = [k for k, _ in clauses]

    @property
    def clauses(self) -> list[tuple[str, Value]]:
        return list(zip(self.clause_kinds, self._operands, strict=True))

    def add_clause(self, kind: str, value: Value) -> None:
        self.clause_kinds.append(kind)
        self.append_operand(value)


class ResumeInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, value: Value) -> None:
        Instruction.__init__(self, "resume", void, (value,))

    value = property(lambda self: self._operands[0])


class FuncletPadInst(Instruction):
    """``cleanuppad within %parent [args]`` / ``catchpad within %cs [args]``;
    operands ``[parent_pad, *args]``."""

    __slots__ = ()

    def __init__(self, opcode: str, parent_pad: Value, args: Sequence[Value],
                 name: str | None = None) -> None:
        from .types import token

        Instruction.__init__(self, opcode, token, (parent_pad, *args), name)

    parent_pad = property(lambda self: self._operands[0])

    @property
    def args(self) -> tuple[Value, ...]:
        return tuple(self._operands[1:])


class CleanupPadInst(FuncletPadInst):
    __slots__ = ()

    def __init__(self, parent_pad: Value, args: Sequence[Value] = (),
                 name: str | None = None) -> None:
        FuncletPadInst.__init__(self, "cleanuppad", parent_pad, args, name)


class CatchPadInst(FuncletPadInst):
    __slots__ = ()

    def __init__(self, catch_switch: Value, args: Sequence[Value] = (),
                 name: str | None = None) -> None:
        FuncletPadInst.__init__(self, "catchpad", catch_switch, args, name)

    catch_switch = property(lambda self: self._operands[0])


class CatchSwitchInst(Instruction):
    """Operands ``[parent_pad, *handlers]`` plus ``unwind_dest`` last when present."""

    __slots__ = ("has_unwind_dest",)
    is_terminator = True

    def __init__(self, parent_pad: Value, handlers: Sequence[BasicBlock],
                 unwind_dest: BasicBlock | None = None, name: str | None = None) -> None:
        from .types import token

        ops: list[Value] = [parent_pad, *handlers]
        if unwind_dest is not None:
            ops.append(unwind_dest)
        Instruction.__init__(self, "catchswitch", token, ops, name)
        self.has_unwind_dest = unwind_dest is not None

    parent_pad = property(lambda self: self._operands[0])

    @property
    def handlers(self) -> list[BasicBlock]:
        end = -1 if self.has_unwind_dest else len(self._operands)
        return self._operands[1:end]  # type: ignore[return-value]

    @property
    def unwind_dest(self) -> BasicBlock | None:
        return self._operands[-1] if self.has_unwind_dest else None  # type: ignore[return-value]


class CatchReturnInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, catch_pad: Value, dest: BasicBlock) -> None:
        Instruction.__init__(self, "catchret", void, (catch_pad, dest))

    catch_pad = property(lambda self: self._operands[0])
    dest = property(lambda self: self._operands[1])


class CleanupReturnInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, cleanup_pad: Value, unwind_dest: BasicBlock | None = None) -> None:
        ops = (cleanup_pad,) if unwind_dest is None else (cleanup_pad, unwind_dest)
        Instruction.__init__(self, "cleanupret", void, ops)

    cleanup_pad = property(lambda self: self._operands[0])

    @property
    def unwind_dest(self) -> BasicBlock | None:
        return self._operands[1] if len(self._operands) > 1 else None  # type: ignore[return-value]


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
    "BranchInst",
    "CallBase",
    "CallBrInst",
    "CallInst",
    "CastInst",
    "CatchPadInst",
    "CatchReturnInst",
    "CatchSwitchInst",
    "CleanupPadInst",
    "CleanupReturnInst",
    "CmpInst",
    "ExtractElementInst",
    "ExtractValueInst",
    "FCmpInst",
    "FenceInst",
    "FreezeInst",
    "FuncletPadInst",
    "GetElementPtrInst",
    "ICmpInst",
    "IndirectBrInst",
    "InsertElementInst",
    "InsertValueInst",
    "Instruction",
    "InvokeInst",
    "LandingPadInst",
    "LoadInst",
    "PHINode",
    "ResumeInst",
    "ReturnInst",
    "SelectInst",
    "ShuffleVectorInst",
    "StoreInst",
    "SwitchInst",
    "UnaryOperator",
    "UnreachableInst",
    "VAArgInst",
]
