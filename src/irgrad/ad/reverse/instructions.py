"""Reverse handlers for value instructions: rule-table arithmetic, casts, select and the
aggregate/vector instructions (extract/insertvalue, extract/insertelement, shufflevector).

Rules come from :mod:`irgrad.ad.rules`; ``operand_i``'s adjoint gets ``DRET * partial_i``
(the rule's :meth:`~irgrad.ad.rules.Rule.adjoint` expression), emitted by
:func:`irgrad.ad.emit.emit_expr`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.defined_lanes import shuffle_mask
from irgrad.ad.reverse.adjoints import adjoint_zero
from irgrad.ad.rules import Rule, lookup_instruction
from irgrad.ad.rules import expr as E
from irgrad.ad.rules.emit import constant_operands, emit_adjoint
from irgrad.ad.rules.sign_bits import flip_sign, sign_bit_operation
from irgrad.analysis.activity import has_float
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

def apply_rule(gu: GradientUtils, inst: ir.Instruction, rule: Rule, operands: list[ir.Value],
               d: ir.Value, b: IRBuilder) -> None:
    """``diffe(operand_i) += d * partial_i`` for every varied float operand."""
    bb = inst.parent
    assert bb is not None
    env: dict[str, ir.Value] = {"DRET": d}

    def bind(sym: str) -> None:
        if sym in env:
            return
        if sym == "RESULT":
            r = gu.lookup_primal(inst, bb)
            if rule.result_kind == "struct" and rule.result_index is not None:
                r = b.extract_value(r, [rule.result_index])
            env[sym] = r
        else:
            env[sym] = gu.lookup_primal(operands["XYZ".index(sym)], bb)

    constants = constant_operands(operands)
    for i in rule.active_operands:
        if i >= len(operands):
            continue
        op = operands[i]
        if not gu.is_varied(op):
            continue
        adj = rule.adjoint(i, constants)
        if E.is_zero(adj):
            continue
        for sym in sorted(adj.symbols()):
            bind(sym)
        gu.add_to_diffe(op, emit_adjoint(b, rule, i, env, d.type, constants), b)


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
        # a float's bits as an integer (or back): the adjoint follows the bits
        src = inst.operands[0]
        d = gu.diffe(inst, b)
        st = gu.adjoint_type(src)
        if st is not None and gu.is_varied(src):
            if _float_element(st) != _float_element(d.type):
                raise gu.error("bitcast between different floating-point types of an active "
                               "value", inst)
            gu.add_to_diffe(src, d if st == d.type else b.bitcast(d, st), b)
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
        zero = _zero_like(gu, d)
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
        zeroed = b.insert_value(d, _zero_like(gu, inst.value), list(inst.indices))
        gu.add_to_diffe(inst.aggregate, zeroed, b)
        return
    if op == "extractelement":
        assert isinstance(inst, ir.ExtractElementInst)
        d = gu.diffe(inst, b)
        idx = gu.lookup_primal(inst.index, bb)
        vec = inst.vector
        gu.add_to_diffe(vec, b.insert_element(_zero_like(gu, vec), d, idx), b)
        return
    if op == "insertelement":
        assert isinstance(inst, ir.InsertElementInst)
        d = gu.diffe(inst, b)
        idx = gu.lookup_primal(inst.index, bb)
        gu.add_to_diffe(inst.element, b.extract_element(d, idx), b)
        gu.add_to_diffe(inst.vector, b.insert_element(d, _zero_like(gu, inst.element), idx), b)
        return
    if op == "shufflevector":
        _reverse_shuffle(gu, inst, b)
        return
    sign = sign_bit_operation(inst)
    if sign is not None and gu.adjoint_type(inst) is not None:
        # fabs / fneg / -fabs written as a mask on the float's bits (rules/sign_bits.py)
        kind, k = sign
        x = inst.operands[k]
        d_bits = b.bitcast(gu.diffe(inst, b), inst.type)
        gu.add_to_diffe(x, flip_sign(b, kind, d_bits, gu.lookup_primal(x, bb)), b)
        return
    if not has_float(inst.type):
        raise gu.error("integer operation on an active floating-point value (its bits are "
                       "reinterpreted as an integer)", inst)
    raise gu.error(f"cannot differentiate instruction `{op}`", inst)


def _float_element(t: ir.Type) -> ir.Type:
    return t.element if isinstance(t, ir.VectorType) else t


def _zero_like(gu: GradientUtils, v: ir.Value) -> ir.Value:
    return adjoint_zero(gu.adjoint_type(v) or v.type)


def _reverse_shuffle(gu: GradientUtils, inst: ir.Instruction, b: IRBuilder) -> None:
    v1, v2, mask = inst.operands
    d = gu.diffe(inst, b)
    n1 = v1.type.count  # type: ignore[attr-defined]
    acc1: ir.Value = _zero_like(gu, v1)
    acc2: ir.Value = _zero_like(gu, v2)
    for j, m in enumerate(shuffle_mask(mask)):
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
