"""Parsers of the individual instructions (a mixin of the body parser)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .constants import ConstantInt, InlineAsm
from .control import (
    BranchInst,
    CallBrInst,
    CallInst,
    CatchPadInst,
    CatchReturnInst,
    CatchSwitchInst,
    CleanupPadInst,
    CleanupReturnInst,
    IndirectBrInst,
    InvokeInst,
    LandingPadInst,
    ResumeInst,
    ReturnInst,
    SwitchInst,
    UnreachableInst,
)
from .function import BasicBlock
from .instructions import (
    AllocaInst,
    AtomicCmpXchgInst,
    AtomicRMWInst,
    BinaryOperator,
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
    LoadInst,
    PHINode,
    SelectInst,
    ShuffleVectorInst,
    StoreInst,
    UnaryOperator,
    VAArgInst,
)
from .lexer import split_keyword_group
from .parser_attrs import INSTRUCTION_WORDS, AttrParserMixin
from .types import FunctionType, PointerType, StructType, Type, VectorType, i1
from .values import MetadataAsValue, Value

if TYPE_CHECKING:
    pass

FMF = frozenset(["fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"])
BINOP_FLAGS = FMF | {"nuw", "nsw", "exact", "disjoint"}
CAST_FLAGS = FMF | {"nuw", "nsw", "nneg"}
ORDERINGS = frozenset(["unordered", "monotonic", "acquire", "release", "acq_rel", "seq_cst"])
CALL_STOP = INSTRUCTION_WORDS | {"to"}




class InstructionParsers(AttrParserMixin):
    """One ``p_<opcode>`` method per instruction; the body parser supplies symbols."""

    if TYPE_CHECKING:

        def lookup_block(self, tok: str) -> BasicBlock: ...
        def parse_label_ref(self) -> BasicBlock: ...
        def parse_metadata_ref(self) -> str: ...

    # -- operand helpers -----------------------------------------------------------------
    def _flags(self, allowed: frozenset[str]) -> list[str]:
        toks = self.toks
        out: list[str] = []
        while toks[self.i] in allowed:
            out.append(toks[self.i])
            self.i += 1
        return out

    def _comma(self, what: str) -> None:
        if self.toks[self.i] != ",":
            self.error(f"expected ',' {what}")
        self.i += 1

    def _optional_align(self) -> int | None:
        if self.toks[self.i] == "," and self.toks[self.i + 1] == "align":
            self.i += 2
            return self.parse_int("expected alignment value")
        return None

    def _syncscope(self) -> str | None:
        t = self.toks[self.i]
        if t.startswith("syncscope("):
            self.i += 1
            parts = split_keyword_group(t)
            return parts[1].strip()[1:-1] if parts else None
        return None

    def _ordering(self) -> str:
        t = self.toks[self.i]
        if t not in ORDERINGS:
            self.error("expected ordering on atomic instruction")
        self.i += 1
        return t

    # -- instructions --------------------------------------------------------------------
    def p_binary(self, op: str) -> Instruction:
        flags = self._flags(BINOP_FLAGS)
        ty = self.parse_type()
        lhs = self.parse_value(ty)
        self._comma("after first operand")
        rhs = self.parse_value(ty)
        return BinaryOperator(op, lhs, rhs, None, flags)

    def p_fneg(self, op: str) -> Instruction:
        flags = self._flags(FMF)
        v = self.parse_typed_value()
        return UnaryOperator(op, v, None, flags)

    def p_cmp(self, op: str) -> Instruction:
        flags = self._flags(FMF | {"samesign"})
        pred = self.next()
        ty = self.parse_type()
        lhs = self.parse_value(ty)
        self._comma("after compare value")
        rhs = self.parse_value(ty)
        cls = ICmpInst if op == "icmp" else FCmpInst
        return cls(pred, lhs, rhs, None, flags)

    def p_cast(self, op: str) -> Instruction:
        flags = self._flags(CAST_FLAGS)
        v = self.parse_typed_value()
        self.expect("to", "expected 'to' after cast value")
        dest = self.parse_type()
        return CastInst(op, v, dest, None, flags)

    def p_alloca(self, op: str) -> Instruction:
        inalloca = self.accept("inalloca")
        swifterror = self.accept("swifterror")
        ty = self.parse_type()
        count = None
        align = None
        addrspace = 0
        while self.toks[self.i] == ",":
            nt = self.toks[self.i + 1]
            if nt == "align":
                self.i += 2
                align = self.parse_int("expected alignment value")
            elif nt.startswith("addrspace("):
                self.i += 1
                addrspace = self._addrspace_token()
            elif nt[:1] == "!":
                break
            else:
                self.i += 1
                count = self.parse_typed_value()
        inst = AllocaInst(ty, count, align, addrspace, inalloca)
        inst.swifterror = swifterror
        return inst

    def p_load(self, op: str) -> Instruction:
        atomic = self.accept("atomic")
        volatile = self.accept("volatile")
        ty = self.parse_type()
        self._comma("after load's type")
        p = self.parse_typed_value()
        scope, ordering, align = self._memory_access_tail(atomic)
        return LoadInst(ty, p, align, volatile, ordering, scope)

    def p_store(self, op: str) -> Instruction:
        atomic = self.accept("atomic")
        volatile = self.accept("volatile")
        v = self.parse_typed_value()
        self._comma("after store value")
        p = self.parse_typed_value()
        scope, ordering, align = self._memory_access_tail(atomic)
        return StoreInst(v, p, align, volatile, ordering, scope)

    def _memory_access_tail(self, atomic: bool) -> tuple[str | None, str | None, int | None]:
        """What follows a load's or store's pointer: [syncscope ordering] (if atomic), align."""
        scope = ordering = None
        if atomic:
            scope = self._syncscope()
            ordering = self._ordering()
        return scope, ordering, self._optional_align()

    def p_gep(self, op: str) -> Instruction:
        flags = self._flags(frozenset(["inbounds", "nuw", "nusw"]))
        src = self.parse_type()
        self._comma("after getelementptr's type")
        p = self.parse_typed_value()
        idx: list[Value] = []
        toks = self.toks
        while toks[self.i] == "," and toks[self.i + 1][:1] != "!":
            self.i += 1
            idx.append(self.parse_typed_value())
        return GetElementPtrInst(src, p, idx, None, flags)

    def _parse_callee_and_args(self) -> tuple[list[str], Type, Value, list[Value],
                                              list[list[str]]]:
        ret_attrs = self.parse_return_attrs()
        if self.toks[self.i].startswith("addrspace("):
            self.i += 1
        ty = self.parse_type()
        t = self.toks[self.i]
        if t == "asm":
            callee: Value = self._parse_inline_asm(ty)
        else:
            callee = self.parse_value(PointerType(0))
        self.expect("(", "expected '(' in call")
        args: list[Value] = []
        attrs: list[list[str]] = []
        toks = self.toks
        while toks[self.i] != ")":
            aty = self.parse_type()
            if aty.is_metadata:
                a_attrs: list[str] = []
                args.append(self.parse_metadata_operand())
            else:
                a_attrs = self.parse_param_attrs()
                args.append(self.parse_value(aty))
            attrs.append(a_attrs)
            if toks[self.i] != ",":
                break
            self.i += 1
        self.expect(")", "expected ')' at end of argument list")
        if not isinstance(ty, FunctionType):
            ty = FunctionType(ty, [a.type for a in args])
        if isinstance(callee, InlineAsm):
            callee.type = ty
        return ret_attrs, ty, callee, args, attrs

    def _parse_inline_asm(self, ty: Type) -> InlineAsm:
        self.i += 1
        side = self.accept("sideeffect")
        align = self.accept("alignstack")
        dialect = "intel" if self.accept("inteldialect") else "att"
        unwind = self.accept("unwind")
        asm = self.parse_string()
        self._comma("after inline asm string")
        cons = self.parse_string()
        return InlineAsm(ty, asm, cons, side, align, dialect, unwind)  # type: ignore[arg-type]

    def parse_metadata_operand(self) -> MetadataAsValue:
        t = self.toks[self.i]
        if t[:1] == "!":
            return MetadataAsValue(self.parse_metadata_ref())
        ty = self.parse_type("expected metadata operand")
        return MetadataAsValue(str(ty), self.parse_value(ty))

    def _parse_bundles(self) -> list[tuple[str, list[Value]]]:
        out: list[tuple[str, list[Value]]] = []
        if self.toks[self.i] != "[":
            return out
        self.i += 1
        while True:
            tag = self.parse_string("expected operand bundle tag")
            self.expect("(", "expected '(' after operand bundle tag")
            vals: list[Value] = []
            while self.toks[self.i] != ")":
                vals.append(self.parse_typed_value())
                if not self.accept(","):
                    break
            self.expect(")", "expected ')' at end of operand bundle")
            out.append((tag, vals))
            if not self.accept(","):
                break
        self.expect("]", "expected ']' at end of operand bundles")
        return out

    def p_call(self, op: str) -> Instruction:
        tail = ""
        if op != "call":
            tail = op
            self.expect("call", f"expected 'call' after '{op}'")
        flags = self._flags(FMF)
        cc = self.parse_calling_conv()
        ret_attrs, ft, callee, args, attrs = self._parse_callee_and_args()
        fn_attrs = self.parse_fn_attrs(CALL_STOP)
        bundles = self._parse_bundles()
        return CallInst(ft, callee, args, None, tail=tail, bundles=bundles, calling_conv=cc,
                        return_attrs=ret_attrs, arg_attrs=attrs, fn_attrs=fn_attrs,
                        flags=flags)

    def p_invoke(self, op: str) -> Instruction:
        cc = self.parse_calling_conv()
        ret_attrs, ft, callee, args, attrs = self._parse_callee_and_args()
        fn_attrs = self.parse_fn_attrs(CALL_STOP)
        bundles = self._parse_bundles()
        self.expect("to", "expected 'to' in invoke")
        normal = self.parse_label_ref()
        self.expect("unwind", "expected 'unwind' in invoke")
        unwind = self.parse_label_ref()
        return InvokeInst(ft, callee, args, normal, unwind, None, bundles=bundles,
                          calling_conv=cc, return_attrs=ret_attrs, arg_attrs=attrs,
                          fn_attrs=fn_attrs)

    def p_callbr(self, op: str) -> Instruction:
        cc = self.parse_calling_conv()
        ret_attrs, ft, callee, args, attrs = self._parse_callee_and_args()
        fn_attrs = self.parse_fn_attrs(CALL_STOP)
        bundles = self._parse_bundles()
        self.expect("to", "expected 'to' in callbr")
        default = self.parse_label_ref()
        self.expect("[", "expected '[' in callbr")
        dests: list[BasicBlock] = []
        while self.toks[self.i] != "]":
            dests.append(self.parse_label_ref())
            if not self.accept(","):
                break
        self.expect("]", "expected ']' at end of block list")
        return CallBrInst(ft, callee, args, default, dests, None, bundles=bundles,
                          calling_conv=cc, return_attrs=ret_attrs, arg_attrs=attrs,
                          fn_attrs=fn_attrs)

    def p_phi(self, op: str) -> Instruction:
        flags = self._flags(FMF)
        ty = self.parse_type()
        phi = PHINode(ty, (), None, flags)
        toks = self.toks
        while True:
            self.expect("[", "expected '[' in phi value list")
            v = self.parse_value(ty)
            self._comma("after insertelement value" if False else "after phi value")
            bt = toks[self.i]
            if bt[:1] != "%":
                self.error("expected basic block name in phi")
            self.i += 1
            phi.add_incoming(v, self.lookup_block(bt))
            self.expect("]", "expected ']' in phi value list")
            if toks[self.i] != "," or toks[self.i + 1] != "[":
                return phi
            self.i += 1

    def p_select(self, op: str) -> Instruction:
        flags = self._flags(FMF)
        c = self.parse_typed_value()
        self._comma("after select condition")
        a = self.parse_typed_value()
        self._comma("after select value")
        b = self.parse_typed_value()
        return SelectInst(c, a, b, None, flags)

    def p_ret(self, op: str) -> Instruction:
        if self.accept("void"):
            return ReturnInst()
        return ReturnInst(self.parse_typed_value())

    def p_br(self, op: str) -> Instruction:
        if self.toks[self.i] == "label":
            return BranchInst(self.parse_label_ref())
        ty = self.parse_type()
        if ty != i1:
            self.error("branch condition must have 'i1' type", self.i - 1)
        c = self.parse_value(ty)
        self._comma("after branch condition")
        t = self.parse_label_ref()
        self._comma("after true destination")
        f = self.parse_label_ref()
        return BranchInst(t, c, f)

    def p_switch(self, op: str) -> Instruction:
        c = self.parse_typed_value()
        self._comma("after switch condition")
        default = self.parse_label_ref()
        self.expect("[", "expected '[' with switch table")
        inst = SwitchInst(c, default)
        while self.toks[self.i] != "]":
            v = self.parse_typed_value()
            if not isinstance(v, ConstantInt):
                self.error("case value is not a constant integer", self.i - 1)
            self._comma("after case value")
            inst.add_case(v, self.parse_label_ref())  # type: ignore[arg-type]
        self.i += 1
        return inst

    def p_indirectbr(self, op: str) -> Instruction:
        a = self.parse_typed_value()
        self._comma("after indirectbr address")
        self.expect("[", "expected '[' with indirectbr")
        dests: list[BasicBlock] = []
        while self.toks[self.i] != "]":
            dests.append(self.parse_label_ref())
            if not self.accept(","):
                break
        self.expect("]", "expected ']' at end of block list")
        return IndirectBrInst(a, dests)

    def p_unreachable(self, op: str) -> Instruction:
        return UnreachableInst()

    def _indices(self) -> list[int]:
        out: list[int] = []
        toks = self.toks
        while toks[self.i] == "," and toks[self.i + 1][:1] != "!":
            self.i += 1
            out.append(self.parse_int("expected index"))
        if not out:
            self.error("expected index")
        return out

    def p_extractvalue(self, op: str) -> Instruction:
        agg = self.parse_typed_value()
        idx = self._indices()
        ty = agg.type
        for k in idx:
            if isinstance(ty, StructType) or ty.is_struct:
                if k >= len(ty.elements):  # type: ignore[attr-defined]
                    self.error("invalid indices for extractvalue", self.i - 1)
                ty = ty.elements[k]  # type: ignore[attr-defined]
            elif ty.is_array:
                ty = ty.element  # type: ignore[attr-defined]
            else:
                self.error("invalid indices for extractvalue", self.i - 1)
        return ExtractValueInst(agg, idx, ty)

    def p_insertvalue(self, op: str) -> Instruction:
        agg = self.parse_typed_value()
        self._comma("after insertvalue aggregate")
        v = self.parse_typed_value()
        return InsertValueInst(agg, v, self._indices())

    def p_extractelement(self, op: str) -> Instruction:
        v = self.parse_typed_value()
        self._comma("after extract value")
        if not isinstance(v.type, VectorType):
            self.error("extractelement requires a vector operand")
        return ExtractElementInst(v, self.parse_typed_value())

    def p_insertelement(self, op: str) -> Instruction:
        v = self.parse_typed_value()
        self._comma("after insertelement value")
        e = self.parse_typed_value()
        self._comma("after insertelement element")
        return InsertElementInst(v, e, self.parse_typed_value())

    def p_shufflevector(self, op: str) -> Instruction:
        a = self.parse_typed_value()
        self._comma("after shuffle mask")
        b = self.parse_typed_value()
        self._comma("after shuffle value")
        return ShuffleVectorInst(a, b, self.parse_typed_value())

    def p_atomicrmw(self, op: str) -> Instruction:
        volatile = self.accept("volatile")
        operation = self.next()
        p = self.parse_typed_value()
        self._comma("after atomicrmw address")
        v = self.parse_typed_value()
        scope = self._syncscope()
        ordering = self._ordering()
        align = self._optional_align()
        return AtomicRMWInst(operation, p, v, ordering, scope, volatile, align)

    def p_cmpxchg(self, op: str) -> Instruction:
        weak = self.accept("weak")
        volatile = self.accept("volatile")
        p = self.parse_typed_value()
        self._comma("after cmpxchg address")
        c = self.parse_typed_value()
        self._comma("after cmpxchg cmp operand")
        n = self.parse_typed_value()
        scope = self._syncscope()
        s = self._ordering()
        f = self._ordering()
        align = self._optional_align()
        return AtomicCmpXchgInst(p, c, n, s, f, weak, volatile, scope, align)

    def p_fence(self, op: str) -> Instruction:
        scope = self._syncscope()
        return FenceInst(self._ordering(), scope)

    def p_va_arg(self, op: str) -> Instruction:
        p = self.parse_typed_value()
        self._comma("after vaarg operand")
        return VAArgInst(p, self.parse_type())

    def p_freeze(self, op: str) -> Instruction:
        return FreezeInst(self.parse_typed_value())

    def p_landingpad(self, op: str) -> Instruction:
        ty = self.parse_type()
        cleanup = self.accept("cleanup")
        inst = LandingPadInst(ty, cleanup)
        while self.toks[self.i] in ("catch", "filter"):
            kind = self.next()
            inst.add_clause(kind, self.parse_typed_value())
        return inst

    def p_resume(self, op: str) -> Instruction:
        return ResumeInst(self.parse_typed_value())

    def _pad_args(self) -> list[Value]:
        self.expect("[", "expected '[' in pad argument list")
        args: list[Value] = []
        while self.toks[self.i] != "]":
            ty = self.parse_type()
            args.append(self.parse_value(ty))
            if not self.accept(","):
                break
        self.expect("]", "expected ']' at end of pad argument list")
        return args

    def _within(self) -> Value:
        self.expect("within", "expected 'within' after pad")
        from .types import token

        return self.parse_value(token)

    def p_cleanuppad(self, op: str) -> Instruction:
        parent = self._within()
        return CleanupPadInst(parent, self._pad_args())

    def p_catchpad(self, op: str) -> Instruction:
        parent = self._within()
        return CatchPadInst(parent, self._pad_args())

    def p_catchswitch(self, op: str) -> Instruction:
        parent = self._within()
        self.expect("[", "expected '[' with catchswitch labels")
        handlers: list[BasicBlock] = []
        while self.toks[self.i] != "]":
            handlers.append(self.parse_label_ref())
            if not self.accept(","):
                break
        self.expect("]", "expected ']' after catchswitch labels")
        self.expect("unwind", "expected 'unwind' after catchswitch scope")
        unwind = None
        if self.accept("to"):
            self.expect("caller", "expected 'caller' in catchswitch")
        else:
            unwind = self.parse_label_ref()
        return CatchSwitchInst(parent, handlers, unwind)

    def p_catchret(self, op: str) -> Instruction:
        self.expect("from", "expected 'from' after catchret")
        from .types import token

        pad = self.parse_value(token)
        self.expect("to", "expected 'to' in catchret")
        return CatchReturnInst(pad, self.parse_label_ref())

    def p_cleanupret(self, op: str) -> Instruction:
        self.expect("from", "expected 'from' after cleanupret")
        from .types import token

        pad = self.parse_value(token)
        self.expect("unwind", "expected 'unwind' in cleanupret")
        if self.accept("to"):
            self.expect("caller", "expected 'caller' in cleanupret")
            return CleanupReturnInst(pad)
        return CleanupReturnInst(pad, self.parse_label_ref())


DISPATCH: dict[str, Callable[[InstructionParsers, str], Instruction]] = {}
for _op in ["add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub", "fmul", "fdiv", "frem"]:
    DISPATCH[_op] = InstructionParsers.p_binary
for _op in ["trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "ptrtoaddr"]:
    DISPATCH[_op] = InstructionParsers.p_cast
for _op in ("call", "tail", "musttail", "notail"):
    DISPATCH[_op] = InstructionParsers.p_call
DISPATCH.update(
    fneg=InstructionParsers.p_fneg, icmp=InstructionParsers.p_cmp, fcmp=InstructionParsers.p_cmp,
    alloca=InstructionParsers.p_alloca, load=InstructionParsers.p_load, store=InstructionParsers.p_store,
    getelementptr=InstructionParsers.p_gep, invoke=InstructionParsers.p_invoke, callbr=InstructionParsers.p_callbr,
    phi=InstructionParsers.p_phi, select=InstructionParsers.p_select, ret=InstructionParsers.p_ret,
    br=InstructionParsers.p_br, switch=InstructionParsers.p_switch, indirectbr=InstructionParsers.p_indirectbr,
    unreachable=InstructionParsers.p_unreachable, extractvalue=InstructionParsers.p_extractvalue,
    insertvalue=InstructionParsers.p_insertvalue, extractelement=InstructionParsers.p_extractelement,
    insertelement=InstructionParsers.p_insertelement, shufflevector=InstructionParsers.p_shufflevector,
    atomicrmw=InstructionParsers.p_atomicrmw, cmpxchg=InstructionParsers.p_cmpxchg, fence=InstructionParsers.p_fence,
    va_arg=InstructionParsers.p_va_arg, freeze=InstructionParsers.p_freeze,
    landingpad=InstructionParsers.p_landingpad, resume=InstructionParsers.p_resume,
    cleanuppad=InstructionParsers.p_cleanuppad, catchpad=InstructionParsers.p_catchpad,
    catchswitch=InstructionParsers.p_catchswitch, catchret=InstructionParsers.p_catchret,
    cleanupret=InstructionParsers.p_cleanupret,
)
