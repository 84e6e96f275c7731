"""Verifier: what LLVM's verifier misses and what would abort llvmlite, checked on our IR.

Checks: structure (one terminator per block, at the end; parent pointers), phis (first in
their block, one entry per predecessor, matching types), operand types of the common
instructions, ``ret`` against the function's return type, calls against the callee's
declaration (LLVM accepts a call whose type differs from the declaration), dominance of
every use by its definition, and no use of another function's values.

Errors are :class:`irgrad.errors.IRVerifyError` naming the function and the instruction:
``in function 'f': call to 'g' passes 1 argument(s), declaration takes 2:
%3 = call double @g(double %x)``.
"""

from __future__ import annotations

import re

from irgrad.analysis.dominators import DominatorTree
from irgrad.errors import IRVerifyError, SourceLocation

from .constants import Constant, ConstantInt
from .function import Argument, BasicBlock, Function
from .instructions import (
    BINARY_OPCODES,
    CAST_OPCODES,
    CallBase,
    Instruction,
    InvokeInst,
    PHINode,
)
from .module import Module
from .types import ArrayType, FloatType, FunctionType, IntType, Type, VectorType, i1
from .values import MetadataAsValue, Value

_INT_ONLY = frozenset(["add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr",
                       "ashr", "and", "or", "xor"])


def verify_module(module: Module, *, all_functions: bool = False) -> None:
    """Verify every function of ``module`` whose body has been parsed or built.

    Bodies still held as unparsed text are LLVM's own output, unchanged, and are skipped
    unless ``all_functions=True`` (which parses them).
    """
    for fn in list(module.functions):
        if fn.is_materialized or all_functions:
            verify_function(fn)


def verify_function(fn: Function) -> None:
    """Raise IRVerifyError on the first broken rule in ``fn`` (declarations pass)."""
    if fn.is_declaration:
        return
    _FunctionVerifier(fn).run()


def _scalar(t: Type) -> Type:
    return t.element if isinstance(t, VectorType) else t


def _same_shape(a: Type, b: Type) -> bool:
    """Both scalars, or vectors of the same length."""
    if isinstance(a, VectorType) or isinstance(b, VectorType):
        return (isinstance(a, VectorType) and isinstance(b, VectorType)
                and a.count == b.count and a.scalable == b.scalable)
    return True


def _int_width(t: Type) -> int | None:
    s = _scalar(t)
    return s.width if isinstance(s, IntType) else None


def _fp_bits(t: Type) -> int | None:
    s = _scalar(t)
    return s.bits if isinstance(s, FloatType) else None


def _bit_size(t: Type) -> int | None:
    if isinstance(t, VectorType):
        e = _bit_size(t.element)
        return None if e is None or t.scalable else e * t.count
    if isinstance(t, IntType):
        return t.width
    if isinstance(t, FloatType):
        return t.bits
    return None


def _cast_problem(op: str, src: Type, dst: Type) -> str | None:
    """Why ``op`` cannot cast ``src`` to ``dst`` (None if it can)."""
    if op != "bitcast" and not _same_shape(src, dst):
        return f"{op} from {src} to {dst} changes the vector shape"
    sw, dw = _int_width(src), _int_width(dst)
    sf, df = _fp_bits(src), _fp_bits(dst)
    sp, dp = _scalar(src).is_pointer, _scalar(dst).is_pointer
    ok: bool
    if op == "trunc":
        ok = sw is not None and dw is not None and sw > dw
    elif op in ("zext", "sext"):
        ok = sw is not None and dw is not None and sw < dw
    elif op == "fptrunc":
        ok = sf is not None and df is not None and sf > df
    elif op == "fpext":
        ok = sf is not None and df is not None and sf < df
    elif op in ("fptosi", "fptoui"):
        ok = sf is not None and dw is not None
    elif op in ("sitofp", "uitofp"):
        ok = sw is not None and df is not None
    elif op in ("ptrtoint", "ptrtoaddr"):
        ok = sp and dw is not None
    elif op == "inttoptr":
        ok = sw is not None and dp
    elif op == "addrspacecast":
        ok = sp and dp
    else:  # bitcast
        if sp or dp:
            ok = sp and dp and _scalar(src) == _scalar(dst) and _same_shape(src, dst)
        else:
            bs, bd = _bit_size(src), _bit_size(dst)
            ok = bs is not None and bs == bd
    return None if ok else f"invalid {op} from {src} to {dst}"


def _aggregate_index(t: Type, indices: list[int]) -> Type | None:
    for k in indices:
        if isinstance(t, ArrayType):
            if not 0 <= k < t.count:
                return None
            t = t.element
        elif t.is_struct:
            elements = t.elements  # type: ignore[attr-defined]
            if not 0 <= k < len(elements):
                return None
            t = elements[k]
        else:
            return None
    return t


def _same_value(a: Value, b: Value) -> bool:
    """The same value, or equal constants (parsed constants are separate objects)."""
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant) and type(a) is type(b):
        from .printer import print_value

        return print_value(a) == print_value(b)
    return False


def _name_of(v: Value) -> str:
    return v.name if v.name else "<unnamed>"


class _FunctionVerifier:
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.blocks = list(fn.blocks)
        self.block_set = set(map(id, self.blocks))
        self.index: dict[int, int] = {}  # id(inst) -> position in its block
        self.preds: dict[int, list[BasicBlock]] = {id(b): [] for b in self.blocks}

    # -- reporting ---------------------------------------------------------------------
    def fail(self, message: str, inst: Instruction | None = None) -> None:
        text = f"in function '{self.fn.name}': {message}"
        loc = None
        if inst is not None:
            try:
                printed = str(inst).strip()
            except Exception:  # a badly broken instruction may not print
                printed = repr(inst)
            text += f": {printed}"
            loc = self.source_location(inst)
        raise IRVerifyError(text, loc)

    def source_location(self, inst: Instruction) -> SourceLocation | None:
        ref = inst.debug_loc
        module = self.fn.parent
        if ref is None or module is None:
            return None
        return debug_source_location(module, ref)

    # -- driver --------------------------------------------------------------------------
    def run(self) -> None:
        self.check_structure()
        self.compute_dominators()
        for bb in self.blocks:
            for inst in bb.instructions:
                self.check_operands_local(inst)
                self.check_types(inst)
                if isinstance(inst, PHINode):
                    self.check_phi(inst, bb)
                self.check_dominance(inst, bb)

    # -- structure -----------------------------------------------------------------------
    def check_structure(self) -> None:
        fn = self.fn
        seen: set[int] = set()
        for a in fn.args:
            if a.parent is not fn:
                raise IRVerifyError(f"in function '{fn.name}': argument {a.index} has a "
                                    "wrong parent")
        for bb in self.blocks:
            if id(bb) in seen:
                raise IRVerifyError(f"in function '{fn.name}': block "
                                    f"'{_name_of(bb)}' appears twice")
            seen.add(id(bb))
            if bb.parent is not fn:
                raise IRVerifyError(f"in function '{fn.name}': block '{_name_of(bb)}' "
                                    "belongs to another function")
            insts = bb.instructions
            if not insts:
                raise IRVerifyError(f"in function '{fn.name}': block '{_name_of(bb)}' is "
                                    "empty (no terminator)")
            after_phis = False
            for k, inst in enumerate(insts):
                self.index[id(inst)] = k
                if inst.parent is not bb:
                    self.fail("instruction's parent is not the block that holds it", inst)
                if inst.is_terminator and k != len(insts) - 1:
                    self.fail(f"terminator in the middle of block '{_name_of(bb)}'", inst)
                if inst.opcode == "phi":
                    if after_phis:
                        self.fail("phi node is not at the start of its block", inst)
                else:
                    after_phis = True
            if not insts[-1].is_terminator:
                self.fail(f"block '{_name_of(bb)}' does not end with a terminator", insts[-1])
        for bb in self.blocks:
            for succ in bb.instructions[-1].successors():
                if succ is self.blocks[0]:
                    self.fail("branch to the entry block (it must have no predecessors)",
                              bb.instructions[-1])
                if id(succ) not in self.block_set:
                    self.fail(f"branch to block '{_name_of(succ)}' of another function",
                              bb.instructions[-1])
                plist = self.preds[id(succ)]
                if bb not in plist:
                    plist.append(bb)

    # -- dominators (irgrad.analysis.dominators: the one implementation) ----------------
    def compute_dominators(self) -> None:
        self.dom_tree = DominatorTree(self.fn)

    def reachable(self, bb: BasicBlock) -> bool:
        return self.dom_tree.is_reachable(bb)

    def dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Block ``a`` dominates block ``b`` (both reachable)."""
        return self.dom_tree.dominates(a, b)

    # -- operands ------------------------------------------------------------------------
    def check_operands_local(self, inst: Instruction) -> None:
        fn = self.fn
        for op in inst.operands:
            if isinstance(op, MetadataAsValue) and op.value is not None:
                op = op.value
            if isinstance(op, Instruction):
                if op.parent is None:
                    self.fail("operand is an instruction that is not in a block", inst)
                if op.function is not fn:
                    owner = op.function.name if op.function is not None else "?"
                    self.fail(f"uses a value of function '{owner}'", inst)
            elif isinstance(op, Argument) and op.parent is not fn:
                owner = op.parent.name if op.parent is not None else "?"
                self.fail(f"uses an argument of function '{owner}'", inst)
            elif isinstance(op, BasicBlock) and op.parent is not fn:
                self.fail(f"refers to block '{_name_of(op)}' of another function", inst)

    def check_dominance(self, inst: Instruction, bb: BasicBlock) -> None:
        if not self.reachable(bb):
            return  # anything dominates unreachable code
        if isinstance(inst, PHINode):
            for v, pred in inst.incoming:
                if (isinstance(v, Instruction) and self.reachable(pred)
                        and not self._available_at_end(v, pred)):
                    self.fail("phi operand does not dominate the end of incoming block "
                              f"'{_name_of(pred)}'", inst)
            return
        for op in inst.operands:
            if not isinstance(op, Instruction) or op.function is not self.fn:
                continue
            if not self._available_before(op, inst, bb):
                self.fail("instruction does not dominate all its uses "
                          f"(operand defined by: {op.opcode})", inst)

    def _def_block(self, d: Instruction) -> tuple[BasicBlock, bool]:
        """Where a definition becomes available; for invoke: its normal destination."""
        if isinstance(d, InvokeInst):
            return d.normal_dest, True
        return d.parent, False  # type: ignore[return-value]

    def _available_before(self, d: Instruction, use: Instruction, bb: BasicBlock) -> bool:
        dbb, from_start = self._def_block(d)
        if not self.reachable(dbb):
            return False
        if dbb is bb and not from_start:
            return self.index[id(d)] < self.index[id(use)]
        return self.dominates(dbb, bb)

    def _available_at_end(self, d: Instruction, pred: BasicBlock) -> bool:
        dbb, _ = self._def_block(d)
        if isinstance(d, InvokeInst) and d.parent is pred:
            return True  # the normal edge carries the invoke's result
        if not self.reachable(dbb):
            return False
        return self.dominates(dbb, pred)

    # -- phis ------------------------------------------------------------------------------
    def check_phi(self, phi: PHINode, bb: BasicBlock) -> None:
        preds = self.preds[id(bb)]
        seen: dict[int, Value] = {}
        for v, blk in phi.incoming:
            if v.type != phi.type:
                self.fail(f"phi incoming value has type {v.type}, phi has type {phi.type}", phi)
            if not isinstance(blk, BasicBlock):
                self.fail("phi incoming block is not a block", phi)
            if blk not in preds:
                self.fail(f"phi has an entry for '{_name_of(blk)}', which is not a "
                          "predecessor", phi)
            if id(blk) in seen and not _same_value(seen[id(blk)], v):
                self.fail(f"phi has different values for the same block '{_name_of(blk)}'",
                          phi)
            seen[id(blk)] = v
        for p in preds:
            if id(p) not in seen:
                self.fail(f"phi has no entry for predecessor '{_name_of(p)}'", phi)

    # -- types -------------------------------------------------------------------------------
    def check_types(self, inst: Instruction) -> None:
        op = inst.opcode
        if op in BINARY_OPCODES:
            self._check_binary(inst)
        elif op in CAST_OPCODES:
            problem = _cast_problem(op, inst.operands[0].type, inst.type)
            if problem:
                self.fail(problem, inst)
        else:
            check = getattr(self, "_check_" + op, None)
            if check is not None:
                check(inst)

    def _check_binary(self, inst: Instruction) -> None:
        a, b = inst.operands
        if a.type != b.type:
            self.fail(f"{inst.opcode} operands have different types ({a.type} and {b.type})",
                      inst)
        if inst.type != a.type:
            self.fail(f"{inst.opcode} result type {inst.type} differs from its operands' "
                      f"type {a.type}", inst)
        if inst.opcode in _INT_ONLY:
            if _int_width(a.type) is None:
                self.fail(f"{inst.opcode} needs integer operands, got {a.type}", inst)
        elif not a.type.is_fp_or_fp_vector:
            self.fail(f"{inst.opcode} needs floating-point operands, got {a.type}", inst)

    def _check_fneg(self, inst: Instruction) -> None:
        t = inst.operands[0].type
        if not t.is_fp_or_fp_vector or inst.type != t:
            self.fail(f"fneg needs a floating-point operand, got {t}", inst)

    def _check_cmp(self, inst: Instruction, fp: bool) -> None:
        a, b = inst.operands
        if a.type != b.type:
            self.fail(f"{inst.opcode} operands have different types ({a.type} and {b.type})",
                      inst)
        s = _scalar(a.type)
        if fp and not s.is_float:
            self.fail(f"fcmp needs floating-point operands, got {a.type}", inst)
        if not fp and not (s.is_integer or s.is_pointer):
            self.fail(f"icmp needs integer or pointer operands, got {a.type}", inst)

    def _check_icmp(self, inst: Instruction) -> None:
        self._check_cmp(inst, fp=False)

    def _check_fcmp(self, inst: Instruction) -> None:
        self._check_cmp(inst, fp=True)

    def _check_select(self, inst: Instruction) -> None:
        c, t, f = inst.operands
        if t.type != f.type:
            self.fail(f"select operands have different types ({t.type} and {f.type})", inst)
        if _scalar(c.type) != i1 or (isinstance(c.type, VectorType) and
                                     not _same_shape(c.type, t.type)):
            self.fail(f"select condition must be i1 (or a vector of i1), got {c.type}", inst)

    def _check_load(self, inst: Instruction) -> None:
        p = inst.operands[0]
        if not p.type.is_pointer:
            self.fail(f"load address must be a pointer, got {p.type}", inst)
        if not inst.type.is_first_class or inst.type.is_label or inst.type.is_metadata:
            self.fail(f"cannot load a value of type {inst.type}", inst)

    def _check_store(self, inst: Instruction) -> None:
        v, p = inst.operands
        if not p.type.is_pointer:
            self.fail(f"store address must be a pointer, got {p.type}", inst)
        if not v.type.is_first_class or v.type.is_label or v.type.is_metadata:
            self.fail(f"cannot store a value of type {v.type}", inst)

    def _check_alloca(self, inst: Instruction) -> None:
        if inst.operands and not isinstance(inst.operands[0].type, IntType):
            self.fail(f"alloca count must be an integer, got {inst.operands[0].type}", inst)

    def _check_getelementptr(self, inst: Instruction) -> None:
        p, *idx = inst.operands
        if not _scalar(p.type).is_pointer:
            self.fail(f"getelementptr base must be a pointer, got {p.type}", inst)
        for v in idx:
            if _int_width(v.type) is None:
                self.fail(f"getelementptr index must be an integer, got {v.type}", inst)

    def _check_extractvalue(self, inst: Instruction) -> None:
        agg = inst.operands[0]
        t = _aggregate_index(agg.type, inst.indices)  # type: ignore[attr-defined]
        if t is None:
            self.fail(f"extractvalue indices are invalid for {agg.type}", inst)
        elif t != inst.type:
            self.fail(f"extractvalue result type {inst.type} differs from field type {t}", inst)

    def _check_insertvalue(self, inst: Instruction) -> None:
        agg, v = inst.operands
        t = _aggregate_index(agg.type, inst.indices)  # type: ignore[attr-defined]
        if t is None:
            self.fail(f"insertvalue indices are invalid for {agg.type}", inst)
        elif t != v.type:
            self.fail(f"insertvalue of {v.type} into a field of type {t}", inst)

    def _check_ret(self, inst: Instruction) -> None:
        rt = self.fn.return_type
        v = inst.operands[0] if inst.operands else None
        if v is None and not rt.is_void:
            self.fail(f"ret void in a function returning {rt}", inst)
        if v is not None and v.type != rt:
            self.fail(f"ret of {v.type} in a function returning {rt}", inst)

    def _check_br(self, inst: Instruction) -> None:
        if len(inst.operands) == 3 and inst.operands[0].type != i1:
            self.fail(f"branch condition must be i1, got {inst.operands[0].type}", inst)

    def _check_switch(self, inst: Instruction) -> None:
        cond = inst.operands[0]
        if not isinstance(cond.type, IntType):
            self.fail(f"switch condition must be an integer, got {cond.type}", inst)
        seen: set[int] = set()
        for c, _ in inst.cases:  # type: ignore[attr-defined]
            if c.type != cond.type or not isinstance(c, ConstantInt):
                self.fail(f"switch case value {c.type} does not match condition type "
                          f"{cond.type}", inst)
            if c.unsigned_value in seen:
                self.fail(f"duplicate switch case value {c.signed_value}", inst)
            seen.add(c.unsigned_value)

    def _check_call(self, inst: Instruction) -> None:
        self._check_call_base(inst)  # type: ignore[arg-type]

    def _check_invoke(self, inst: Instruction) -> None:
        self._check_call_base(inst)  # type: ignore[arg-type]

    def _check_callbr(self, inst: Instruction) -> None:
        self._check_call_base(inst)  # type: ignore[arg-type]

    def _check_call_base(self, inst: CallBase) -> None:
        ft: FunctionType = inst.function_type
        args = inst.args
        callee = inst.callee
        what = f"call to '{callee.name}'" if isinstance(callee, Function) else "indirect call"
        if isinstance(callee, Function):
            decl = callee.function_type
            # an unprototyped C declaration (``declare T @g(...)``) takes any arguments
            unprototyped = decl.var_arg and not decl.params and (
                decl.return_type == ft.return_type)
            if decl != ft and not unprototyped:
                if len(args) != len(decl.params) and not decl.var_arg:
                    self.fail(f"{what} passes {len(args)} argument(s), declaration takes "
                              f"{len(decl.params)}", inst)
                if decl.var_arg and len(args) < len(decl.params):
                    self.fail(f"{what} passes {len(args)} argument(s), declaration takes at "
                              f"least {len(decl.params)}", inst)
                if decl.var_arg != ft.var_arg:
                    self.fail(f"{what} has type {ft}, declaration has type {decl}", inst)
                for k, (a, p) in enumerate(zip(args, decl.params, strict=False)):
                    if a.type != p:
                        self.fail(f"{what}: argument {k + 1} has type {a.type}, declaration "
                                  f"expects {p}", inst)
                if ft.return_type != decl.return_type:
                    self.fail(f"{what} expects a result of type {ft.return_type}, declaration "
                              f"returns {decl.return_type}", inst)
                self.fail(f"{what} has type {ft}, declaration has type {decl}", inst)
        elif not callee.type.is_pointer and not isinstance(callee.type, FunctionType):
            self.fail(f"callee must be a pointer, got {callee.type}", inst)
        n = len(ft.params)
        if len(args) < n or (len(args) > n and not ft.var_arg):
            self.fail(f"{what} passes {len(args)} argument(s), its type {ft} takes {n}", inst)
        for k, (a, p) in enumerate(zip(args, ft.params, strict=False)):
            if a.type != p:
                self.fail(f"{what}: argument {k + 1} has type {a.type}, expected {p}", inst)
        if inst.type != ft.return_type:
            self.fail(f"{what} result type {inst.type} differs from {ft.return_type}", inst)
        if len(inst.arg_attrs) > len(args):
            self.fail(f"{what} has attributes for {len(inst.arg_attrs)} arguments but passes "
                      f"{len(args)}", inst)


def debug_source_location(module: Module, ref: str) -> SourceLocation | None:
    """File, line and column of a raw ``!N`` DILocation reference, from the module's metadata."""
    nodes = _metadata_index(module)
    body = nodes.get(ref)
    if body is None or "DILocation(" not in body:
        return None
    line = _field_int(body, "line")
    col = _field_int(body, "column")
    filename = "<input>"
    scope = _field_ref(body, "scope")
    for _ in range(64):  # walk lexical blocks up to something with a file
        if scope is None:
            break
        sbody = nodes.get(scope, "")
        file_ref = _field_ref(sbody, "file")
        if file_ref is not None:
            fbody = nodes.get(file_ref, "")
            m = re.search(r'filename:\s*"((?:[^"\\]|\\.)*)"', fbody)
            if m:
                filename = m.group(1)
            break
        scope = _field_ref(sbody, "scope")
    return SourceLocation(filename, line or 0, col or 0)


def _metadata_index(module: Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in module.metadata:
        m = re.match(r"^(!\d+)\s*=\s*(.*)$", line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _field_int(body: str, field: str) -> int | None:
    m = re.search(rf"\b{field}:\s*(\d+)", body)
    return int(m.group(1)) if m else None


def _field_ref(body: str, field: str) -> str | None:
    m = re.search(rf"\b{field}:\s*(!\d+)", body)
    return m.group(1) if m else None


__all__ = ["debug_source_location", "verify_function", "verify_module"]
