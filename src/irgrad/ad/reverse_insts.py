"""Reverse handlers for value instructions: rule-table arithmetic, casts, select and the
aggregate/vector instructions (extract/insertvalue, extract/insertelement, shufflevector).

Rules come from :mod:`irgrad.ad.rules`; ``operand_i``'s adjoint gets ``DRET * partial_i``
(the rule's :meth:`~irgrad.ad.rules.Rule.adjoint` expression), emitted by :func:`emit_rule_expr`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.reverse_activity import has_float
from irgrad.ad.rules import Rule, lookup_instruction
from irgrad.ad.rules import expr as E
from irgrad.ir.builder import IRBuilder, constant_of

if TYPE_CHECKING:
    from irgrad.ad.gradient_utils import GradientUtils

_FCMP = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}


def type_suffix(t: ir.Type) -> str:
    """The overload suffix of an intrinsic name: ``f64``, ``f32``, ``v4f64``..."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{type_suffix(t.element)}"
    if isinstance(t, ir.FloatType):
        return {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64",
                "x86_fp80": "f80", "fp128": "f128", "ppc_fp128": "ppcf128"}[t.kind]
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return str(t)


def emit_rule_expr(b: IRBuilder, e: E.Expr, env: dict[str, Callable[[], ir.Value]],
                   ty: ir.Type) -> ir.Value:
    """Emit expression ``e`` (symbols resolved lazily through ``env``) of float type ``ty``."""
    if isinstance(e, E.Sym):
        return env[e.name]()
    if isinstance(e, E.Const):
        return constant_of(ty, e.value)
    if isinstance(e, E.Neg):
        return b.fneg(emit_rule_expr(b, e.operand, env, ty))
    if isinstance(e, E.BinOp):
        lhs = emit_rule_expr(b, e.lhs, env, ty)
        rhs = emit_rule_expr(b, e.rhs, env, ty)
        op = {"+": "fadd", "-": "fsub", "*": "fmul", "/": "fdiv"}[e.op]
        return b.binop(op, lhs, rhs)
    if isinstance(e, E.Select):
        c = emit_rule_expr(b, e.cond, env, ty)
        return b.select(c, emit_rule_expr(b, e.if_true, env, ty),
                        emit_rule_expr(b, e.if_false, env, ty))
    if isinstance(e, E.Cmp):
        lhs = emit_rule_expr(b, e.lhs, env, ty)
        rhs = emit_rule_expr(b, e.rhs, env, ty)
        return b.fcmp(_FCMP[e.pred], lhs, rhs)
    if isinstance(e, E.Call):
        args = [emit_rule_expr(b, a, env, ty) for a in e.args]
        return _emit_call(b, e.fn, args, ty)
    raise TypeError(f"cannot emit {e!r}")


def _emit_call(b: IRBuilder, fn: str, args: list[ir.Value], ty: ir.Type) -> ir.Value:
    spec = E.FUNCTIONS[fn]
    if spec.emit.startswith("llvm."):
        return b.call_intrinsic(f"{spec.emit}.{type_suffix(ty)}", ty, args)
    if fn == "sign":
        x = args[0]
        pos = b.fcmp("ogt", x, constant_of(ty, 0.0))
        neg = b.fcmp("olt", x, constant_of(ty, 0.0))
        inner = b.select(neg, constant_of(ty, -1.0), constant_of(ty, 0.0))
        return b.select(pos, constant_of(ty, 1.0), inner)
    if fn == "to_fp":
        x = args[0]
        return x if x.type == ty else b.sitofp(x, ty)
    if fn == "frexp_exp":
        et = ir.i32 if not isinstance(ty, ir.VectorType) else ir.VectorType(ty.count, ir.i32)
        r = b.call_intrinsic(f"llvm.frexp.{type_suffix(ty)}.{type_suffix(et)}",
                             ir.StructType([ty, et]), args)
        return b.sitofp(b.extract_value(r, [1]), ty)
    if spec.emit.startswith("runtime:"):
        name = spec.emit.split(":", 1)[1]
        module = b.module
        assert module is not None
        callee = module.get_or_insert_function(name, ir.FunctionType(ty, [a.type for a in args]))
        return b.call(callee, args)
    raise TypeError(f"no emitter for {fn}")


def apply_rule(gu: GradientUtils, inst: ir.Instruction, rule: Rule, operands: list[ir.Value],
               d: ir.Value, b: IRBuilder) -> None:
    """``diffe(operand_i) += d * partial_i`` for every varied float operand."""
    bb = inst.parent
    assert bb is not None
    env: dict[str, Callable[[], ir.Value]] = {"DRET": lambda: d}
    for k, sym in enumerate(("X", "Y", "Z")):
        if k < len(operands):
            env[sym] = (lambda op=operands[k]: gu.lookup_primal(op, bb))

    def result() -> ir.Value:
        r = gu.lookup_primal(inst, bb)
        if rule.result_kind == "struct" and rule.result_index is not None:
            return b.extract_value(r, [rule.result_index])
        return r

    env["RESULT"] = result
    for i in rule.active_operands:
        if i >= len(operands):
            continue
        op = operands[i]
        if not gu.is_varied(op):
            continue
        adj = rule.adjoint(i)
        if E.is_zero(adj):
            continue
        gu.add_to_diffe(op, emit_rule_expr(b, adj, env, d.type), b)


def reverse_value_instruction(gu: GradientUtils, inst: ir.Instruction, b: IRBuilder) -> None:
    """Reverse of a varied non-memory, non-call instruction."""
    bb = inst.parent
    assert bb is not None
    op = inst.opcode
    if op in ("fpext", "fptrunc"):
        d = gu.diffe(inst, b)
        src = inst.operands[0]
        gu.add_to_diffe(src, b.cast("fptrunc" if op == "fpext" else "fpext", d, src.type), b)
        return
    if op in ("bitcast", "freeze"):
        src = inst.operands[0]
        d = gu.diffe(inst, b)
        if has_float(src.type):
            gu.add_to_diffe(src, d if src.type == d.type else b.bitcast(d, src.type), b)
        return
    rule = lookup_instruction(op)
    if rule is not None and rule.kind == "instruction":
        d = gu.diffe(inst, b)
        apply_rule(gu, inst, rule, list(inst.operands), d, b)
        return
    if op == "select":
        assert isinstance(inst, ir.SelectInst)
        d = gu.diffe(inst, b)
        c = gu.lookup_primal(inst.condition, bb)
        zero = _zero_like(d)
        gu.add_to_diffe(inst.true_value, b.select(c, d, zero), b)
        gu.add_to_diffe(inst.false_value, b.select(c, zero, d), b)
        return
    if op == "extractvalue":
        assert isinstance(inst, ir.ExtractValueInst)
        d = gu.diffe(inst, b)
        gu.add_to_diffe_elem(inst.aggregate, list(inst.indices), d, b)
        return
    if op == "insertvalue":
        assert isinstance(inst, ir.InsertValueInst)
        d = gu.diffe(inst, b)
        if gu.is_varied(inst.value) and has_float(inst.value.type):
            gu.add_to_diffe(inst.value, b.extract_value(d, list(inst.indices)), b)
        zeroed = b.insert_value(d, _zero_like(inst.value), list(inst.indices))
        gu.add_to_diffe(inst.aggregate, zeroed, b)
        return
    if op == "extractelement":
        assert isinstance(inst, ir.ExtractElementInst)
        d = gu.diffe(inst, b)
        idx = gu.lookup_primal(inst.index, bb)
        vec = inst.vector
        gu.add_to_diffe(vec, b.insert_element(_zero_like(vec), d, idx), b)
        return
    if op == "insertelement":
        assert isinstance(inst, ir.InsertElementInst)
        d = gu.diffe(inst, b)
        idx = gu.lookup_primal(inst.index, bb)
        gu.add_to_diffe(inst.element, b.extract_element(d, idx), b)
        gu.add_to_diffe(inst.vector, b.insert_element(d, _zero_like(inst.element), idx), b)
        return
    if op == "shufflevector":
        _reverse_shuffle(gu, inst, b)
        return
    raise gu.error(f"cannot differentiate instruction `{op}`", inst)


def _zero_like(v: ir.Value) -> ir.Value:
    from irgrad.ad.gradient_utils import zero_of

    return zero_of(v.type)


def _shuffle_mask(mask: ir.Value) -> list[int]:
    if isinstance(mask, ir.ConstantVector):
        out = []
        for e in mask.operands:
            out.append(e.value if isinstance(e, ir.ConstantInt) else -1)  # type: ignore[attr-defined]
        if getattr(mask, "splat", False):
            return out * mask.type.count  # type: ignore[attr-defined]
        return out
    if isinstance(mask, ir.ConstantAggregateZero):
        return [0] * mask.type.count  # type: ignore[attr-defined]
    return [-1] * mask.type.count  # type: ignore[attr-defined]


def _reverse_shuffle(gu: GradientUtils, inst: ir.Instruction, b: IRBuilder) -> None:
    v1, v2, mask = inst.operands
    d = gu.diffe(inst, b)
    n1 = v1.type.count  # type: ignore[attr-defined]
    acc1: ir.Value = _zero_like(v1)
    acc2: ir.Value = _zero_like(v2)
    for j, m in enumerate(_shuffle_mask(mask)):
        if m < 0:
            continue
        dj = b.extract_element(d, ir.ConstantInt(ir.i64, j))
        src, acc, lane = (v1, acc1, m) if m < n1 else (v2, acc2, m - n1)
        if not gu.is_varied(src):
            continue
        lane_c = ir.ConstantInt(ir.i64, lane)
        cur = b.extract_element(acc, lane_c)
        new = b.insert_element(acc, b.fadd(cur, dj), lane_c)
        if src is v1 and m < n1:
            acc1 = new
        else:
            acc2 = new
    gu.add_to_diffe(v1, acc1, b)
    if v2 is not v1:
        gu.add_to_diffe(v2, acc2, b)
    else:
        gu.add_to_diffe(v1, acc2, b)
