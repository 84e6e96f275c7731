"""Forward mode: ``fwddiffe_<f>`` computes tangents alongside the primal in one pass.

The body of ``f`` is cloned; after each instruction that carries a derivative its tangent
is emitted (``tangent = sum_i partial_i * tangent_i`` from the rule tables, hand-written
only for memory, control flow and calls, see :mod:`irgrad.ad.forward.instructions`). Pointers
get shadows (their "tangent" is the shadow pointer). Values with no dependence on an
active input have a *symbolic zero* tangent (None): nothing is emitted for them.

Width N (vector forward mode): the tangents of a floating-point scalar are carried in one
``<N x T>`` vector (so LLVM vectorizes); every other kind of value has N separate tangents
(a Python list), e.g. N shadow pointers -- except the shadows of memory the derivative
allocates itself, which are one interleaved buffer (:mod:`irgrad.ad.forward.interleaved_shadows`).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.config import DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.internal_shadows import (
    acquire_internal_shadow,
    internal_shadow_params,
    release_internal_shadow,
)
from irgrad.ad.core.signatures import forward_return_type
from irgrad.ad.forward.global_arguments import global_params
from irgrad.ad.forward.instructions import ForwardPass
from irgrad.ad.forward.interleaved_shadows import interleaved_params
from irgrad.ad.forward.tangents import Tangent, pack_lanes
from irgrad.analysis.activity import holds_address_type
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import clone_blocks_into

return_type_of = forward_return_type  # the forward derivative's return type


def _name(ctx: DerivativeContext, config: FnConfig) -> str:
    base = "fwddiffe" if config.width == 1 else f"fwddiffe{config.width}"
    return ctx.module.unique_name(f"{base}_{config.function.name}")


def create_forward_diff(ctx: DerivativeContext, config: FnConfig) -> ir.Function:
    """Synthesize the forward-mode derivative of ``config.function``."""
    fn = config.function
    width = config.width
    interleaved = interleaved_params(config.extra)
    params: list[ir.Type] = []
    names: list[str | None] = []
    for i, (arg, act) in enumerate(zip(fn.args, config.arg_types, strict=True)):
        params.append(arg.type)
        names.append(arg.name)
        if i in interleaved:  # one shadow holding every tangent (interleaved_shadows)
            params.append(arg.type)
            names.append(f"'{arg.name}" if arg.name else None)
        elif act in (DiffeType.DUP, DiffeType.DUP_NONEED):
            for k in range(width):
                params.append(arg.type)
                suffix = "" if width == 1 else str(k)
                names.append(f"'{arg.name}{suffix}" if arg.name else None)
    fn_type = ir.FunctionType(return_type_of(config), params)
    new = ir.Function(_name(ctx, config), fn_type, linkage="internal", arg_names=names)
    ctx.module.add_function(new, ctx.module.functions.index(fn) + 1)
    ctx.register(config, new)  # with fn's function attributes (derived_attributes)
    value_map: dict[ir.Value, ir.Value] = {}
    tangents: dict[ir.Value, Tangent] = {}
    k = 0
    entry = ir.BasicBlock("fwd.entry", new)
    new.blocks.append(entry)
    b = IRBuilder(entry)
    forced: list[ir.Value] = []
    for i, (arg, act) in enumerate(zip(fn.args, config.arg_types, strict=True)):
        primal = new.args[k]
        value_map[arg] = primal
        k += 1
        if i in interleaved:
            tangents[arg] = new.args[k]
            forced.append(primal)
            k += 1
        elif act in (DiffeType.DUP, DiffeType.DUP_NONEED):
            shadows = list(new.args[k : k + width])
            k += width
            tangents[arg] = pack_lanes(b, shadows, arg.type, width)
    internal: list[ir.Value] = []
    for i in internal_shadow_params(config):  # enzyme_const, but derivatives flow through
        lanes = [acquire_internal_shadow(b, ctx.module, f"'{fn.args[i].name or i}.internal")
                 for _ in range(width)]
        internal.extend(lanes)
        tangents[fn.args[i]] = pack_lanes(b, lanes, fn.args[i].type, width)
    blocks = clone_blocks_into(fn, new, value_map)
    b.br(blocks[0])
    for inst in new.instructions():
        inst.debug_records = []  # they describe f's variables; !dbg locations stay (errors)
    fwd = ForwardPass(ctx, config, new, blocks, {value_map[a]: t for a, t in tangents.items()},
                      forced)
    fwd.original = (fn, {c: o for o, c in value_map.items()})
    fwd.global_args = {value_map[fn.args[i]]: g
                       for i, g in global_params(config.extra).items()}
    # integer arguments with tangents that hold addresses (an iterator the ABI passes as
    # ``i64``): offsets and masks on them apply to the tangent (the shadow's address) too
    int_args = [a for a in tangents if isinstance(a, ir.Argument) and holds_address_type(a.type)]
    if int_args:
        types = ctx.types(fn)
        fwd.addresses.update(value_map[a] for a in int_args
                             if types.query(a).scalar_type().is_pointer)
    fwd.run()
    _hoist_entry_allocas(entry, blocks[0])
    for inst in [i for i in new.instructions() if isinstance(i, ir.ReturnInst)]:
        rb = IRBuilder(position=inst)
        for shadow in internal:
            release_internal_shadow(rb, ctx.module, shadow)
    return new


def _hoist_entry_allocas(entry: ir.BasicBlock, first: ir.BasicBlock) -> None:
    """The constant-size allocas of ``f``'s entry block (and their shadows) go back into
    the derivative's entry block: they are static there, as in ``f``. A derivative that
    is differentiated again (reverse over forward) would otherwise see locals in a
    non-entry block, one per execution, and move each to the heap."""
    term = entry.terminator
    assert term is not None
    for inst in list(first.instructions):
        if isinstance(inst, ir.AllocaInst) and (
                inst.count is None or isinstance(inst.count, ir.ConstantInt)):
            inst.remove_from_parent()
            inst.insert_before(term)


