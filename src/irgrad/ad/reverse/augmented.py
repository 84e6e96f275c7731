"""Split reverse mode: the augmented primal and the reverse of a function (Enzyme's
``DerivativeMode.REVERSE_PRIMAL`` / ``REVERSE_GRADIENT``).

``augmented_<f>(args, shadows) -> {tape, result}`` (just ``tape`` for a void ``f``) runs
f's forward pass: the primal computation, the shadow stores, the pushes onto f's value
stack. ``reverse_<f>(args, shadows, [d_result], tape) -> {adjoints of OUT args}`` runs
f's reverse pass from that tape and frees it. Between the two the caller may do anything
to memory, so the tape holds everything the reverse pass needs:

* the forward SSA values the reverse pass uses directly (values that dominate the
  returns, e.g. the call results, the pred-index phis, the exit indices of loops);
* the state of f's value stack (``{base, sp, cap}``: what loops pushed);
* the index of the ``ret`` that was taken (when there are several);
* the pointers of f's stack allocations that the reverse pass (or a callee's tape)
  can reach: those allocas become ``malloc``s freed by the reverse.

How: the combined derivative is synthesized as usual (with loads never recomputed, since
the caller may overwrite memory), then cut in two. Its forward blocks go to the
augmented primal, whose returns store the tape; its reverse blocks go to the reverse,
whose new entry block loads the tape. Adjoint slots and loop counters (allocas only the
reverse pass uses) are recreated in the reverse. Both functions are registered in the
:class:`DerivativeContext` before the body exists, so recursive calls find them.

Two variants serve Enzyme's caller-provided tapes:

* ``extra`` :data:`~irgrad.ad.core.config.TAPE_IN_BUFFER_KEY` (``enzyme_allocated, N``):
  the augmented primal takes one more parameter, the caller's buffer, and writes the tape
  struct there instead of into a ``malloc``; the reverse reads it there and does not free
  it. :func:`tape_bytes` gives the struct's size (``__enzyme_augmentsize``).
* :func:`nofree_reverse` (``enzyme_nofree``): a copy of a reverse that frees nothing (the
  tape, the memory it keeps, the callees' tapes), so it can run again on the same tape.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import TAPE_IN_BUFFER_KEY, DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.signatures import (
    augmented_return_type,
    returns_shadow,
    reverse_signature,
)
from irgrad.ad.core.tape_runtime import pop_frame, tape_push_function
from irgrad.ad.reverse.function import _synthesize
from irgrad.ad.reverse.tape import on_caller_stack
from irgrad.analysis.known_functions import callee_name, is_free
from irgrad.analysis.layout import abi_align, alloc_size
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import clone_function

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

_DERIVED_OPCODES = ("getelementptr", "bitcast", "addrspacecast", "phi", "select", "freeze")


def create_augmented_pair(ctx: DerivativeContext, config: FnConfig) -> ir.Function:
    """Synthesize and register both functions; return the one ``config.mode`` asks for."""
    orig = config.function
    module: ir.Module = ctx.module
    aug_cfg = replace(config, mode=DerivativeMode.REVERSE_PRIMAL)
    rev_cfg = replace(config, mode=DerivativeMode.REVERSE_GRADIENT)
    wft, names = reverse_signature(aug_cfg)
    has_dret = config.return_type is DiffeType.OUT and not orig.return_type.is_void
    n_fwd = len(wft.params) - (1 if has_dret else 0)
    buffer = dict(config.extra).get(TAPE_IN_BUFFER_KEY, False)
    shared = on_caller_stack(config)
    aug_params, aug_names = wft.params[:n_fwd], names[:n_fwd]
    if buffer or shared:
        aug_params = [*aug_params, ir.ptr]
        aug_names = [*aug_names, "tape.state" if shared else "tape.buffer"]
    aug = ir.Function(module.unique_name("augmented_" + orig.name),
                      ir.FunctionType(augmented_return_type(aug_cfg), aug_params),
                      "internal", aug_names)
    rev = ir.Function(module.unique_name("reverse_" + orig.name),
                      ir.FunctionType(wft.return_type, [*wft.params, ir.ptr]),
                      "internal", [*names, "tape.state" if shared else "tape"])
    work = ir.Function(module.unique_name("split_" + orig.name), wft, "internal", names)
    for f in (aug, rev, work):
        module.add_function(f)
    ctx.register(aug_cfg, aug)
    ctx.register(rev_cfg, rev)
    try:
        gu = _synthesize(ctx, aug_cfg, work)
        size = _split(gu, work, aug, rev, n_fwd, buffer, shared)
        ctx.analyses[(TAPE_BYTES, aug)] = size
    except BaseException:
        for f in (aug, rev):
            if f.parent is not None:
                module.remove_function(f)
        ctx.cache.pop(aug_cfg, None)
        ctx.cache.pop(rev_cfg, None)
        raise
    finally:
        if work.parent is not None:
            module.remove_function(work)
    return aug if config.mode is DerivativeMode.REVERSE_PRIMAL else rev


# -- cutting the combined function in two ------------------------------------------------
def _split(gu: GradientUtils, work: ir.Function, aug: ir.Function, rev: ir.Function,
           n_fwd: int, buffer: bool, shared: bool) -> int:
    """Move the forward blocks to ``aug`` and the reverse blocks to ``rev``; the tape's
    size in bytes (0: no tape)."""
    rev_set = set(gu.rev_blocks)
    fwd_blocks = [b for b in work.blocks if b not in rev_set]
    rev_blocks = [b for b in work.blocks if b in rev_set]
    fwd_set = set(fwd_blocks)
    state = gu.tape.state if gu.tape is not None else None
    # a dict, not a set: the slots are recreated in this order (a set of IR objects
    # iterates in address order, which made the output differ from run to run)
    slots = dict.fromkeys(a for a in _allocas(fwd_blocks)
                          if a is not state and _is_slot(a, rev_set))
    heap = _heapify(gu, fwd_blocks, rev_set, slots, state)
    needed = _needed(rev_blocks, fwd_set, heap, slots, state)
    ret_blocks = [gu.forward_block(bb) for bb in gu.returns]
    fields: list[ir.Type] = [v.type for v in needed]
    if state is not None and not shared:
        fields.append(gu.tape.state_type)  # type: ignore[union-attr]
    if len(ret_blocks) > 1:
        fields.append(ir.i32)
    tape_type = ir.StructType(fields)
    # -- the augmented primal: forward blocks, returns store the tape ------------------
    for b in fwd_blocks:
        work.blocks.remove(b)
        aug.insert_basic_block(len(aug.blocks), b)
    for k, (orig_bb, fb) in enumerate(zip(gu.returns, ret_blocks, strict=True)):
        term = fb.terminator
        assert term is not None
        term.erase_from_parent()
        bld = IRBuilder(fb)
        tape: ir.Value = ir.ConstantPointerNull(ir.ptr)
        if fields:
            if shared:  # the last frame this call pushes onto the caller's stack
                frame = bld.call(tape_push_function(gu.module),
                                 [aug.args[-1], ir.ConstantInt(ir.i64, _frame_bytes(tape_type))],
                                 name=gu.fresh("tape.out"))
            else:
                frame = aug.args[-1] if buffer else bld.call(
                    _libc(gu, "malloc", ir.ptr, [ir.i64]),
                    [ir.ConstantInt(ir.i64, max(1, alloc_size(tape_type)))],
                    name=gu.fresh("tape.out"))
                tape = frame
            for i, v in enumerate(needed):  # malloc aligns to 16 bytes, not 32 (<4 x double>)
                bld.store(v, bld.struct_gep(tape_type, frame, i), _slot_align(v.type, shared))
            i = len(needed)
            if state is not None and not shared:
                st = bld.load(gu.tape.state_type, state)  # type: ignore[union-attr]
                bld.store(st, bld.struct_gep(tape_type, tape, i))
                i += 1
            if len(ret_blocks) > 1:
                bld.store(ir.ConstantInt(ir.i32, k), bld.struct_gep(tape_type, frame, i))
        result = _primal_result(gu, orig_bb)
        if result is None:
            bld.ret(tape)
        else:
            agg = bld.insert_value(ir.UndefValue(aug.return_type), tape, [0])
            agg = bld.insert_value(agg, result, [1])
            if returns_shadow(gu.config):
                agg = bld.insert_value(agg, _shadow_result(gu, orig_bb), [2])
            bld.ret(agg)
    aug_map: dict[ir.Value, ir.Value] = dict(zip(work.args[:n_fwd], aug.args[:n_fwd],
                                                 strict=True))
    if shared and state is not None:  # the caller's stack instead of a state of its own
        aug_map[state] = aug.args[-1]
    _remap(aug, aug_map)
    if shared and isinstance(state, ir.AllocaInst) and state.parent is not None:
        state.erase_from_parent()
    # -- the reverse: a new entry loads the tape, then the reverse blocks --------------
    entry = rev.append_basic_block("tape.in")
    for b in rev_blocks:
        work.blocks.remove(b)
        rev.insert_basic_block(len(rev.blocks), b)
    bld = IRBuilder(entry)
    tape_arg = rev.args[-1]
    vmap: dict[ir.Value, ir.Value] = dict(zip(work.args, rev.args, strict=False))
    frame = pop_frame(bld, tape_arg, _frame_bytes(tape_type))[1] if shared and fields \
        else tape_arg
    for i, v in enumerate(needed):
        vmap[v] = bld.load(v.type, bld.struct_gep(tape_type, frame, i),
                           _slot_align(v.type, shared), name=gu.fresh((v.name or "v") + ".tape"))
    for a in slots:
        vmap[a] = _recreate_slot(a, bld)
    i = len(needed)
    if shared and state is not None:
        vmap[state] = tape_arg
    elif state is not None:
        st_type = gu.tape.state_type  # type: ignore[union-attr]
        new_state = bld.alloca(st_type, name=gu.fresh("tape"))
        bld.store(bld.load(st_type, bld.struct_gep(tape_type, tape_arg, i)), new_state)
        vmap[state] = new_state
        i += 1
    heads = [gu.rev_head[bb] for bb in gu.returns]
    if len(heads) > 1:
        idx = bld.load(ir.i32, bld.struct_gep(tape_type, frame, i))
        bld.insert(ir.SwitchInst(idx, heads[0], [
            (ir.ConstantInt(ir.i32, k), h) for k, h in enumerate(heads) if k > 0]))
    elif heads:
        bld.br(heads[0])
    else:
        bld.unreachable()
    _remap(rev, vmap)
    for f in (aug, rev):
        for inst in f.instructions():
            for op in inst.operands:
                if isinstance(op, ir.Argument) and op.parent is work:
                    raise gu.error(f"internal: {f.name} uses {op.name or 'an argument'} of "
                                   "the work function after the split", inst)
    free = _libc(gu, "free", ir.void, [ir.ptr])
    for b in rev.blocks:
        term = b.terminator
        if term is not None and term.opcode == "ret":
            fb = IRBuilder(position=term)
            for h in heap:
                fb.call(free, [vmap[h]])
            if fields and not buffer and not shared:
                fb.call(free, [tape_arg])
    return alloc_size(tape_type) if fields else 0


def _frame_bytes(tape_type: ir.StructType) -> int:
    """The tape struct's size on a shared stack (frames there are multiples of 8 bytes)."""
    return (alloc_size(tape_type) + 7) // 8 * 8


def _slot_align(t: ir.Type, shared: bool) -> int:
    """A malloc'd tape is 16-byte aligned; a frame on a shared stack 8-byte aligned."""
    return min(8 if shared else 16, abi_align(t))


TAPE_BYTES = "augmented.tape_bytes"
NOFREE = "augmented.nofree"


def tape_bytes(ctx: DerivativeContext, aug: ir.Function) -> int:
    """The size of the tape struct ``aug`` writes (a buffer variant's caller allocates it)."""
    size = ctx.analyses.get((TAPE_BYTES, aug))
    assert isinstance(size, int), f"{aug.name} is not an augmented primal of this context"
    return size


def nofree_reverse(ctx: DerivativeContext, rev: ir.Function) -> ir.Function:
    """A copy of reverse ``rev`` that frees nothing (``enzyme_nofree``): not its tape, not
    the memory the tape keeps alive, not the tapes of the callees it reverses (their
    reverses are nofree copies too), so the same tape can be reversed again."""
    made = ctx.analyses.get((NOFREE, rev))
    if isinstance(made, ir.Function):
        return made
    copy, _ = clone_function(rev, ctx.module.unique_name(rev.name + ".nofree"),
                             module=ctx.module)
    ctx.analyses[(NOFREE, rev)] = copy
    for inst in list(copy.instructions()):
        if not isinstance(inst, ir.CallBase):
            continue
        name = callee_name(inst) or ""
        callee = inst.called_function
        if is_free(name) or name.startswith("__irgrad_tape_release"):
            inst.erase_from_parent()
        elif callee is not None and callee is not rev and _is_reverse(ctx, callee):
            inst.callee = nofree_reverse(ctx, callee)
        elif callee is rev:  # recursion
            inst.callee = copy
    return copy


def _is_reverse(ctx: DerivativeContext, fn: ir.Function) -> bool:
    config = ctx.configs.get(fn)
    return config is not None and config.mode is DerivativeMode.REVERSE_GRADIENT


def _primal_result(gu: GradientUtils, orig_bb: ir.BasicBlock) -> ir.Value | None:
    term = orig_bb.terminator
    assert term is not None
    if not term.operands:
        return None
    return gu.primal(term.operands[0])


def _shadow_result(gu: GradientUtils, orig_bb: ir.BasicBlock) -> ir.Value:
    """The shadow of the returned pointer (the caller reads and writes derivatives
    through it: Enzyme's shadow return)."""
    term = orig_bb.terminator
    assert term is not None and term.operands
    v = term.operands[0]
    if isinstance(v, ir.ConstantPointerNull | ir.UndefValue | ir.ConstantAggregateZero) \
            or gu.is_shadowed(v) or v in gu.activity.addresses:
        return gu.invert_pointer(v, term)
    if isinstance(v, ir.ConstantInt):
        return v  # a constant address (null) is its own shadow
    raise gu.error("the caller needs the shadow of the returned pointer (it reads or writes "
                   "derivatives through it), but the returned pointer does not point into "
                   "differentiated memory here (it comes from an enzyme_const argument, a "
                   "global or an inactive value)", term)


def _libc(gu: GradientUtils, name: str, ret: ir.Type, params: list[ir.Type]) -> ir.Function:
    return gu.libc(name, ir.FunctionType(ret, params))


def _allocas(blocks: list[ir.BasicBlock]) -> list[ir.AllocaInst]:
    return [i for b in blocks for i in b.instructions if isinstance(i, ir.AllocaInst)]


def _is_slot(a: ir.AllocaInst, rev_set: set[ir.BasicBlock]) -> bool:
    """Only the reverse pass uses it (adjoint slots, loop counters): forward uses are at
    most constant initializing stores in the entry block."""
    entry = a.parent
    for u in a.users:
        if not isinstance(u, ir.Instruction):
            return False
        if u.parent in rev_set:
            continue
        if not (isinstance(u, ir.StoreInst) and u.pointer is a and u.value is not a
                and isinstance(u.value, ir.Constant) and u.parent is entry):
            return False
    return True


def _recreate_slot(a: ir.AllocaInst, bld: IRBuilder) -> ir.Value:
    new = bld.alloca(a.allocated_type, name=a.name)
    for u in a.users:
        if isinstance(u, ir.StoreInst) and u.parent is a.parent:
            bld.store(u.value, new)
    return new


def _derived(a: ir.Value) -> set[ir.Value]:
    out = {a}
    work = [a]
    while work:
        v = work.pop()
        for u in v.users:
            if isinstance(u, ir.Instruction) and u.opcode in _DERIVED_OPCODES \
                    and u.type.is_pointer and u not in out:
                out.add(u)
                work.append(u)
    return out


def _escapes(ptrs: set[ir.Value], rev_set: set[ir.BasicBlock]) -> bool:
    """Reachable from the reverse pass (or stored / passed to a call, whose tape may
    keep it)."""
    for p in ptrs:
        for u in p.users:
            if not isinstance(u, ir.Instruction):
                return True
            if u.parent in rev_set:
                return True
            if isinstance(u, ir.StoreInst) and u.value is p:
                return True
            if isinstance(u, ir.CallBase):
                name = u.called_function.name if u.called_function is not None else ""
                if not name.startswith(("llvm.lifetime", "llvm.memset", "llvm.memcpy",
                                        "llvm.memmove", "llvm.dbg")):
                    return True
    return False


def _heapify(gu: GradientUtils, fwd_blocks: list[ir.BasicBlock], rev_set: set[ir.BasicBlock],
             slots: dict[ir.AllocaInst, None], state: ir.Value | None) -> list[ir.Value]:
    """Stack memory the reverse pass can reach becomes heap memory (freed by the reverse)."""
    entry = fwd_blocks[0]
    out: list[ir.Value] = []
    for a in _allocas(fwd_blocks):
        if a in slots or a is state:
            continue
        ptrs = _derived(a)
        if not _escapes(ptrs, rev_set):
            continue
        count = a.count
        n = 1
        if count is not None:
            if not isinstance(count, ir.ConstantInt):
                raise gu.error("split-mode derivative: a variable-size stack allocation the "
                               "reverse pass needs is not supported yet", a)
            n = count.value
        if a.parent is not entry:
            raise gu.error("split-mode derivative: a stack allocation outside the entry "
                           "block that the reverse pass needs is not supported yet", a)
        for p in ptrs:
            for u in list(p.users):
                if isinstance(u, ir.CallBase) and u.called_function is not None and \
                        u.called_function.name.startswith("llvm.lifetime"):
                    u.erase_from_parent()
        bld = IRBuilder(position=a)
        size = max(1, alloc_size(a.allocated_type) * n)
        m = bld.call(_libc(gu, "malloc", ir.ptr, [ir.i64]), [ir.ConstantInt(ir.i64, size)],
                     name=gu.fresh((a.name or "local") + ".heap"))
        a.replace_all_uses_with(m)
        a.erase_from_parent()
        out.append(m)
    return out


def _needed(rev_blocks: list[ir.BasicBlock], fwd_set: set[ir.BasicBlock], heap: list[ir.Value],
            slots: dict[ir.AllocaInst, None], state: ir.Value | None) -> list[ir.Value]:
    """Forward values the reverse blocks use (in a stable order), plus the heap locals."""
    seen: dict[ir.Value, None] = dict.fromkeys(heap)
    for b in rev_blocks:
        for inst in b.instructions:
            for op in inst.operands:
                if isinstance(op, ir.BasicBlock):
                    if op in fwd_set:
                        raise AssertionError("reverse block branches into the forward pass")
                    continue
                if isinstance(op, ir.Instruction) and op.parent in fwd_set and \
                        op not in slots and op is not state:
                    seen[op] = None
    return list(seen)


def _remap(fn: ir.Function, vmap: dict[ir.Value, ir.Value]) -> None:
    for inst in fn.instructions():
        for k, op in enumerate(inst.operands):
            m = vmap.get(op)
            if m is not None:
                inst.set_operand(k, m)
