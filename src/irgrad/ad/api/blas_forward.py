"""Forward-mode derivatives of BLAS/LAPACK calls (``fwddiffe_<f>``): the rule's tangent
(:mod:`irgrad.ad.rules.blas`) emitted before or after the primal call, once per lane in
vector forward mode; a routine's returned tangent is returned (an array of lanes in
vector mode), numba's through the shadow of its result pointer."""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.blas_calls import (
    ELEMENTS,
    BlasCall,
    derivative_params,
    entry_slot,
    for_elements,
    free_buffer,
    join_elements,
    load_values,
    new_function,
    primal_call,
    unless_query,
    zero_workspace,
)
from irgrad.ad.core.config import DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.signatures import forward_signature
from irgrad.ad.rules import BlasOperands, BlasRule
from irgrad.analysis.blas import ARRAYS, SCALARS, BlasFunction
from irgrad.ir.builder import IRBuilder


def forward_derivative(ctx: DerivativeContext, config: FnConfig, bf: BlasFunction,
             rule: BlasRule) -> ir.Function:
    ft = forward_signature(config)
    f = new_function(ctx, "fwddiffe", config, ft)
    ctx.register(config, f)
    width = config.width
    p = derivative_params(f, config, lanes=width, dret=False, tape=False)
    b = IRBuilder(f.blocks[0])
    orig_ret = config.function.return_type
    res_slot = None if orig_ret.is_void else entry_slot(b, f, orig_ret)
    tan_slots: list[ir.Value] = []
    returns_tangent = bf.routine.returns and "result" not in bf.params and \
        config.return_type is not DiffeType.CONST
    kind = p.primals[0] if bf.element is None else None
    paths = for_elements(b, bf, kind)
    for el_name, eb in paths:
        c = BlasCall(bf, config, ELEMENTS[el_name], p)
        load_values(eb, c, {})
        for role in ARRAYS:
            a = c.arg(role)
            if a is not None:
                c.v[role] = a
        e = c.emitter(eb)
        if returns_tangent and not tan_slots:
            tan_slots = [entry_slot(eb, f, orig_ret) for _ in range(width)]
        result: ir.Value | None = None
        lanes = [_lane(eb, c, lane) for lane in range(width)]
        if rule.forward_pre is not None:
            for lane_d in lanes:
                pre = BlasOperands(dict(c.v), lane_d)
                unless_query(e, c, pre, rule.forward_pre)
                for buf in pre.temps:
                    free_buffer(eb, buf)
        if not rule.forward_before:
            result = primal_call(eb, c)
            out = c.arg("result")
            if bf.routine.returns:  # numba's helpers return it through a pointer
                c.v["result"] = result if out is None else eb.load(c.el, out)
        zero_workspace(e, c, c.shadows)
        for lane in range(width):
            o = BlasOperands(dict(c.v), lanes[lane])
            if bf.routine.query is not None:
                unless_query(e, c, o, rule.forward)
                t = None
            else:
                t = rule.forward(e, o)
            if "result" in bf.params and c.shadows("result"):
                eb.store(t if t is not None else e.fp(0.0), c.shadows("result")[lane])
            elif returns_tangent:
                eb.store(t if t is not None else e.fp(0.0), tan_slots[lane])
            for buf in o.temps:
                free_buffer(eb, buf)
        if rule.forward_before:
            result = primal_call(eb, c)
        if res_slot is not None:
            assert result is not None
            eb.store(result, res_slot)
    b = join_elements(f, paths)
    primal = b.load(orig_ret, res_slot) if res_slot is not None else None
    tangent: ir.Value | None = None
    if returns_tangent:
        lanes = [b.load(orig_ret, s) for s in tan_slots]
        if width == 1:
            tangent = lanes[0]
        else:
            agg: ir.Value = ir.UndefValue(ir.ArrayType(width, orig_ret))
            for k, t in enumerate(lanes):
                agg = b.insert_value(agg, t, [k])
            tangent = agg
    ret_ty = ft.return_type
    if ret_ty.is_void:
        b.ret_void()
    elif isinstance(ret_ty, ir.StructType):
        out: ir.Value = ir.UndefValue(ret_ty)
        out = b.insert_value(out, primal, [0])  # type: ignore[arg-type]
        out = b.insert_value(out, tangent if tangent is not None else ir.null_value(ret_ty.elements[1]), [1])
        b.ret(out)
    else:
        b.ret(tangent if tangent is not None and ret_ty == tangent.type else primal)  # type: ignore[arg-type]
    return f


def _lane(b: IRBuilder, c: BlasCall, lane: int) -> dict[str, ir.Value | None]:
    """Forward mode: the shadows (arrays) and tangents (scalars) of lane ``lane``."""
    d: dict[str, ir.Value | None] = {}
    for role in (*ARRAYS, *SCALARS):
        sh = c.shadows(role)
        if not sh:
            continue
        s = sh[lane]
        if role in SCALARS and c.by_ref(role):
            d[role] = b.load(c.el, s)
        else:
            d[role] = s
    return d


__all__ = ["forward_derivative"]
