"""Derivatives of a checkpointed loop (:mod:`irgrad.ad.api.checkpoint_loop`).

Reverse mode follows the user's scheme (``enzyme/checkpoint.h``): the sweeps are the
driver the header defines (``__irgrad_ckpt_forward_sweep`` / ``_reverse_sweep``), which
asks the scheme for each action and calls back into two functions made here per
derivative request:

* ``ckpt.run.<step>(env, j)`` runs step ``j`` (``start + j``) and returns whether to go on;
* ``ckpt.taped.<step>(env, j)`` differentiates step ``j``: the combined derivative of the
  step (its forward and reverse passes together, so no tape outlives a step), adding into
  the shadows the environment holds, and into its sums for active scalars.

The environment is a struct in the caller's frame: the step's arguments after the
counter, each followed by its shadow if it has one (what a scheme's
``save_state``/``load_state`` receive), then the first step's number and the sums. A
snapshot holds the listed regions and the globals the step writes or reads while others
write them (:func:`irgrad.ad.api.loop_constructs.global_pieces`).

* augmented primal: the forward sweep; the tape is the driver's (the scheme's state and
  where the first turn was); the loop function's result (the number of steps) is read
  from it;
* reverse: the reverse sweep, then the sums of the active scalars' adjoints;
* forward mode: the plain loop with the step's tangent (no checkpoints needed).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from irgrad import ir
from irgrad.ad.api.blas_calls import SHADOWED, combined_from_pair, derivative_params, new_function
from irgrad.ad.api.loop_constructs import counter_value, global_pieces, step_config
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.signatures import augmented_signature, forward_signature, gradient_signature
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder

_FORWARD_SWEEP = "__irgrad_ckpt_forward_sweep"
_REVERSE_SWEEP = "__irgrad_ckpt_reverse_sweep"
_REGION = ir.StructType([ir.ptr, ir.i64, ir.i32, ir.i32])  # EnzymeCkptRegion
_STEPS_OFFSET = 16  # of irgrad_ckpt_tape {void *state; int64_t turn; int64_t steps}


@dataclass(frozen=True)
class CheckpointLoop:
    """A loop function's parameters: ``regions`` (pointer, bytes) pairs, the scheme, its
    configuration, the first step and the number of steps (-1: a while loop), then the
    step's arguments after its counter."""

    step: ir.Function
    regions: int
    is_while: bool

    @property
    def scheme(self) -> int:
        return 2 * self.regions

    @property
    def start(self) -> int:
        return 2 * self.regions + 2

    @property
    def first_argument(self) -> int:
        return 2 * self.regions + 4


def synthesize_checkpoint_loop(spec: CheckpointLoop, ctx: DerivativeContext,
                               config: FnConfig) -> ir.Function:
    """The derivative of a checkpointed loop function that ``config`` asks for."""
    if config.width != 1:
        raise DifferentiationError("a checkpointed loop (__enzyme_checkpoint_for/_while) in "
                                   "vector mode (enzyme_width) is not supported")
    if config.mode is DerivativeMode.FORWARD:
        return _forward(ctx, spec, config)
    aug_cfg = replace(config, mode=DerivativeMode.REVERSE_PRIMAL, extra=())
    rev_cfg = replace(config, mode=DerivativeMode.REVERSE_GRADIENT, extra=())
    if aug_cfg in ctx.cache and rev_cfg in ctx.cache:
        aug, rev = ctx.cache[aug_cfg], ctx.cache[rev_cfg]
    else:
        aug, rev = _pair(ctx, spec, config, aug_cfg, rev_cfg)
    if config.mode is DerivativeMode.REVERSE_PRIMAL:
        return aug
    if config.mode is DerivativeMode.REVERSE_GRADIENT:
        return rev
    return combined_from_pair(ctx, config, aug, rev)


def _driver(ctx: DerivativeContext, name: str) -> ir.Function:
    for f in ctx.module.functions:
        if (f.name == name or f.name.startswith(name + ".")) and not f.is_declaration:
            return f
    raise DifferentiationError(
        f"a checkpointed loop needs irgrad's <enzyme/checkpoint.h>, which defines the driver "
        f"{name}: include it where __enzyme_checkpoint_for/_while is called")


# -- the environment --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Env:
    """Where each value sits in the environment struct."""

    type: ir.StructType
    args: dict[int, int]  # loop function parameter -> field
    shadows: dict[int, int]
    start: int
    sums: dict[int, int]  # OUT parameter -> field of its sum


def _env(spec: CheckpointLoop, config: FnConfig) -> _Env:
    fields: list[ir.Type] = []
    args: dict[int, int] = {}
    shadows: dict[int, int] = {}
    params = config.function.function_type.params
    for k in range(spec.first_argument, len(params)):
        args[k] = len(fields)
        fields.append(params[k])
        if config.arg_types[k] in SHADOWED:
            shadows[k] = len(fields)
            fields.append(params[k])
    start = len(fields)
    fields.append(ir.i64)
    sums: dict[int, int] = {}
    for k in range(spec.first_argument, len(params)):
        if config.arg_types[k] is DiffeType.OUT:
            sums[k] = len(fields)
            fields.append(params[k])
    return _Env(ir.StructType(fields), args, shadows, start, sums)


def _fill_env(b: IRBuilder, env: _Env, primals: list[ir.Value],
              shadows: list[list[ir.Value]], spec: CheckpointLoop) -> ir.Value:
    fn = b.function
    assert fn is not None
    eb = IRBuilder()
    eb.position_at_start(fn.blocks[0])
    slot = eb.alloca(env.type, name="ckpt.env")
    for k, field in env.args.items():
        b.store(primals[k], b.struct_gep(env.type, slot, field))
    for k, field in env.shadows.items():
        b.store(shadows[k][0], b.struct_gep(env.type, slot, field))
    b.store(primals[spec.start], b.struct_gep(env.type, slot, env.start))
    for k, field in env.sums.items():
        b.store(ir.null_value(primals[k].type), b.struct_gep(env.type, slot, field))
    return slot


def _regions(b: IRBuilder, spec: CheckpointLoop, primals: list[ir.Value]
             ) -> tuple[ir.Value, ir.Value]:
    """The ``EnzymeCkptRegion`` array of a snapshot, and its length."""
    pieces = [(primals[2 * k], primals[2 * k + 1]) for k in range(spec.regions)]
    pieces += global_pieces(spec.step)
    fn = b.function
    assert fn is not None
    eb = IRBuilder()
    eb.position_at_start(fn.blocks[0])
    array = eb.alloca(ir.ArrayType(max(len(pieces), 1), _REGION), name="ckpt.regions")
    for j, (ptr, size) in enumerate(pieces):
        at = b.gep(_REGION, array, [ir.ConstantInt(ir.i64, j)])
        b.store(ptr, b.struct_gep(_REGION, at, 0))
        b.store(size, b.struct_gep(_REGION, at, 1))
        b.store(ir.ConstantInt(ir.i32, 0), b.struct_gep(_REGION, at, 2))
        b.store(ir.ConstantInt(ir.i32, 0), b.struct_gep(_REGION, at, 3))
    return array, ir.ConstantInt(ir.i64, len(pieces))


# -- the callbacks ------------------------------------------------------------------------------
def _callbacks(ctx: DerivativeContext, spec: CheckpointLoop, config: FnConfig,
               env: _Env) -> tuple[ir.Function, ir.Function]:
    module = ctx.module
    run = ir.Function(module.unique_name(f"ckpt.run.{spec.step.name}"),
                      ir.FunctionType(ir.i32, [ir.ptr, ir.i64]), "internal")
    taped = ir.Function(module.unique_name(f"ckpt.taped.{spec.step.name}"),
                        ir.FunctionType(ir.void, [ir.ptr, ir.i64]), "internal")
    module.add_function(run)
    module.add_function(taped)
    # run: the primal step
    b = IRBuilder(run.append_basic_block("entry"))
    e, j = run.args
    counter = b.add(b.load(ir.i64, b.struct_gep(env.type, e, env.start)), j)
    args = [b.load(env.type.elements[f], b.struct_gep(env.type, e, f))
            for f in env.args.values()]
    went = b.call(spec.step, [counter_value(b, run, spec.step, counter), *args])
    if spec.is_while:
        b.ret(b.zext(b.icmp("ne", went, ir.ConstantInt(went.type, 0)), ir.i32))
    else:
        b.ret(ir.ConstantInt(ir.i32, 1))
    # taped: the combined derivative of the step
    diffe = ctx.get_or_create(step_config(spec.step, config.arg_types[spec.first_argument:],
                                          DerivativeMode.REVERSE_COMBINED))
    b = IRBuilder(taped.append_basic_block("entry"))
    e, j = taped.args
    counter = b.add(b.load(ir.i64, b.struct_gep(env.type, e, env.start)), j)
    values = [counter_value(b, taped, spec.step, counter)]
    for k, f in env.args.items():
        values.append(b.load(env.type.elements[f], b.struct_gep(env.type, e, f)))
        if k in env.shadows:
            g = env.shadows[k]
            values.append(b.load(env.type.elements[g], b.struct_gep(env.type, e, g)))
    res = b.call(diffe, values)
    for n, (_, f) in enumerate(env.sums.items()):
        d = res if len(env.sums) == 1 and not res.type.is_struct else b.extract_value(res, [n])
        at = b.struct_gep(env.type, e, f)
        b.store(b.fadd(b.load(d.type, at), d), at)
    b.ret_void()
    return run, taped


# -- reverse mode -------------------------------------------------------------------------------
def _pair(ctx: DerivativeContext, spec: CheckpointLoop, config: FnConfig, aug_cfg: FnConfig,
          rev_cfg: FnConfig) -> tuple[ir.Function, ir.Function]:
    aug = new_function(ctx, "augmented", config, augmented_signature(aug_cfg))
    ctx.register(aug_cfg, aug)
    rev = new_function(ctx, "reverse", config, gradient_signature(rev_cfg))
    ctx.register(rev_cfg, rev)
    for mode_cfg in (replace(config, mode=DerivativeMode.REVERSE_PRIMAL),
                     replace(config, mode=DerivativeMode.REVERSE_GRADIENT)):
        ctx.cache[mode_cfg] = aug if mode_cfg.mode is DerivativeMode.REVERSE_PRIMAL else rev
    env = _env(spec, config)
    run, taped = _callbacks(ctx, spec, config, env)
    forward_sweep, reverse_sweep = _driver(ctx, _FORWARD_SWEEP), _driver(ctx, _REVERSE_SWEEP)

    p = derivative_params(aug, aug_cfg, lanes=1, dret=False, tape=False)
    b = IRBuilder(aug.blocks[0])
    slot = _fill_env(b, env, p.primals, p.shadows, spec)
    regions, count = _regions(b, spec, p.primals)
    tape = b.call(forward_sweep, [p.primals[spec.scheme], p.primals[spec.scheme + 1],
                                  p.primals[spec.start + 1], regions, count, slot, run])
    steps = b.load(ir.i64, b.gep(ir.i8, tape, [ir.ConstantInt(ir.i64, _STEPS_OFFSET)]))
    agg: ir.Value = ir.UndefValue(aug.function_type.return_type)
    agg = b.insert_value(agg, tape, [0])
    b.ret(b.insert_value(agg, steps, [1]))

    p = derivative_params(rev, rev_cfg, lanes=1, dret=rev_cfg.return_type is DiffeType.OUT,
                          tape=True)
    assert p.tape is not None
    b = IRBuilder(rev.blocks[0])
    slot = _fill_env(b, env, p.primals, p.shadows, spec)
    regions, count = _regions(b, spec, p.primals)
    b.call(reverse_sweep, [p.tape, p.primals[spec.scheme], regions, count, slot, run, taped])
    outs = [k for k, dt in enumerate(config.arg_types) if dt is DiffeType.OUT]
    values = [b.load(p.primals[k].type, b.struct_gep(env.type, slot, env.sums[k]))
              if k in env.sums else ir.null_value(p.primals[k].type) for k in outs]
    ret = rev.function_type.return_type
    if ret.is_void:
        b.ret_void()
    elif not ret.is_struct:
        b.ret(values[0])
    else:
        out: ir.Value = ir.UndefValue(ret)
        for n, v in enumerate(values):
            out = b.insert_value(out, v, [n])
        b.ret(out)
    return aug, rev


# -- forward mode -------------------------------------------------------------------------------
def _forward(ctx: DerivativeContext, spec: CheckpointLoop, config: FnConfig) -> ir.Function:
    fwd = new_function(ctx, "fwddiffe", config, forward_signature(config))
    ctx.register(config, fwd)
    step = ctx.get_or_create(step_config(spec.step, config.arg_types[spec.first_argument:],
                                         DerivativeMode.FORWARD, return_primal=spec.is_while))
    p = derivative_params(fwd, config, lanes=1, dret=False, tape=False)
    entry = fwd.blocks[0]
    body = fwd.append_basic_block("step")
    done = fwd.append_basic_block("done")
    b = IRBuilder(entry)
    start, n = p.primals[spec.start], p.primals[spec.start + 1]
    if spec.is_while:
        b.br(body)
    else:
        b.cond_br(b.icmp("sgt", n, ir.ConstantInt(ir.i64, 0)), body, done)
    b.position_at_end(body)
    j = b.phi(ir.i64, [(ir.ConstantInt(ir.i64, 0), entry)])
    values = [counter_value(b, fwd, spec.step, b.add(start, j))]
    for k in range(spec.first_argument, len(p.primals)):
        values.append(p.primals[k])
        if config.arg_types[k] in SHADOWED:
            values.extend(p.shadows[k])
    went = b.call(step, values)
    nxt = b.add(j, ir.ConstantInt(ir.i64, 1))
    j.add_incoming(nxt, body)
    if spec.is_while:
        again = b.icmp("ne", went, ir.ConstantInt(went.type, 0))
    else:
        again = b.icmp("slt", nxt, n)
    b.cond_br(again, body, done)
    b.position_at_end(done)
    ret = fwd.function_type.return_type
    if ret.is_void:
        b.ret_void()
    else:
        count = b.phi(ir.i64, [(nxt, body)]) if spec.is_while else n
        b.ret(count)
    return fwd


__all__ = ["CheckpointLoop", "synthesize_checkpoint_loop"]
