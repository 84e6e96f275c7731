"""The verifier's type rules, one ``_check_<opcode>`` method per instruction.

Operand and result types of the common instructions (binary operators, casts,
comparisons, ``select``, memory, aggregates), ``ret`` against the function's return type,
``br``/``switch`` conditions, and calls against both their own function type and the
callee's declaration (LLVM accepts a call whose type differs from the declaration; the
code generator then miscompiles or aborts). Mixed into the verifier of
:mod:`irgrad.ir.verifier`, which supplies ``fn`` and ``fail``.
"""

from __future__ import annotations

from .constants import ConstantInt
from .control import CallBase
from .function import Function
from .instructions import BINARY_OPCODES, CAST_OPCODES, Instruction
from .types import ArrayType, FloatType, FunctionType, IntType, Type, VectorType, i1
from .values import Value

_INT_ONLY = frozenset(["add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr",
                       "ashr", "and", "or", "xor"])


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


class InstructionTypeChecks:
    """``check_types(inst)``: the first type error of ``inst``, reported through ``fail``."""

    fn: Function

    def fail(self, message: str, inst: Instruction | None = None) -> None:
        raise NotImplementedError

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
        self._check_access(inst, "load", inst.operands[0], inst.type)

    def _check_store(self, inst: Instruction) -> None:
        v, p = inst.operands
        self._check_access(inst, "store", p, v.type)

    def _check_access(self, inst: Instruction, verb: str, address: Value, t: Type) -> None:
        """A load or store: the address is a pointer, the value a first-class type."""
        if not address.type.is_pointer:
            self.fail(f"{verb} address must be a pointer, got {address.type}", inst)
        if not t.is_first_class or t.is_label or t.is_metadata:
            self.fail(f"cannot {verb} a value of type {t}", inst)

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


__all__ = ["InstructionTypeChecks"]
