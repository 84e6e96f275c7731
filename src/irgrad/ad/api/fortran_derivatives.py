"""Derivatives of flang's runtime routines, synthesized from their rules
(:mod:`irgrad.ad.rules.fortran`) the way BLAS's are (:mod:`irgrad.ad.api.blas_derivatives`):
a request (:class:`FnConfig`) for a declared routine of
:func:`irgrad.analysis.fortran_runtime.fortran_routine` is answered, through the context's
library hook, with functions of irgrad's usual signatures:

* forward (``fwddiffe_<f>``): the rule's ``before``, the primal call, ``shadow`` and the
  tangent, once per lane in vector forward mode;
* augmented primal (``augmented_<f>``): ``before``, the primal call, ``shadow``,
  ``augment``, then the tape: one block holding what ``rule.saves`` lists (views of the
  shadow arrays as they are after the call, contiguous copies of the primal arrays the
  reverse pass reads, pointers), each entry a descriptor-sized slot;
* reverse (``reverse_<f>``): the rule's adjoints from the tape; the copies and the tape
  are freed;
* combined: the augmented primal, then the reverse.

Called from a derivative irgrad made, the pair takes that derivative's tape state as a
last parameter (``TAPE_ON_CALLER_STACK_KEY``, :mod:`irgrad.ad.reverse.augmented`): the tape
block goes onto the caller's byte stack as one pointer, and a shadow block the primal
call released (a ``deallocate``, a reallocating assignment) is listed for release when
the outermost reverse pass is over (:mod:`irgrad.ad.core.deferred_frees`) -- the reverse
of the code that ran before may still add into it. Without a state (a tape the user
holds) such a block is kept.
"""

from __future__ import annotations

from dataclasses import replace

from irgrad import ir
from irgrad.ad.api.blas_calls import (
    DerivativeParams,
    combined_from_pair,
    derivative_params,
    new_function,
)
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.deferred_frees import FREED, defer_free_function
from irgrad.ad.core.signatures import (
    augmented_signature,
    forward_signature,
    gradient_signature,
)
from irgrad.ad.core.tape_runtime import pop_frame, tape_push_function
from irgrad.ad.reverse.tape import on_caller_stack
from irgrad.ad.rules import FORTRAN_RULES, FortranOperands, FortranRule
from irgrad.ad.rules.fortran_emit import DescriptorEmitter
from irgrad.ad.rules.fortran_helpers import c64, rank, release_copy_function
from irgrad.analysis.fortran_runtime import (
    ADDENDUM_BYTES,
    DESCRIPTOR_ROLES,
    DIM_BYTES,
    HEADER_BYTES,
    MAX_DESCRIPTOR_BYTES,
    FortranRoutine,
    fortran_routine,
)
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder


def synthesize_fortran(ctx: DerivativeContext, config: FnConfig) -> ir.Function | None:
    """The derivative ``config`` asks for, when its function is a runtime routine with a
    rule (None otherwise)."""
    fn = config.function
    routine = fortran_routine(fn.name)
    if routine is None or not fn.is_declaration:
        return None
    roles = routine.params[:len(fn.args)]
    needed = [r for r in routine.params if r in DESCRIPTOR_ROLES or r in ("source", "line")]
    if any(r not in roles for r in needed) or len(fn.args) > len(routine.params):
        return None  # not the routine's signature: leave it to the usual error
    rule = FORTRAN_RULES[routine.family]
    if config.mode is DerivativeMode.FORWARD:
        return _forward(ctx, config, routine, rule)
    if config.width != 1:
        raise DifferentiationError(f"{fn.name}: vector reverse mode (width "
                                   f"{config.width}) of flang's runtime is not supported")
    shared = on_caller_stack(config)
    aug, rev = _split_pair(ctx, config, routine, rule, shared)
    if config.mode is DerivativeMode.REVERSE_PRIMAL:
        return aug
    if config.mode is DerivativeMode.REVERSE_GRADIENT:
        return rev
    return combined_from_pair(ctx, config, aug, rev)


def _operands(fn: ir.Function, routine: FortranRoutine, p: DerivativeParams,
              lane: int) -> FortranOperands:
    roles = routine.params[:len(fn.args)]
    v = dict(zip(roles, p.primals, strict=True))
    d: dict[str, ir.Value | None] = {}
    for role, sh in zip(roles, p.shadows, strict=True):
        if role in DESCRIPTOR_ROLES and sh:
            d[role] = sh[lane]
    return FortranOperands(fn, roles, v, d)


def _emitter(b: IRBuilder, f: ir.Function, routine: FortranRoutine,
             o: FortranOperands) -> DescriptorEmitter:
    null = ir.ConstantPointerNull(ir.ptr)
    return DescriptorEmitter(b, f, routine.element, o.v.get("source", null),
                             o.v.get("line", ir.ConstantInt(ir.i32, 0)))


def _primal_call(b: IRBuilder, config: FnConfig, p: DerivativeParams) -> ir.Value | None:
    res = b.call(config.function, p.primals)
    return None if config.function.return_type.is_void else res


# -- forward mode ----------------------------------------------------------------------------
def _forward(ctx: DerivativeContext, config: FnConfig, routine: FortranRoutine,
             rule: FortranRule) -> ir.Function:
    ft = forward_signature(config)
    f = new_function(ctx, "fwddiffe", config, ft)
    ctx.register(config, f)
    p = derivative_params(f, config, lanes=config.width, dret=False, tape=False)
    b = IRBuilder(f.blocks[0])
    lanes = [_operands(config.function, routine, p, k) for k in range(config.width)]
    for o in lanes:
        o.release = lambda e, view: e.release(view)
        if rule.before is not None:
            rule.before(_emitter(b, f, routine, o), o)
    result = _primal_call(b, config, p)
    tangents: list[ir.Value | None] = []
    for o in lanes:
        o.result = result
        e = _emitter(b, f, routine, o)
        if rule.shadow is not None:
            rule.shadow(e, o)
        tangents.append(rule.forward(e, o))
        e.free_temps()
    ret_ty = ft.return_type
    orig_ret = config.function.return_type
    if ret_ty.is_void:
        b.ret_void()
        return f
    if config.return_type is DiffeType.CONST:
        assert result is not None
        b.ret(result)
        return f
    lane_values = [t if t is not None else ir.null_value(orig_ret) for t in tangents]
    tangent: ir.Value = lane_values[0]
    if config.width > 1:
        agg: ir.Value = ir.UndefValue(ir.ArrayType(config.width, orig_ret))
        for k, t in enumerate(lane_values):
            agg = b.insert_value(agg, t, [k])
        tangent = agg
    if isinstance(ret_ty, ir.StructType):
        assert result is not None
        out: ir.Value = b.insert_value(ir.UndefValue(ret_ty), result, [0])
        b.ret(b.insert_value(out, tangent, [1]))
    else:
        b.ret(tangent)
    return f


# -- reverse mode ----------------------------------------------------------------------------
def _slot_bytes(b: IRBuilder, rule: FortranRule, o: FortranOperands) -> ir.Value:
    """The bytes of one tape slot: a descriptor of the rule's largest rank."""
    if isinstance(rule.slot_rank, int):
        return c64(HEADER_BYTES + DIM_BYTES * rule.slot_rank + ADDENDUM_BYTES)
    r = rank(b, o.v[rule.slot_rank])
    return b.add(b.mul(r, c64(DIM_BYTES)), c64(HEADER_BYTES + ADDENDUM_BYTES))


def _slot(b: IRBuilder, tape: ir.Value, size: ir.Value, k: int) -> ir.Value:
    """Slot ``k`` of a tape block (its first 8 bytes hold the slot size)."""
    return b.gep(ir.i8, tape, [b.add(c64(8), b.mul(size, c64(k)))])


def _defer_release(state: ir.Value | None) -> object:
    def release(e: DescriptorEmitter, view: ir.Value) -> None:
        if state is None:
            return  # a tape the user holds: the shadow block is kept
        keep = e.malloc(c64(MAX_DESCRIPTOR_BYTES))
        e.b.memcpy(keep, view, e.size(view))
        e.b.call(defer_free_function(e.module), [
            state, keep, release_copy_function(e.module), ir.ConstantInt(ir.i1, 0),
            ir.ConstantPointerNull(ir.ptr), ir.ConstantInt(ir.i64, FREED)])
    return release


def _split_pair(ctx: DerivativeContext, config: FnConfig, routine: FortranRoutine,
                rule: FortranRule, shared: bool) -> tuple[ir.Function, ir.Function]:
    aug_cfg = replace(config, mode=DerivativeMode.REVERSE_PRIMAL)
    rev_cfg = replace(config, mode=DerivativeMode.REVERSE_GRADIENT)
    aft = augmented_signature(aug_cfg)
    if shared:
        aft = ir.FunctionType(aft.return_type, [*aft.params, ir.ptr])
    aug = new_function(ctx, "augmented", config, aft)
    ctx.register(aug_cfg, aug)
    rev = new_function(ctx, "reverse", config, gradient_signature(rev_cfg))
    ctx.register(rev_cfg, rev)
    orig_ret = config.function.return_type
    has_dret = config.return_type is DiffeType.OUT and not orig_ret.is_void
    pa = derivative_params(aug, config, lanes=1, dret=False, tape=shared)
    pr = derivative_params(rev, config, lanes=1, dret=has_dret, tape=True)
    state = pa.tape if shared else None
    # -- the augmented primal
    ba = IRBuilder(aug.blocks[0])
    oa = _operands(config.function, routine, pa, 0)
    oa.release = _defer_release(state)  # type: ignore[assignment]
    ea = _emitter(ba, aug, routine, oa)
    if rule.before is not None:
        rule.before(ea, oa)
    oa.result = _primal_call(ba, config, pa)
    for step in (rule.shadow, rule.augment):
        if step is not None:
            step(ea, oa)
    saves = rule.saves(oa)
    tape: ir.Value = ir.ConstantPointerNull(ir.ptr)
    if saves:
        tape = _fill_tape(ea, rule, oa, saves)
        if shared:
            assert state is not None
            frame = ba.call(tape_push_function(ctx.module), [state, c64(8)])
            ba.store(tape, frame)
            tape = ir.ConstantPointerNull(ir.ptr)
    if orig_ret.is_void:
        ba.ret(tape)
    else:
        assert oa.result is not None
        agg: ir.Value = ba.insert_value(ir.UndefValue(aft.return_type), tape, [0])
        ba.ret(ba.insert_value(agg, oa.result, [1]))
    # -- the reverse
    br = IRBuilder(rev.blocks[0])
    orr = _operands(config.function, routine, pr, 0)
    er = _emitter(br, rev, routine, orr)
    if saves:
        assert pr.tape is not None
        tape_r = pr.tape
        if shared:
            _, frame = pop_frame(br, pr.tape, 8)
            tape_r = br.load(ir.ptr, frame)
        copies = _read_tape(er, orr, saves, tape_r)
        orr.dret = pr.dret
        rule.reverse(er, orr)
        for c in copies:
            er.free(er.base(c))
        if config.free_memory:
            er.free(tape_r)
    outs = [k for k, dt in enumerate(config.arg_types) if dt is DiffeType.OUT]
    if outs:  # (no by-value floating-point arguments: their adjoints are zero)
        ret_ty = rev.function_type.return_type
        br.ret(ir.null_value(ret_ty))
    else:
        br.ret_void()
    return aug, rev


def _fill_tape(e: DescriptorEmitter, rule: FortranRule, o: FortranOperands,
               saves: list[str]) -> ir.Value:
    b = e.b
    size = _slot_bytes(b, rule, o)
    tape = e.malloc(b.add(c64(8), b.mul(size, c64(len(saves)))))
    b.store(size, tape)
    for k, entry in enumerate(saves):
        kind, name = entry.split(":")
        slot = _slot(b, tape, size, k)
        if kind == "view":
            shadow = o.d[name]
            assert shadow is not None
            e.view_into(slot, o.v[name], e.shadow_base(o.v[name], shadow))
        elif kind == "copy":  # a contiguous copy (an absent optional argument: a null base)
            var = o.v[name]
            b.store(ir.ConstantPointerNull(ir.ptr), slot)
            _, join = e.if_then(b.icmp("ne", var, ir.ConstantPointerNull(ir.ptr)), "copy")
            e.copy(slot, var)
            e.join(join)
        else:
            b.store(o.saved[name], slot)
    return tape


def _read_tape(e: DescriptorEmitter, o: FortranOperands, saves: list[str],
               tape: ir.Value) -> list[ir.Value]:
    """Fill ``o`` from the tape; the copies (to free after the reverse)."""
    b = e.b
    size = b.load(ir.i64, tape)
    copies: list[ir.Value] = []
    for k, entry in enumerate(saves):
        kind, name = entry.split(":")
        slot = _slot(b, tape, size, k)
        if kind == "view":
            o.d[name] = slot
        elif kind == "copy":
            present = b.icmp("ne", b.load(ir.ptr, slot), ir.ConstantPointerNull(ir.ptr))
            o.copies[name] = b.select(present, slot, ir.ConstantPointerNull(ir.ptr))
            copies.append(slot)
        else:
            o.saved[name] = b.load(ir.ptr, slot)
    return copies



__all__ = ["synthesize_fortran"]
