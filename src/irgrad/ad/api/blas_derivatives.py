"""Derivatives of BLAS and LAPACK calls, synthesized from the rule table.

A derivative request (:class:`FnConfig`) for a declared BLAS/LAPACK function
(:func:`irgrad.analysis.blas.blas_function`) is answered here, through the context's
``known`` hook, with functions of irgrad's usual signatures
(:mod:`irgrad.ad.core.signatures`), so every caller -- a call inside a function being
differentiated at any depth, in a loop, in split mode, or the user's own ``__enzyme_*``
call -- uses them like any other derivative:

* forward (``fwddiffe_<f>``): the rule's tangent (:mod:`irgrad.ad.rules.blas`) emitted
  before or after the primal call, once per lane in vector mode;
* augmented primal (``augmented_<f>``): copies to the tape the arrays the reverse pass
  reads (``rule.needs``) -- only those that may be overwritten: an input the routine itself
  writes, or any array the caller did not declare kept (``NOT_OVERWRITTEN_KEY``, which
  the caller fills from its own memory analysis) -- and the values Fortran and numba pass
  by reference; then the primal call;
* reverse (``reverse_<f>``): the rule's adjoints with the primal values from the tape or
  the arguments; the adjoints of by-value scalars are returned, those of by-reference
  scalars added into their shadows; the tape and copies are freed;
* combined: the augmented primal, then the reverse.

A workspace query (Fortran LAPACK's ``lwork = -1``) keeps nothing and has no derivative
work; a workspace's shadow is zeroed where the call writes it (it holds no derivative).

The activities of the request decide the work: an argument passed ``CONST`` has no
shadow, so the rule emits nothing for it. numba's helpers take the element type as a
``kind`` argument: their derivatives switch on it (``d``/``s``; anything else aborts with
a message).
"""

from __future__ import annotations

from dataclasses import replace

from irgrad import ir
from irgrad.ad.api.blas_calls import (
    ELEMENTS,
    BlasCall,
    byte_count,
    combined_from_pair,
    derivative_params,
    does_work,
    entry_slot,
    extent,
    for_elements,
    free_buffer,
    join_elements,
    load_values,
    malloc_buffer,
    new_function,
    not_overwritten,
    primal_call,
    raw_type,
    unless_query,
    zero_workspace,
)
from irgrad.ad.api.blas_forward import forward_derivative
from irgrad.ad.api.blas_ilp64 import check_lp64
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.signatures import augmented_signature, gradient_signature
from irgrad.ad.rules import BLAS_RULES, BlasOperands, BlasRule
from irgrad.analysis.blas import ARRAYS, FLAGS, INTS, SCALARS, BlasFunction, blas_function
from irgrad.ir.builder import IRBuilder


def synthesize_blas(ctx: DerivativeContext, config: FnConfig) -> ir.Function | None:
    """The derivative ``config`` asks for, when its function is a known BLAS routine
    with a rule (None otherwise)."""
    fn = config.function
    bf = blas_function(fn.name)
    if bf is None or not fn.is_declaration or bf.routine.name not in BLAS_RULES:
        return None
    rule = BLAS_RULES[bf.routine.name]
    if len(fn.args) < len(bf.params):
        return None  # not the routine's signature: leave it to the usual error
    check_lp64(fn, bf)
    if config.mode is DerivativeMode.FORWARD:
        return forward_derivative(ctx, config, bf, rule)
    aug, rev = _split_pair(ctx, config, bf, rule)
    if config.mode is DerivativeMode.REVERSE_PRIMAL:
        return aug
    if config.mode is DerivativeMode.REVERSE_GRADIENT:
        return rev
    return combined_from_pair(ctx, config, aug, rev)



# -- reverse mode ------------------------------------------------------------------------------
def _markers(c: BlasCall) -> dict[str, ir.Value | None]:
    """Reverse mode: which operands carry derivatives (arrays: their shadow; scalars: a
    marker, active when passed ``enzyme_out`` by value or with a shadow by reference)."""
    d: dict[str, ir.Value | None] = {}
    for role in ARRAYS:
        sh = c.shadows(role)
        if sh:
            d[role] = sh[0]
    for role in SCALARS:
        k = c.bf.index(role)
        if k is None:
            continue
        dt = c.config.arg_types[k]
        if dt is DiffeType.OUT or (c.by_ref(role) and c.shadows(role)):
            d[role] = c.p.primals[k]
    return d


def _needed_copies(c: BlasCall, rule: BlasRule) -> list[tuple[str, str]]:
    """The arrays the reverse pass reads that may be overwritten before it runs."""
    kept = not_overwritten(c.config)
    out: list[tuple[str, str]] = []
    for role, when in rule.needs(BlasOperands({}, _markers(c))):
        k = c.bf.index(role)
        assert k is not None
        written_by_call = when == "in" and role in c.bf.routine.writes
        if written_by_call or k not in kept:
            out.append((role, when))
    return out


def _saved_values(c: BlasCall) -> list[str]:
    """By-reference sizes, flags and scalars whose memory the caller may change."""
    kept = not_overwritten(c.config)
    return [role for k, role in enumerate(c.bf.params)
            if role in (*INTS, *FLAGS, *SCALARS) and c.by_ref(role) and k not in kept]


def _tape_slot(b: IRBuilder, tape: ir.Value, k: int) -> ir.Value:
    return b.gep(ir.i64, tape, [ir.ConstantInt(ir.i64, k)])


def _split_pair(ctx: DerivativeContext, config: FnConfig, bf: BlasFunction,
                rule: BlasRule) -> tuple[ir.Function, ir.Function]:
    aug_cfg = replace(config, mode=DerivativeMode.REVERSE_PRIMAL)
    rev_cfg = replace(config, mode=DerivativeMode.REVERSE_GRADIENT)
    aug = new_function(ctx, "augmented", config, augmented_signature(aug_cfg))
    ctx.register(aug_cfg, aug)
    rev = new_function(ctx, "reverse", config, gradient_signature(rev_cfg))
    ctx.register(rev_cfg, rev)
    orig_ret = config.function.return_type
    has_dret = config.return_type is DiffeType.OUT and not orig_ret.is_void
    pa = derivative_params(aug, config, lanes=1, dret=False, tape=False)
    pr = derivative_params(rev, config, lanes=1, dret=has_dret, tape=True)
    ba, br = IRBuilder(aug.blocks[0]), IRBuilder(rev.blocks[0])
    res_slot = None if orig_ret.is_void else entry_slot(ba, aug, orig_ret)
    tape_slot = entry_slot(ba, aug, ir.ptr)
    outs = [k for k, dt in enumerate(config.arg_types) if dt is DiffeType.OUT]
    adj_slots = {k: entry_slot(br, rev, config.function.args[k].type) for k in outs}
    for slot_k, slot in adj_slots.items():
        br.store(ir.null_value(config.function.args[slot_k].type), slot)
    kind_a = pa.primals[0] if bf.element is None else None
    kind_r = pr.primals[0] if bf.element is None else None
    paths_a = for_elements(ba, bf, kind_a)
    paths_r = for_elements(br, bf, kind_r)
    for (el_name, eba), (_, ebr) in zip(paths_a, paths_r, strict=True):
        el = ELEMENTS[el_name]
        ca = BlasCall(bf, config, el, pa)
        load_values(eba, ca, {})
        copies = _needed_copies(ca, rule)
        values = _saved_values(ca)
        _augmented_body(eba, ca, copies, values, res_slot, tape_slot)
        cr = BlasCall(bf, config, el, pr)
        _reverse_body(ebr, cr, rule, copies, values, adj_slots)
    b = join_elements(aug, paths_a)
    tape = b.load(ir.ptr, tape_slot)
    if orig_ret.is_void:
        b.ret(tape)
    else:
        assert res_slot is not None
        agg: ir.Value = ir.UndefValue(aug.function_type.return_type)
        agg = b.insert_value(agg, tape, [0])
        agg = b.insert_value(agg, b.load(orig_ret, res_slot), [1])
        b.ret(agg)
    b = join_elements(rev, paths_r)
    if not outs:
        b.ret_void()
    else:
        ret_ty = rev.function_type.return_type
        out: ir.Value = ir.UndefValue(ret_ty)
        for j, k in enumerate(outs):
            out = b.insert_value(out, b.load(config.function.args[k].type, adj_slots[k]), [j])
        b.ret(out)
    return aug, rev


def _augmented_body(b: IRBuilder, c: BlasCall, copies: list[tuple[str, str]],
                    values: list[str], res_slot: ir.Value | None,
                    tape_slot: ir.Value) -> None:
    e = c.emitter(b)
    count = len(copies) + len(values)
    tape: ir.Value = ir.ConstantPointerNull()
    if count:
        tape = malloc_buffer(b, ir.ConstantInt(ir.i64, 8 * count))

    live = does_work(e, c)

    def copy(k: int, role: str) -> None:
        arr = c.arg(role)
        assert arr is not None
        count = extent(e, c, role)
        if live is not None:  # a workspace query: nothing to keep
            count = b.select(live, count, e.i64(0))
        size = b.mul(count, e.i64(4)) if role == "ipiv" else byte_count(e, count)
        buf = malloc_buffer(b, size)
        b.memcpy(buf, arr, size)
        b.store(buf, _tape_slot(b, tape, k))
    for k, (role, when) in enumerate(copies):
        if when == "in":
            copy(k, role)
    for j, role in enumerate(values):  # as passed, before the call
        a = c.arg(role)
        assert a is not None
        b.store(b.load(raw_type(c, role), a), _tape_slot(b, tape, len(copies) + j))
    result = primal_call(b, c)
    if res_slot is not None:
        b.store(result, res_slot)
    for k, (role, when) in enumerate(copies):
        if when == "out":
            copy(k, role)
    b.store(tape, tape_slot)


def _reverse_body(b: IRBuilder, c: BlasCall, rule: BlasRule, copies: list[tuple[str, str]],
                  values: list[str], adj_slots: dict[int, ir.Value]) -> None:
    tape = c.p.tape
    assert tape is not None
    saved = {role: b.load(raw_type(c, role), _tape_slot(b, tape, len(copies) + j))
             for j, role in enumerate(values)}
    load_values(b, c, saved)
    bufs: list[ir.Value] = []
    for role in ARRAYS:
        a = c.arg(role)
        if a is not None:
            c.v[role] = a
    for role, when in rule.needs(BlasOperands({}, _markers(c))):  # as passed: not copied
        c.v[f"{role}_{when}"] = c.v[role]
    for k, (role, when) in enumerate(copies):
        buf = b.load(ir.ptr, _tape_slot(b, tape, k))
        c.v[f"{role}_{when}"] = buf
        bufs.append(buf)
    for role in ARRAYS:  # v[role]: its contents after the call when the rule needs them
        for when in ("in", "out"):
            if f"{role}_{when}" in c.v:
                c.v[role] = c.v[f"{role}_{when}"]
    e = c.emitter(b)
    d = _markers(c)
    dret = c.p.dret
    result_sh = c.shadows("result")
    if result_sh:  # numba's dot: the result's adjoint is in its shadow
        dret = b.load(c.el, result_sh[0])
        b.store(e.fp(0.0), result_sh[0])
    o = BlasOperands(dict(c.v), d, dret=dret)
    unless_query(e, c, o, rule.reverse)
    zero_workspace(e, c, c.shadows)
    for role, adj in o.adjoints.items():
        k = c.bf.index(role)
        assert k is not None
        if k in adj_slots:
            slot = adj_slots[k]
            b.store(b.fadd(b.load(adj.type, slot), adj), slot)
        elif c.shadows(role):
            sh = c.shadows(role)[0]
            b.store(b.fadd(b.load(c.el, sh), adj), sh)
    for buf in [*o.temps, *bufs]:
        free_buffer(b, buf)
    if (copies or values) and c.config.free_memory:
        free_buffer(b, tape)


__all__ = ["synthesize_blas"]
