"""Derivatives of a fixed-point loop (:mod:`irgrad.ad.api.fixed_point`), taken at the
state the loop converged to rather than through its iterations.

The loop is ``z <- phi(z, x)`` until the step says stop. At a fixed point z* the
derivative of z* with respect to x solves ``dz = phi_z dz + phi_x dx``:

* reverse (augmented primal ``augmented_fixed_point.<step>``): the loop runs, then one
  snapshot is taken of the state it ended in: the states, the regions the user listed,
  and the globals the step writes, or reads while other code writes them. The tape is
  the iteration count followed by the snapshot;
* reverse (``reverse_fixed_point.<step>``): from ``delta = zbar`` (what the state's
  shadow holds), each adjoint iteration restores the snapshot and calls the combined
  derivative of one step, which turns the shadow into ``phi_z^T delta`` and adds
  ``phi_x^T delta`` into the other arguments' shadows (and returns it for active scalars,
  summed here). Since the adjoint is linear, the sum over the increments ``delta`` is the
  adjoint of the fixed point (Christianson's two-phase method). The loop stops on the
  squared norm of the increment over the listed states (relative to the first one), the
  user's control function, or the iteration limit. The states' shadows are then zeroed
  and the primal memory of the snapshot is put back as the reverse pass found it;
* forward (``fwddiffe_fixed_point.<step>``): the loop runs, the states' tangents start at
  0, and the tangent of one step is iterated at the snapshot until the squared norm of
  its change stops shrinking enough; then the snapshot is restored;
* combined: the augmented primal, then the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from irgrad import ir
from irgrad.ad.api.blas_calls import (
    SHADOWED,
    combined_from_pair,
    derivative_params,
    entry_slot,
    free_buffer,
    malloc_buffer,
    new_function,
)
from irgrad.ad.api.loop_constructs import counter_value, global_pieces, step_config
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.signatures import augmented_signature, forward_signature, gradient_signature
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder

_ENTRY = "__enzyme_fixed_point"
_GROWTH_GRACE = 5  # the norm may grow for this many iterations before the loop stops


@dataclass(frozen=True)
class FixedPointLoop:
    """The layout of a loop function's parameters: ``states`` (pointer, bytes) pairs,
    then ``regions`` (pointer, bytes) pairs, then reduction, max_iters and control, then
    the step's arguments after its counter. ``float_states[k]``: state k holds floats
    (else doubles)."""

    step: ir.Function
    states: int
    regions: int
    counter_by_reference: bool
    float_states: tuple[bool, ...]
    # the step the derivatives iterate, when it differs from the loop's (a loop marked from
    # inside: the same trip with the header's exit test always going on)
    adjoint_step: ir.Function | None = None

    @property
    def differentiated(self) -> ir.Function:
        return self.adjoint_step if self.adjoint_step is not None else self.step

    @property
    def first_argument(self) -> int:
        return 2 * (self.states + self.regions) + 3

    @property
    def reduction(self) -> int:
        return 2 * (self.states + self.regions)


def synthesize_fixed_point(spec: FixedPointLoop, ctx: DerivativeContext,
                           config: FnConfig) -> ir.Function:
    """The derivative of a fixed-point loop function that ``config`` asks for."""
    if config.width != 1:
        raise DifferentiationError(f"{_ENTRY}: vector mode (enzyme_width) is not supported "
                                   "for a fixed-point loop")
    if config.mode is DerivativeMode.FORWARD:
        return _forward(ctx, spec, config)
    aug, rev = _pair(ctx, spec, config)
    if config.mode is DerivativeMode.REVERSE_PRIMAL:
        return aug
    if config.mode is DerivativeMode.REVERSE_GRADIENT:
        return rev
    return combined_from_pair(ctx, config, aug, rev)


# -- what a snapshot holds ------------------------------------------------------------------
def _pieces(spec: FixedPointLoop, primals: list[ir.Value]) -> list[tuple[ir.Value, ir.Value]]:
    """(pointer, bytes) of everything a snapshot holds, in the function being built."""
    out = [(primals[2 * k], primals[2 * k + 1]) for k in range(spec.states + spec.regions)]
    return [*out, *global_pieces(spec.differentiated)]


def _total(b: IRBuilder, pieces: list[tuple[ir.Value, ir.Value]]) -> ir.Value:
    total: ir.Value = ir.ConstantInt(ir.i64, 0)
    for _, size in pieces:
        total = b.add(total, size)
    return total


def _copy(b: IRBuilder, pieces: list[tuple[ir.Value, ir.Value]], buf: ir.Value, *,
          save: bool) -> None:
    """Copy the pieces into ``buf`` one after another (``save``), or back out of it."""
    off: ir.Value = ir.ConstantInt(ir.i64, 0)
    for ptr, size in pieces:
        at = b.gep(ir.i8, buf, [off])
        if save:
            b.memcpy(at, ptr, size)
        else:
            b.memcpy(ptr, at, size)
        off = b.add(off, size)


# -- loops and norms ------------------------------------------------------------------------
def _for_each(b: IRBuilder, count: ir.Value, body: Callable[[IRBuilder, ir.Value], None]
              ) -> None:
    """``for (j = 0; j < count; j++) body(j)``; ``b`` ends after the loop."""
    fn = b.function
    assert fn is not None
    head = b.insert_block
    assert head is not None
    loop = fn.append_basic_block("fp.elements")
    after = fn.append_basic_block("fp.elements.done")
    b.cond_br(b.icmp("sgt", count, ir.ConstantInt(ir.i64, 0)), loop, after)
    b.position_at_end(loop)
    j = b.phi(ir.i64, [(ir.ConstantInt(ir.i64, 0), head)])
    body(b, j)
    nxt = b.add(j, ir.ConstantInt(ir.i64, 1))
    j.add_incoming(nxt, b.insert_block)  # type: ignore[arg-type]
    b.cond_br(b.icmp("slt", nxt, count), loop, after)
    b.position_at_end(after)


def _squared_norm(b: IRBuilder, fn: ir.Function, states: list[tuple[ir.Value, ir.Value, bool]],
                  previous: list[ir.Value] | None) -> ir.Value:
    """The sum of the squares of the states' elements (``(pointer, bytes, is_float)``),
    or of their changes from ``previous`` (copies of them), as a double."""
    acc = entry_slot(b, fn, ir.double)
    b.store(ir.ConstantFP(ir.double, 0.0), acc)
    for k, (ptr, size, is_float) in enumerate(states):
        el = ir.float_ if is_float else ir.double
        count = b.udiv(size, ir.ConstantInt(ir.i64, 4 if is_float else 8))

        def add(bb: IRBuilder, j: ir.Value, ptr: ir.Value = ptr, el: ir.Type = el,
                k: int = k) -> None:
            v = bb.load(el, bb.gep(el, ptr, [j]))
            if previous is not None:
                v = bb.fsub(v, bb.load(el, bb.gep(el, previous[k], [j])))
            if el != ir.double:
                v = bb.fpext(v, ir.double)
            bb.store(bb.fadd(bb.load(ir.double, acc), bb.fmul(v, v)), acc)

        _for_each(b, count, add)
    return b.load(ir.double, acc)


@dataclass
class _Limits:
    """The adjoint (or tangent) iteration's stopping rule, as slots of the function."""

    reduction: ir.Value  # slot holding the reduction (the control function may read it)
    max_iters: ir.Value
    control: ir.Value
    first: ir.Value  # slot: the norm after the first iteration
    previous: ir.Value  # slot: the norm after the last iteration
    cumul: ir.Value  # slot passed to the control function
    iterations: ir.Value  # slot: iterations done


def _limits(b: IRBuilder, fn: ir.Function, spec: FixedPointLoop,
            primals: list[ir.Value]) -> _Limits:
    lim = _Limits(reduction=entry_slot(b, fn, ir.double), max_iters=primals[spec.reduction + 1],
                  control=primals[spec.reduction + 2], first=entry_slot(b, fn, ir.double),
                  previous=entry_slot(b, fn, ir.double), cumul=entry_slot(b, fn, ir.double),
                  iterations=entry_slot(b, fn, ir.i64))
    b.store(primals[spec.reduction], lim.reduction)
    b.store(ir.ConstantFP(ir.double, 0.0), lim.first)
    b.store(ir.ConstantFP(ir.double, float("inf")), lim.previous)
    b.store(ir.ConstantInt(ir.i64, 0), lim.iterations)
    return lim


_CONTROL = ir.FunctionType(ir.i32, [ir.ptr, ir.ptr])


def _call_control(b: IRBuilder, lim: _Limits) -> ir.Value:
    """``control(&cumul, &reduction) != 0``."""
    r = b.call(lim.control, [lim.cumul, lim.reduction], function_type=_CONTROL)
    return b.icmp("ne", r, ir.ConstantInt(ir.i32, 0))


def _iterate(b: IRBuilder, fn: ir.Function, lim: _Limits,
             one_iteration: Callable[[IRBuilder], ir.Value]) -> None:
    """Run ``one_iteration`` (which returns the squared norm of what it changed) until
    the stopping rule says stop; ``b`` ends after the loop."""
    has_control = b.icmp("ne", lim.control, ir.ConstantPointerNull(ir.ptr))
    ask = fn.append_basic_block("fp.ask")
    loop = fn.append_basic_block("fp.iteration")
    done = fn.append_basic_block("fp.done")
    b.store(ir.ConstantFP(ir.double, -1.0), lim.cumul)
    b.cond_br(has_control, ask, loop)
    b.position_at_end(ask)
    b.cond_br(_call_control(b, lim), loop, done)
    b.position_at_end(loop)
    norm = one_iteration(b)
    n = b.add(b.load(ir.i64, lim.iterations), ir.ConstantInt(ir.i64, 1))
    b.store(n, lim.iterations)
    is_first = b.icmp("eq", n, ir.ConstantInt(ir.i64, 1))
    first = b.select(is_first, norm, b.load(ir.double, lim.first))
    b.store(first, lim.first)
    shrinking = b.fcmp("ogt", norm, b.fmul(b.load(ir.double, lim.reduction), first))
    grew = b.and_(b.icmp("sgt", n, ir.ConstantInt(ir.i64, _GROWTH_GRACE)),
                  b.fcmp("ogt", norm, b.load(ir.double, lim.previous)))
    by_norm = b.and_(shrinking, b.not_(grew))
    b.store(norm, lim.previous)
    control_block = fn.append_basic_block("fp.control")
    decide = fn.append_basic_block("fp.decide")
    tested = b.insert_block
    assert tested is not None
    b.cond_br(has_control, control_block, decide)
    b.position_at_end(control_block)
    b.store(norm, lim.cumul)
    by_control = _call_control(b, lim)
    b.br(decide)
    b.position_at_end(decide)
    again = b.phi(ir.i1, [(by_norm, tested), (by_control, control_block)])
    unlimited = b.icmp("eq", lim.max_iters, ir.ConstantInt(ir.i64, 0))
    below = b.icmp("slt", n, lim.max_iters)
    b.cond_br(b.and_(again, b.or_(unlimited, below)), loop, done)
    b.position_at_end(done)


# -- the step's derivative --------------------------------------------------------------------
def _step_config(spec: FixedPointLoop, config: FnConfig, mode: DerivativeMode) -> FnConfig:
    return step_config(spec.differentiated, config.arg_types[spec.first_argument:], mode)


def _step_arguments(b: IRBuilder, spec: FixedPointLoop, config: FnConfig, fn: ir.Function,
                    primals: list[ir.Value], shadows: list[list[ir.Value]],
                    counter: ir.Value) -> list[ir.Value]:
    values = [counter_value(b, fn, spec.differentiated, counter)]
    for k in range(spec.first_argument, len(primals)):
        values.append(primals[k])
        if config.arg_types[k] in SHADOWED:
            values.extend(shadows[k])
    return values


def _listed_states(spec: FixedPointLoop, config: FnConfig, primals: list[ir.Value],
                   shadows: list[list[ir.Value]]) -> list[tuple[ir.Value, ir.Value, bool]]:
    """(shadow, bytes, is_float) of each listed state that has a shadow."""
    return [(shadows[2 * k][0], primals[2 * k + 1], spec.float_states[k])
            for k in range(spec.states) if config.arg_types[2 * k] in SHADOWED]


# -- reverse mode ----------------------------------------------------------------------------
def _pair(ctx: DerivativeContext, spec: FixedPointLoop,
          config: FnConfig) -> tuple[ir.Function, ir.Function]:
    aug_cfg = replace(config, mode=DerivativeMode.REVERSE_PRIMAL, extra=())
    rev_cfg = replace(config, mode=DerivativeMode.REVERSE_GRADIENT, extra=())
    if aug_cfg in ctx.cache and rev_cfg in ctx.cache:
        return ctx.cache[aug_cfg], ctx.cache[rev_cfg]
    loop = config.function
    aug = new_function(ctx, "augmented", config, augmented_signature(aug_cfg))
    ctx.register(aug_cfg, aug)
    rev = new_function(ctx, "reverse", config, gradient_signature(rev_cfg))
    ctx.register(rev_cfg, rev)
    for mode_cfg in (replace(config, mode=DerivativeMode.REVERSE_PRIMAL),
                     replace(config, mode=DerivativeMode.REVERSE_GRADIENT)):
        ctx.cache[mode_cfg] = aug if mode_cfg.mode is DerivativeMode.REVERSE_PRIMAL else rev

    # augmented: the loop, then the tape: the iteration count and the snapshot
    p = derivative_params(aug, aug_cfg, lanes=1, dret=False, tape=False)
    b = IRBuilder(aug.blocks[0])
    count = b.call(loop, p.primals)
    pieces = _pieces(spec, p.primals)
    tape = malloc_buffer(b, b.add(_total(b, pieces), ir.ConstantInt(ir.i64, 8)))
    b.store(count, tape)
    _copy(b, pieces, b.gep(ir.i8, tape, [ir.ConstantInt(ir.i64, 8)]), save=True)
    ret_type = aug.function_type.return_type
    agg: ir.Value = ir.UndefValue(ret_type)
    agg = b.insert_value(agg, tape, [0])
    agg = b.insert_value(agg, count, [1])
    b.ret(agg)

    _reverse_body(ctx, spec, rev_cfg, rev)
    return aug, rev


def _reverse_body(ctx: DerivativeContext, spec: FixedPointLoop, config: FnConfig,
                  rev: ir.Function) -> None:
    has_dret = config.return_type is DiffeType.OUT  # (an integer count: never)
    p = derivative_params(rev, config, lanes=1, dret=has_dret, tape=True)
    assert p.tape is not None
    b = IRBuilder(rev.blocks[0])
    pieces = _pieces(spec, p.primals)
    current = malloc_buffer(b, _total(b, pieces))  # the primal memory as found
    _copy(b, pieces, current, save=True)
    count = b.load(ir.i64, p.tape)
    snapshot = b.gep(ir.i8, p.tape, [ir.ConstantInt(ir.i64, 8)])
    last = b.sub(count, ir.ConstantInt(ir.i64, 1))
    step_cfg = _step_config(spec, config, DerivativeMode.REVERSE_COMBINED)
    diffe_step = ctx.get_or_create(step_cfg)
    outs = [k for k, dt in enumerate(config.arg_types) if dt is DiffeType.OUT]
    sums = {k: entry_slot(b, rev, p.primals[k].type) for k in outs}
    for k, slot in sums.items():
        b.store(ir.null_value(p.primals[k].type), slot)
    lim = _limits(b, rev, spec, p.primals)
    states = _listed_states(spec, config, p.primals, p.shadows)
    step_outs = [k for k in outs if k >= spec.first_argument]

    def one_iteration(bb: IRBuilder) -> ir.Value:
        _copy(bb, pieces, snapshot, save=False)
        args = _step_arguments(bb, spec, config, rev, p.primals, p.shadows, last)
        res = bb.call(diffe_step, args)
        for j, k in enumerate(step_outs):
            d = res if len(step_outs) == 1 and not res.type.is_struct else \
                bb.extract_value(res, [j])
            bb.store(bb.fadd(bb.load(d.type, sums[k]), d), sums[k])
        return _squared_norm(bb, rev, states, None)

    _iterate(b, rev, lim, one_iteration)
    for shadow, size, _ in states:  # the fixed point does not depend on the initial guess
        b.memset(shadow, 0, size)
    _copy(b, pieces, current, save=False)
    free_buffer(b, current)
    if config.free_memory:
        free_buffer(b, p.tape)
    ret = rev.function_type.return_type
    if ret.is_void:
        b.ret_void()
        return
    values = [b.load(p.primals[k].type, sums[k]) for k in outs]
    if not ret.is_struct:
        b.ret(values[0])
        return
    agg: ir.Value = ir.UndefValue(ret)
    for j, v in enumerate(values):
        agg = b.insert_value(agg, v, [j])
    b.ret(agg)


# -- forward mode ----------------------------------------------------------------------------
def _forward(ctx: DerivativeContext, spec: FixedPointLoop, config: FnConfig) -> ir.Function:
    fwd = new_function(ctx, "fwddiffe", config, forward_signature(config))
    ctx.register(config, fwd)
    p = derivative_params(fwd, config, lanes=1, dret=False, tape=False)
    b = IRBuilder(fwd.blocks[0])
    count = b.call(config.function, p.primals)
    pieces = _pieces(spec, p.primals)
    snapshot = malloc_buffer(b, _total(b, pieces))
    _copy(b, pieces, snapshot, save=True)
    states = _listed_states(spec, config, p.primals, p.shadows)
    previous = []
    for tangent, size, _ in states:  # the tangent of the initial guess has no effect
        b.memset(tangent, 0, size)
        previous.append(malloc_buffer(b, size))
    step_cfg = _step_config(spec, config, DerivativeMode.FORWARD)
    fwd_step = ctx.get_or_create(step_cfg)
    last = b.sub(count, ir.ConstantInt(ir.i64, 1))
    lim = _limits(b, fwd, spec, p.primals)

    def one_iteration(bb: IRBuilder) -> ir.Value:
        for (tangent, size, _), prev in zip(states, previous, strict=True):
            bb.memcpy(prev, tangent, size)
        _copy(bb, pieces, snapshot, save=False)
        bb.call(fwd_step, _step_arguments(bb, spec, config, fwd, p.primals, p.shadows, last))
        return _squared_norm(bb, fwd, states, previous)

    _iterate(b, fwd, lim, one_iteration)
    _copy(b, pieces, snapshot, save=False)  # the primal state the loop ended in
    free_buffer(b, snapshot)
    for prev in previous:
        free_buffer(b, prev)
    ret = fwd.function_type.return_type
    if ret.is_void:
        b.ret_void()
    elif ret == ir.i64:
        b.ret(count)
    else:  # {count, tangent of an integer}: no tangent
        agg: ir.Value = ir.UndefValue(ret)
        agg = b.insert_value(agg, count, [0])
        agg = b.insert_value(agg, ir.null_value(ir.i64), [1])
        b.ret(agg)
    return fwd


__all__ = ["FixedPointLoop", "synthesize_fixed_point"]
