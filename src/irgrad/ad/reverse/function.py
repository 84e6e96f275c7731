"""Reverse mode, combined: ``diffe_<f>`` = augmented forward pass + reverse pass.

``create_primal_and_gradient(ctx, config)`` follows docs/internals/ad-design.md:

1. the body of ``f`` is cloned (the forward pass); pointers get shadows (arguments'
   shadows, GEPs/casts/phis/selects/loads of shadowed pointers, zeroed shadow allocas and
   heap allocations), see :mod:`irgrad.ad.reverse.memory`;
2. every block ``B`` that can reach a return gets a reverse region ``rev.B`` (a head that
   pops/recomputes the forward values it needs, and a body that processes B's
   instructions backwards); each ``ret`` becomes a branch to its block's reverse region;
3. ``rev.B`` continues with ``rev.P`` for the predecessor ``P`` that led to B: a phi
   added at B's top records its index in the forward pass, looked up like any value;
   phi adjoints are moved on the edge. Headers of counted loops record nothing: their
   reverse runs a counter down to 0 (:mod:`irgrad.ad.reverse.loops`);
4. ``rev.<entry>`` frees the tape and deferred allocations and returns the adjoints of the
   ``OUT`` arguments as a literal struct.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.diagnostics import no_shadow_message
from irgrad.ad.core.internal_shadows import (
    acquire_internal_shadow,
    internal_shadow_params,
    release_internal_shadow,
)
from irgrad.ad.core.signatures import reverse_signature
from irgrad.ad.reverse.accumulation_order import accumulation_order, reverse_is_local
from irgrad.ad.reverse.atomics import reverse_atomic
from irgrad.ad.reverse.branches import BranchIndex, branch_index
from irgrad.ad.reverse.call_sites import prepare_calls, shadow_used
from irgrad.ad.reverse.calls import forward_call, reverse_call
from irgrad.ad.reverse.dynamic_allocas import heapify_dynamic_allocas, reverse_heap_alloca
from irgrad.ad.reverse.explain import record_report
from irgrad.ad.reverse.forward_frees import hold_forward_free, settle_forward_frees
from irgrad.ad.reverse.gradient_utils import GradientUtils
from irgrad.ad.reverse.instructions import reverse_value_instruction
from irgrad.ad.reverse.memory import (
    create_shadow,
    forward_memtransfer,
    forward_out_allocation,
    forward_store_shadow,
    release_deferred,
    reverse_load,
    reverse_store,
    should_drop_forward_free,
)
from irgrad.ad.reverse.shadow_frees import defer_shadow_free
from irgrad.ad.reverse.sunk_stores import sink_stores
from irgrad.ad.reverse.vector_intrinsics import check_masked_pointer_store
from irgrad.analysis.activity import has_float, is_pointer_like
from irgrad.analysis.frees import guaranteed_free_of
from irgrad.analysis.known_functions import allocator, callee_name, is_allocation
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder
from irgrad.ir.cfg import reverse_postorder
from irgrad.ir.clone import clone_with_operands
from irgrad.ir.dominators import DominatorTree

if TYPE_CHECKING:
    pass

ENTRY_MARKER = "llvm.donothing"

def create_primal_and_gradient(ctx: DerivativeContext, config: FnConfig) -> ir.Function:
    """Synthesize ``diffe_<f>`` for ``config`` (mode REVERSE_COMBINED) in ``ctx.module``."""
    orig = config.function
    module: ir.Module = ctx.module
    ft, names = reverse_signature(config)
    new = ir.Function(module.unique_name("diffe_" + orig.name), ft, "internal", names)
    module.add_function(new)
    register = getattr(ctx, "register", None)
    if register is not None:
        register(config, new)
    try:
        _synthesize(ctx, config, new)
    except BaseException:
        module.remove_function(new)
        cache = getattr(ctx, "cache", None)
        if isinstance(cache, dict):
            cache.pop(config, None)
        raise
    return new


def _synthesize(ctx: DerivativeContext, config: FnConfig, new: ir.Function) -> GradientUtils:
    gu = GradientUtils(ctx, config, new)
    orig = config.function
    # -- arguments -------------------------------------------------------------------
    k = 0
    differeturn: ir.Value | None = None
    for arg, dt in zip(orig.args, config.arg_types, strict=True):
        gu.vmap[arg] = new.args[k]
        k += 1
        if dt in (DiffeType.DUP, DiffeType.DUP_NONEED):
            # (an integer with a shadow holds an address: its shadow is the shadow's)
            if arg.type.is_pointer or arg in gu.activity.addresses:
                gu.shadow[arg] = new.args[k]
            k += 1
    if config.return_type is DiffeType.OUT and not orig.return_type.is_void:
        differeturn = new.args[k]
    _clone_body(gu)
    _internal_shadows(gu)
    heapify_dynamic_allocas(gu)  # VLAs outlive their scope: the reverse pass reads them
    prepare_calls(gu)
    _forward_shadows(gu)  # with the calls that need their callee's augmented primal
    _reverse_pass(gu, differeturn)
    settle_forward_frees(gu)  # frees of blocks the reverse pass does not read stay
    _drop_lifetime_markers(gu.new)
    if gu.tape is not None:
        gu.tape.finalize()
    record_report(gu)
    marker = gu.entry_marker
    assert isinstance(marker, ir.CallInst)
    callee = marker.called_function
    marker.erase_from_parent()
    if callee is not None and not callee.uses:  # no other synthesis in progress uses it
        gu.module.remove_function(callee)
    return gu  # split mode (augmented.py) cuts the finished function in two


def _internal_shadows(gu: GradientUtils) -> None:
    """Zeroed shadows of the enzyme_const arguments that derivatives flow through
    (runtime activity), released when the reverse pass ends."""
    for k in internal_shadow_params(gu.config):
        arg = gu.orig.args[k]
        s = acquire_internal_shadow(gu.entry_builder(), gu.module,
                                    gu.fresh("s." + (arg.name or "arg")))
        gu.shadow[arg] = s
        gu.shadow_primal[s] = gu.vmap[arg]
        gu.deferred_frees.append(
            lambda b, s=s: release_internal_shadow(b, gu.module, s))  # type: ignore[misc]


def _drop_lifetime_markers(fn: ir.Function) -> None:
    """Erase ``llvm.lifetime.start/end`` from a derivative: the reverse pass (and the
    callees' derivatives it calls again) reads locals after the point where the primal
    ended their lifetime, and with the markers LLVM's stack colouring let a later local
    (a tape's stack buffer) share their slot."""
    for inst in list(fn.instructions()):
        if isinstance(inst, ir.CallInst):
            callee = inst.called_function
            if callee is not None and callee.name.startswith("llvm.lifetime."):
                inst.erase_from_parent()


# -- forward pass --------------------------------------------------------------------------
def _clone_body(gu: GradientUtils) -> None:
    orig, new = gu.orig, gu.new
    for bb in orig.blocks:
        nb = new.append_basic_block(bb.name)
        gu.vmap[bb] = nb
        gu.block_of_new[nb] = bb
    clones: list[ir.Instruction] = []
    for bb in orig.blocks:
        nb = gu.vmap[bb]
        for inst in bb.instructions:
            c = clone_with_operands(inst, list(inst.operands))
            nb.append(c)  # type: ignore[union-attr]
            gu.vmap[inst] = c
            gu.orig_of_new[c] = inst
            clones.append(c)
    for c in clones:
        for i, op in enumerate(c.operands):
            m = gu.vmap.get(op)
            if m is not None:
                c.set_operand(i, m)
    # A marker no handler erases (the first cloned instruction may be: a `ret` becomes a
    # branch into the reverse pass, a free is dropped): allocas and slot initializations
    # go before it, in order. Removed when the derivative is complete.
    marker = IRBuilder(position=new.blocks[0].instructions[0]).call(
        gu.module.get_or_insert_function(ENTRY_MARKER, ir.FunctionType(ir.void, [])), [])
    gu.entry_marker = marker


def _forward_shadows(gu: GradientUtils) -> None:
    pending_phis: list[tuple[ir.PHINode, ir.PHINode]] = []
    # dominators first: a shadow must exist before its uses (the block layout after
    # LLVM's passes may put a use before its definition, e.g. numba's inlined code)
    for bb in reverse_postorder(gu.orig):
        if bb not in gu.reachable:
            continue
        for inst in list(bb.instructions):
            if isinstance(inst, ir.CallBase):
                _forward_call(gu, inst)
                continue
            if inst in gu.activity.shadowed:
                if isinstance(inst, ir.PHINode) and not shadow_used(gu, inst, calls_use=True):
                    # a merge of pointers only compared or turned into an index (Rust's
                    # sort picking a pivot): no shadow, which one incoming value (a
                    # callee's result nobody needed the shadow of) may lack
                    gu.unshadowable[inst] = gu.error(no_shadow_message(inst), inst)
                    continue
                try:
                    s = create_shadow(gu, inst)
                except DifferentiationError as e:
                    if isinstance(inst, ir.PHINode):
                        raise
                    # a pointer only compared or read for inactive values needs no
                    # shadow: the error waits for a use that needs one
                    gu.unshadowable[inst] = e
                    continue
                if isinstance(inst, ir.PHINode) and isinstance(s, ir.PHINode):
                    pending_phis.append((inst, s))
            if isinstance(inst, ir.StoreInst):
                forward_store_shadow(gu, inst)
    for orig_phi, sphi in pending_phis:
        for v, blk in orig_phi.incoming:
            sv = gu.invert_pointer(v, orig_phi) if is_pointer_like(v.type) else v
            sphi.add_incoming(sv, gu.vmap[blk])  # type: ignore[arg-type]


def _forward_call(gu: GradientUtils, call: ir.CallBase) -> None:
    """Allocations get their shadow, frees of the function's own memory move to the
    reverse pass, copies of pointers copy their shadows; other calls go to calls.py."""
    name = callee_name(call)
    if is_allocation(name):
        if call in gu.activity.shadowed:
            create_shadow(gu, call)
    elif allocator(name) is not None:  # posix_memalign: the memory comes back through *p
        forward_out_allocation(gu, call)
    elif isinstance(call, ir.CallInst) and should_drop_forward_free(gu, call):
        hold_forward_free(gu, call, guaranteed_free_of(call))
    elif isinstance(call, ir.CallInst) and (name or "").startswith(
            ("llvm.memcpy", "llvm.memmove")):
        forward_memtransfer(gu, call)
    else:
        if isinstance(call, ir.CallInst) and (name or "").startswith("llvm.masked."):
            check_masked_pointer_store(gu, call)
        if isinstance(call, ir.CallInst):
            defer_shadow_free(gu, call)  # a free of a block from elsewhere
        forward_call(gu, call)


# -- reverse pass --------------------------------------------------------------------------
def _reaches_return(gu: GradientUtils) -> list[ir.BasicBlock]:
    live = set(gu.returns)
    work = list(gu.returns)
    while work:
        b = work.pop()
        for p in b.predecessors():
            if p not in live and p in gu.reachable:
                live.add(p)
                work.append(p)
    return [b for b in gu.orig.blocks if b in live]


def _pred_index_phi(gu: GradientUtils, bb: ir.BasicBlock,
                    preds: list[ir.BasicBlock]) -> ir.Value:
    nb = gu.forward_block(bb)
    phi = ir.PHINode(ir.i32, name=gu.fresh("pred"))
    for k, p in enumerate(preds):
        term = p.terminator
        assert term is not None
        edges = sum(1 for op in term.operands if op is bb)
        for _ in range(edges):
            phi.add_incoming(ir.ConstantInt(ir.i32, k), gu.forward_block(p))
    nb.insert(0, phi)
    return phi


def _reverse_pass(gu: GradientUtils, differeturn: ir.Value | None) -> None:
    live = _reaches_return(gu)
    body: dict[ir.BasicBlock, ir.BasicBlock] = {}
    for bb in reversed(live):
        label = bb.name or "bb"
        head = gu.new.append_basic_block(gu.fresh("rev." + label))
        rbody = gu.new.append_basic_block(gu.fresh("rev." + label + ".body"))
        IRBuilder(head).br(rbody)
        gu.rev_head[bb] = head
        gu.rev_blocks.update((head, rbody))
        body[bb] = rbody
    final = gu.new.append_basic_block(gu.fresh("rev.return"))
    gu.rev_blocks.add(final)
    # every ret of the forward pass continues with its block's reverse region
    primal_slot = None
    if gu.config.return_primal and not gu.orig.return_type.is_void:
        primal_slot = gu.entry_builder().alloca(gu.orig.return_type, name=gu.fresh("primal"))
        gu.primal_result_slot = primal_slot  # type: ignore[attr-defined]
    for bb in gu.returns:
        fwd_ret = gu.forward_block(bb).terminator
        assert fwd_ret is not None
        if primal_slot is not None and fwd_ret.operands:
            IRBuilder(position=fwd_ret).store(fwd_ret.operands[0], primal_slot)
        fwd_ret.erase_from_parent()
        IRBuilder(gu.forward_block(bb)).br(gu.rev_head[bb])
    gu.loops.setup(live)
    pred_lists = {bb: [p for p in bb.predecessors() if p in gu.reachable] for bb in live}
    merges = [bb for bb, ps in pred_lists.items()
              if len(ps) > 1 and not gu.loops.is_counted_header(bb)]
    dt = DominatorTree(gu.orig) if merges else None
    pred_phis: dict[ir.BasicBlock, ir.Value | BranchIndex] = {}
    for bb in merges:
        assert dt is not None
        by_branch = branch_index(gu, bb, pred_lists[bb], dt)
        pred_phis[bb] = by_branch or _pred_index_phi(gu, bb, pred_lists[bb])
    for bb in reversed(live):
        b = IRBuilder(body[bb])
        b.debug_loc = None
        term = bb.terminator
        if term is not None and term.opcode == "ret" and differeturn is not None:
            rv = term.operands[0] if term.operands else None
            if rv is not None and gu.is_varied(rv):
                gu.add_to_diffe(rv, differeturn, b)
        _reverse_body(gu, bb, b)
        _reverse_terminator(gu, bb, b, pred_lists[bb], pred_phis.get(bb), final)
    _emit_return(gu, final)


def _reverse_body(gu: GradientUtils, bb: ir.BasicBlock, b: IRBuilder) -> None:
    """The reverse of ``bb``'s instructions, last to first; the loads of a stretch whose
    other reverses leave shadow memory alone accumulate together, in the order of
    :mod:`irgrad.ad.reverse.accumulation_order`."""
    loads: list[ir.LoadInst] = []
    for inst in reversed(bb.instructions):
        if inst.is_terminator or isinstance(inst, ir.PHINode):
            continue
        if isinstance(inst, ir.LoadInst):
            loads.append(inst)
            continue
        if loads and not reverse_is_local(inst):
            for load in accumulation_order(gu, bb, loads):
                reverse_load(gu, load, b)
            loads = []
        _reverse_instruction(gu, inst, b)
    for load in accumulation_order(gu, bb, loads):
        reverse_load(gu, load, b)


def _reverse_instruction(gu: GradientUtils, inst: ir.Instruction, b: IRBuilder) -> None:
    """The reverse of one instruction other than a load (:func:`_reverse_body` orders
    the loads)."""
    if isinstance(inst, ir.StoreInst):
        reverse_store(gu, inst, b)
    elif isinstance(inst, ir.CallBase):
        reverse_call(gu, inst, b)
        if inst in gu.deferred_releases:
            release_deferred(gu, inst, b)
    elif isinstance(inst, ir.AllocaInst):
        if inst in gu.heap_allocas:
            reverse_heap_alloca(gu, inst, b)
    elif isinstance(inst, ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
        reverse_atomic(gu, inst, b)
    elif gu.is_varied(inst):
        reverse_value_instruction(gu, inst, b)
    else:
        _check_integer_use_of_active(gu, inst)


def _check_integer_use_of_active(gu: GradientUtils, inst: ir.Instruction) -> None:
    """Float bit tricks (bitcast to an integer, integer ops) on an active value are errors:
    an integer operation on the bits of an active float (``bits >> 1``) whose result
    carries no derivative would drop it."""
    if (isinstance(inst, ir.CastInst) and inst.opcode == "bitcast"
            and gu.is_varied(inst.value) and not has_float(inst.type)):
        for u in inst.users:
            if isinstance(u, ir.BinaryOperator):
                raise gu.error(
                    "integer operation on an active floating-point value (its bits are "
                    "reinterpreted as an integer)", u)
    if isinstance(inst, ir.BinaryOperator) or (
            isinstance(inst, ir.CastInst) and inst.opcode in _INTEGER_CASTS):
        for op in inst.operands:
            if gu.is_varied(op) and not has_float(op.type) and gu.adjoint_type(op) is not None:
                raise gu.error(
                    "integer operation on an active floating-point value (its bits are "
                    "reinterpreted as an integer)", inst)


_INTEGER_CASTS = ("trunc", "zext", "sext", "sitofp", "uitofp", "inttoptr")


def _reverse_terminator(gu: GradientUtils, bb: ir.BasicBlock, b: IRBuilder,
                        preds: list[ir.BasicBlock], pred_phi: ir.Value | BranchIndex | None,
                        final: ir.BasicBlock) -> None:
    gu.loops.set_counters_on_exit(bb, b)
    phis = [p for p in bb.phis() if gu.is_varied(p)]
    dphis = [(p, gu.diffe(p, b)) for p in phis]
    if not preds:
        b.br(final)
        return
    if len(preds) == 1:
        _phi_edge(gu, dphis, preds[0], b)
        b.br(gu.rev_head[preds[0]])
        return
    if gu.loops.is_counted_header(bb):
        idx = gu.loops.header_pred_index(bb, preds, b)
    elif isinstance(pred_phi, BranchIndex):
        idx = pred_phi.emit(gu, bb, b)
    else:
        assert pred_phi is not None
        idx = gu.lookup(pred_phi, bb)
    targets: list[ir.BasicBlock] = []
    for p in preds:
        if dphis:
            edge = gu.new.append_basic_block(gu.fresh("rev.edge"))
            gu.rev_blocks.add(edge)
            eb = IRBuilder(edge)
            _phi_edge(gu, dphis, p, eb)
            eb.br(gu.rev_head[p])
            targets.append(edge)
        else:
            targets.append(gu.rev_head[p])
    sw = ir.SwitchInst(idx, targets[0], [
        (ir.ConstantInt(ir.i32, k), t) for k, t in enumerate(targets) if k > 0])
    b.insert(sw)


def _phi_edge(gu: GradientUtils, dphis: list[tuple[ir.PHINode, ir.Value]],
              pred: ir.BasicBlock, b: IRBuilder) -> None:
    for phi, d in dphis:
        v = phi.incoming_value_for(pred)
        if v is not None:
            gu.add_to_diffe(v, d, b)


def _emit_return(gu: GradientUtils, final: ir.BasicBlock) -> None:
    sink_stores(gu, final)
    b = IRBuilder(final)
    for free_call in gu.deferred_frees:
        free_call(b)
    if gu.tape is not None:
        gu.tape.emit_free(b)
    rt = gu.new.return_type
    if rt.is_void:
        b.ret()
        return
    agg: ir.Value = ir.UndefValue(rt)
    k = 0
    slot = getattr(gu, "primal_result_slot", None)
    if slot is not None:
        agg = b.insert_value(agg, b.load(gu.orig.return_type, slot), [0])
        k = 1
    for arg, dt in zip(gu.orig.args, gu.config.arg_types, strict=True):
        if dt is DiffeType.OUT:
            if gu.is_varied(arg):
                d = b.load(arg.type, gu._slot(arg))
            else:
                from irgrad.ad.reverse.gradient_utils import zero_of

                d = zero_of(arg.type)
            agg = b.insert_value(agg, d, [k])
            k += 1
    b.ret(agg)
