"""IRBuilder: create instructions at an insertion point, with LLVM's keywords as method names.

The insertion point is a block plus the instruction to insert before (``None`` = at the end).
Inserting before an instruction (rather than at an index) keeps the point stable while other
instructions are added or removed elsewhere in the block.

    b = IRBuilder(entry)
    s = b.fadd(x, y, name="s", flags=["fast"])
    b.ret(s)

Operands may be Python ``int``/``float`` where the other operand fixes the type
(``b.fmul(x, 2.0)``). Instructions whose type is ``void`` never get a name.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from irgrad.errors import UsageError

from .constants import ConstantFP, ConstantInt, ConstantVector
from .function import BasicBlock, Function
from .instructions import (
    CAST_OPCODES,
    AllocaInst,
    AtomicCmpXchgInst,
    AtomicRMWInst,
    BinaryOperator,
    BranchInst,
    CallInst,
    CastInst,
    ExtractElementInst,
    ExtractValueInst,
    FCmpInst,
    FenceInst,
    FreezeInst,
    GetElementPtrInst,
    ICmpInst,
    InsertElementInst,
    InsertValueInst,
    Instruction,
    InvokeInst,
    LandingPadInst,
    LoadInst,
    PHINode,
    ResumeInst,
    ReturnInst,
    SelectInst,
    ShuffleVectorInst,
    StoreInst,
    SwitchInst,
    UnaryOperator,
    UnreachableInst,
)
from .module import Module
from .types import (
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    StructType,
    Type,
    VectorType,
    i1,
    i8,
    i32,
    i64,
    ptr,
    void,
)
from .values import Value

Operand = Value | int | float
ICMP_PREDICATES = frozenset(["eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"])
FCMP_PREDICATES = frozenset(
    ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
     "ule", "une", "uno", "true"]
)


def constant_of(type: Type, value: int | float) -> Value:
    """A constant of ``type`` (a splat for vector types) from a Python number."""
    if isinstance(type, VectorType):
        return ConstantVector(type, [constant_of(type.element, value)], splat=True)
    if isinstance(type, IntType):
        return ConstantInt(type, int(value))
    if isinstance(type, FloatType):
        return ConstantFP(type, float(value))
    raise UsageError(f"cannot make a {type} constant from {value!r}")


def aggregate_element_type(type: Type, indices: Sequence[int]) -> Type:
    """The type reached by ``extractvalue``/``insertvalue`` indices into ``type``."""
    for k in indices:
        if isinstance(type, ArrayType | VectorType):
            type = type.element
        elif type.is_struct:
            elements = type.elements  # type: ignore[attr-defined]
            if not 0 <= k < len(elements):
                raise UsageError(f"index {k} out of range for {type}")
            type = elements[k]
        else:
            raise UsageError(f"cannot index into non-aggregate type {type}")
    return type


class IRBuilder:
    """Creates instructions at the current insertion point (see the module docstring)."""

    def __init__(self, block: BasicBlock | None = None,
                 position: Instruction | None = None) -> None:
        self._block: BasicBlock | None = None
        self._before: Instruction | None = None
        #: raw ``!dbg`` attachment given to every new instruction (None: none)
        self.debug_loc: str | None = None
        if position is not None:
            self.position_before(position)
        elif block is not None:
            self.position_at_end(block)

    # -- insertion point ---------------------------------------------------------------
    @property
    def insert_block(self) -> BasicBlock | None:
        return self._block

    @property
    def insert_before_instruction(self) -> Instruction | None:
        """The instruction new ones go before (None: the end of the block)."""
        return self._before

    @property
    def function(self) -> Function | None:
        return self._block.parent if self._block is not None else None

    @property
    def module(self) -> Module | None:
        fn = self.function
        return fn.parent if fn is not None else None

    def position_at_end(self, block: BasicBlock) -> None:
        self._block = block
        self._before = None

    def position_at_start(self, block: BasicBlock) -> None:
        """Before the first instruction that is not a phi (or landingpad/pad)."""
        k = block.first_insertion_index()
        self._block = block
        self._before = block.instructions[k] if k < len(block.instructions) else None

    def position_before(self, inst: Instruction) -> None:
        if inst.parent is None:
            raise UsageError("position_before: the instruction is not in a block")
        self._block = inst.parent
        self._before = inst

    def position_after(self, inst: Instruction) -> None:
        block = inst.parent
        if block is None:
            raise UsageError("position_after: the instruction is not in a block")
        k = block.instructions.index(inst) + 1
        self._block = block
        self._before = block.instructions[k] if k < len(block.instructions) else None

    def _save(self) -> tuple[BasicBlock | None, Instruction | None, str | None]:
        return self._block, self._before, self.debug_loc

    def _restore(self, saved: tuple[BasicBlock | None, Instruction | None, str | None]) -> None:
        self._block, self._before, self.debug_loc = saved

    @contextmanager
    def goto(self, where: BasicBlock | Instruction) -> Iterator[IRBuilder]:
        """Temporarily insert at the end of a block or before an instruction."""
        saved = self._save()
        if isinstance(where, BasicBlock):
            self.position_at_end(where)
        else:
            self.position_before(where)
        try:
            yield self
        finally:
            self._restore(saved)

    @contextmanager
    def at_end(self, block: BasicBlock) -> Iterator[IRBuilder]:
        with self.goto(block) as b:
            yield b

    @contextmanager
    def at_start(self, block: BasicBlock) -> Iterator[IRBuilder]:
        saved = self._save()
        self.position_at_start(block)
        try:
            yield self
        finally:
            self._restore(saved)

    def insert(self, inst: Instruction, name: str | None = None) -> Instruction:
        """Insert ``inst`` at the insertion point (naming it unless its type is void)."""
        block = self._block
        if block is None:
            raise UsageError("IRBuilder has no insertion point")
        if name and not inst.type.is_void:
            inst.name = name
        if self.debug_loc is not None and inst.get_metadata("dbg") is None:
            inst.metadata.append(("dbg", self.debug_loc))
        before = self._before
        if before is None:
            block.append(inst)
        else:
            if before.parent is not block:
                raise UsageError("IRBuilder: insertion point was moved out of its block")
            block.insert(block.instructions.index(before), inst)
        return inst

    def append_basic_block(self, name: str | None = None) -> BasicBlock:
        """A new block at the end of the current function."""
        fn = self.function
        if fn is None:
            raise UsageError("IRBuilder has no current function")
        return fn.append_basic_block(name)

    # -- operand coercion --------------------------------------------------------------
    @staticmethod
    def _pair(a: Operand, b: Operand) -> tuple[Value, Value]:
        if not isinstance(a, Value):
            if not isinstance(b, Value):
                raise UsageError("at least one operand must be an IR value")
            a = constant_of(b.type, a)
        elif not isinstance(b, Value):
            b = constant_of(a.type, b)
        return a, b

    @staticmethod
    def _value(v: Operand, type: Type) -> Value:
        return v if isinstance(v, Value) else constant_of(type, v)

    # -- arithmetic --------------------------------------------------------------------
    def binop(self, opcode: str, a: Operand, b: Operand, name: str | None = None,
              flags: Sequence[str] = ()) -> Instruction:
        lhs, rhs = self._pair(a, b)
        if lhs.type != rhs.type:
            raise UsageError(f"{opcode}: operand types differ ({lhs.type} and {rhs.type})")
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
        lhs, rhs = self._pair(a, b)
        if lhs.type != rhs.type:
            raise UsageError(f"icmp: operand types differ ({lhs.type} and {rhs.type})")
        return self.insert(ICmpInst(predicate, lhs, rhs, None, flags), name)

    def fcmp(self, predicate: str, a: Operand, b: Operand, name: str | None = None,
             flags: Sequence[str] = ()) -> Instruction:
        if predicate not in FCMP_PREDICATES:
            raise UsageError(f"fcmp: unknown predicate '{predicate}'")
        lhs, rhs = self._pair(a, b)
        if lhs.type != rhs.type:
            raise UsageError(f"fcmp: operand types differ ({lhs.type} and {rhs.type})")
        return self.insert(FCmpInst(predicate, lhs, rhs, None, flags), name)

    def select(self, condition: Value, a: Operand, b: Operand, name: str | None = None,
               flags: Sequence[str] = ()) -> Instruction:
        tv, fv = self._pair(a, b)
        if tv.type != fv.type:
            raise UsageError(f"select: operand types differ ({tv.type} and {fv.type})")
        return self.insert(SelectInst(condition, tv, fv, None, flags), name)

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

    # -- phi -----------------------------------------------------------------------------
    def phi(self, type: Type, incoming: Sequence[tuple[Value, BasicBlock]] = (),
            name: str | None = None, flags: Sequence[str] = ()) -> PHINode:
        inst = PHINode(type, incoming, None, flags)
        self.insert(inst, name)
        return inst

    # -- calls ---------------------------------------------------------------------------
    def call(self, callee: Value, args: Sequence[Operand] = (),
             function_type: FunctionType | None = None, name: str | None = None, *,
             tail: str = "", calling_conv: str | None = None, flags: Sequence[str] = (),
             return_attrs: Sequence[str] = (), arg_attrs: Sequence[Sequence[str]] | None = None,
             fn_attrs: Sequence[str] = (),
             bundles: Sequence[tuple[str, Sequence[Value]]] = ()) -> CallInst:
        """Call a Function (its type is used) or any pointer value (give ``function_type``)."""
        ft = self._callee_type(callee, function_type)
        values = self._call_args(ft, args)
        cc = calling_conv if calling_conv is not None else getattr(callee, "calling_conv", "")
        if not isinstance(callee, Function):
            cc = calling_conv or ""
        inst = CallInst(ft, callee, values, None, tail=tail, calling_conv=cc, flags=flags,
                        return_attrs=return_attrs, arg_attrs=arg_attrs, fn_attrs=fn_attrs,
                        bundles=bundles)
        self.insert(inst, name)
        return inst

    def invoke(self, callee: Value, args: Sequence[Operand], normal_dest: BasicBlock,
               unwind_dest: BasicBlock, function_type: FunctionType | None = None,
               name: str | None = None, **kw: object) -> InvokeInst:
        ft = self._callee_type(callee, function_type)
        inst = InvokeInst(ft, callee, self._call_args(ft, args), normal_dest, unwind_dest,
                          None, **kw)
        self.insert(inst, name)
        return inst

    @staticmethod
    def _callee_type(callee: Value, function_type: FunctionType | None) -> FunctionType:
        if function_type is not None:
            return function_type
        if isinstance(callee, Function):
            return callee.function_type
        raise UsageError("call through a pointer needs function_type=")

    def _call_args(self, ft: FunctionType, args: Sequence[Operand]) -> list[Value]:
        if len(args) < len(ft.params) or (len(args) > len(ft.params) and not ft.var_arg):
            raise UsageError(
                f"call: function type {ft} takes {len(ft.params)} argument(s), "
                f"{len(args)} given")
        out: list[Value] = []
        for k, a in enumerate(args):
            if isinstance(a, Value):
                out.append(a)
            elif k < len(ft.params):
                out.append(constant_of(ft.params[k], a))
            else:
                raise UsageError("call: Python numbers cannot be passed as varargs")
        return out

    def get_or_insert_function(self, name: str, function_type: FunctionType) -> Function:
        """The module's function ``name``, declared with ``function_type`` if missing."""
        module = self.module
        if module is None:
            raise UsageError("IRBuilder: no module (position the builder in a function)")
        fn = module.get_or_insert_function(name, function_type)
        if fn.function_type != function_type:
            raise UsageError(
                f"function '{name}' exists with type {fn.function_type}, not {function_type}")
        return fn

    def declare_intrinsic(self, name: str, function_type: FunctionType) -> Function:
        return self.get_or_insert_function(name, function_type)

    def call_intrinsic(self, name: str, return_type: Type, args: Sequence[Value],
                       name_result: str | None = None, flags: Sequence[str] = ()) -> CallInst:
        """Declare ``name`` with type ``return_type (arg types)`` if needed and call it."""
        ft = FunctionType(return_type, [a.type for a in args])
        return self.call(self.declare_intrinsic(name, ft), args, name=name_result, flags=flags)

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

    # -- terminators ---------------------------------------------------------------------
    def br(self, dest: BasicBlock) -> Instruction:
        return self.insert(BranchInst(dest))

    def cond_br(self, condition: Value, true_dest: BasicBlock,
                false_dest: BasicBlock) -> Instruction:
        if condition.type != i1:
            raise UsageError(f"cond_br: condition must be i1, got {condition.type}")
        return self.insert(BranchInst(true_dest, condition, false_dest))

    def switch(self, condition: Value, default_dest: BasicBlock,
               cases: Sequence[tuple[int | ConstantInt, BasicBlock]] = ()) -> SwitchInst:
        cs = [(c if isinstance(c, ConstantInt) else ConstantInt(condition.type, c), b)
              for c, b in cases]
        inst = SwitchInst(condition, default_dest, cs)  # type: ignore[arg-type]
        self.insert(inst)
        return inst

    def ret(self, value: Operand | None = None) -> Instruction:
        if value is not None and not isinstance(value, Value):
            fn = self.function
            if fn is None:
                raise UsageError("ret: a Python number needs the function's return type")
            value = constant_of(fn.return_type, value)
        return self.insert(ReturnInst(value))

    def ret_void(self) -> Instruction:
        return self.insert(ReturnInst())

    def unreachable(self) -> Instruction:
        return self.insert(UnreachableInst())

    def resume(self, value: Value) -> Instruction:
        return self.insert(ResumeInst(value))

    def landingpad(self, type: Type, cleanup: bool = False,
                   clauses: Sequence[tuple[str, Value]] = (),
                   name: str | None = None) -> Instruction:
        return self.insert(LandingPadInst(type, cleanup, clauses), name)


def literal_struct(*elements: Type) -> StructType:
    """Shorthand for a literal struct type (e.g. the return type of a gradient)."""
    return StructType(elements)


__all__ = ["FCMP_PREDICATES", "ICMP_PREDICATES", "IRBuilder", "aggregate_element_type",
           "constant_of", "literal_struct"]
