"""``__enzyme_set_fixed_point``: a fixed-point loop marked from inside (the form a Fortran
``!DIR$ ENZYME FIXED_POINT`` directive takes).

```c
while (err > 0) {
  __enzyme_set_fixed_point(1e-30, (int64_t)-1, (void *)0, u, (int64_t)sizeof u);
  err = iterate(tol);
}
```

The loop that holds the call is outlined into a step function, then differentiated as
``__enzyme_fixed_point`` (:mod:`irgrad.ad.api.fixed_point`) would differentiate it:

1. the loop must have one latch and one exit, taken from its header or its latch;
2. values the loop carries in registers (its header's phis) and values it defines that
   code after it uses are moved to stack slots of the function;
3. the step ``int step(int64_t i, live-ins...)`` is a copy of the loop's blocks: its back
   edge returns 1, its exit returns 0; the *adjoint step* is the same with a header's test
   always going on, since the adjoint iterations run the body at the converged state,
   where the loop's own test would stop;
4. the loop is replaced by a call of the fixed-point loop function of that step. The
   snapshot holds the marked states, the stack slots, and the function's local variables
   the loop writes (the loop's state at -O0).

A negative reduction or number of iterations, or a null control function, means the
default; the values may be passed by reference (Fortran).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import call_arguments, call_error, value_text
from irgrad.ad.api.fixed_point import DEFAULT_MAX_ITERS, DEFAULT_REDUCTION, make_loop_function
from irgrad.ad.api.loop_constructs import marker_integer, marker_pointer
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.invoke import remove_unreachable_blocks
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.loops import Loop, LoopInfo
from irgrad.analysis.memory_writes import written_object
from irgrad.ir.clone import clone_instruction, remap_instructions

ENTRY = "__enzyme_set_fixed_point"


def lower_marked_fixed_point(ctx: DerivativeContext, call: ir.CallInst) -> None:
    """Outline the loop ``call`` marks and make it a fixed-point loop."""
    fn = call.parent.parent if call.parent is not None else None
    assert isinstance(fn, ir.Function)
    loop = LoopInfo(fn).loop_for(call)
    if loop is None:
        raise call_error(call, f"{ENTRY} must be called inside the loop it marks")
    latch, pre = loop.latch, loop.preheader or _make_preheader(fn, loop)
    exiting, exits = loop.exiting_blocks, loop.exit_blocks
    if latch is None or pre is None or len(exiting) != 1 or len(exits) != 1 or \
            exiting[0] not in (loop.header, latch):
        raise call_error(call, f"{ENTRY}: the loop it marks must have one latch and one "
                         "exit, taken from its header or its latch (no break, return or "
                         "goto out of its body)")
    b = ir.IRBuilder(position=pre.terminator)
    b.debug_loc = call.debug_loc
    limits, states = _markers(call, b, loop)
    slots = _demote(fn, loop, pre, latch)
    live_ins = _live_ins(loop)
    step = _outline(ctx, fn, loop, call, live_ins, latch, exiting[0], keep_going=False)
    adjoint = step if exiting[0] is latch else _outline(
        ctx, fn, loop, call, live_ins, latch, exiting[0], keep_going=True)
    regions = [*slots, *_written_locals(fn, loop, live_ins)]
    values: list[ir.Value] = []
    for ptr, size in (*states, *regions):
        values += [ptr, size]
    values += [*limits, *live_ins]
    loop_fn = make_loop_function(ctx, step, len(states), len(regions), values, adjoint=adjoint)
    b.call(loop_fn, values)
    exit_block = exits[0]
    for phi in exit_block.phis():  # (values from the loop were moved to slots)
        for v, pred in list(phi.incoming):
            if pred in loop.blocks:
                phi.remove_incoming(pred)
                phi.add_incoming(v, pre)
    old = pre.terminator
    assert old is not None
    pre.append(ir.BranchInst(exit_block))
    old.erase_from_parent()
    call.erase_from_parent()  # (its block goes too; a pending list of calls skips it)
    remove_unreachable_blocks(fn)


def _make_preheader(fn: ir.Function, loop: Loop) -> ir.BasicBlock | None:
    """A block that all entries into the loop go through (the optimizer may enter a
    rotated loop straight from another loop's exit test)."""
    outside = loop.outside_predecessors()
    if not outside:
        return None
    pre = ir.BasicBlock(f"{loop.header.name or 'loop'}.preheader", fn)
    fn.insert_basic_block(fn.blocks.index(loop.header), pre)
    b = ir.IRBuilder(pre)
    for phi in loop.header.phis():
        coming = [(v, p) for v, p in phi.incoming if p in outside]
        merged = coming[0][0] if len({id(v) for v, _ in coming}) == 1 else \
            b.phi(phi.type, coming)
        for _, p in coming:
            phi.remove_incoming(p)
        phi.add_incoming(merged, pre)
    b.br(loop.header)
    for p in outside:
        term = p.terminator
        assert term is not None
        _replace_operand(term, loop.header, pre)
    return pre


def _markers(call: ir.CallInst, b: ir.IRBuilder, loop: Loop
             ) -> tuple[list[ir.Value], list[tuple[ir.Value, ir.Value]]]:
    """(reduction, max_iters, control) with the defaults for negative / null values, and
    the (pointer, bytes) states; each must be computed before the loop."""
    args, _, _ = call_arguments(call, call.parent.parent.parent)  # type: ignore[union-attr]
    for v in args:
        if isinstance(v, ir.Instruction) and loop.contains(v):
            raise call_error(call, f"{ENTRY}: its arguments must be computed before the "
                             "loop it marks")
    if len(args) < 5 or (len(args) - 3) % 2:
        raise call_error(call, f"{ENTRY}(reduction, max_iters, control, state, bytes, ...) "
                         "needs at least one state and its size in bytes")
    red = args[0] if not args[0].type.is_pointer else b.load(ir.double, args[0])
    if not red.type.is_float:
        raise call_error(call, f"{ENTRY}: the reduction is a double, not {value_text(red)}")
    if red.type != ir.double:
        red = b.fpext(red, ir.double)
    red = b.select(b.fcmp("olt", red, ir.ConstantFP(ir.double, 0.0)),
                   ir.ConstantFP(ir.double, DEFAULT_REDUCTION), red)
    n = marker_integer(call, b, args, 1, "the number of iterations", ENTRY)
    n = b.select(b.icmp("slt", n, ir.ConstantInt(ir.i64, 0)),
                 ir.ConstantInt(ir.i64, DEFAULT_MAX_ITERS), n)
    control = args[2]
    if not control.type.is_pointer:
        raise call_error(call, f"{ENTRY}: the control function is a pointer, not "
                         f"{value_text(control)}")
    states = [(marker_pointer(call, args, k, "a state", ENTRY),
               marker_integer(call, b, args, k + 1, "a state", ENTRY))
              for k in range(3, len(args), 2)]
    return [red, n, control], states


def _demote(fn: ir.Function, loop: Loop, pre: ir.BasicBlock, latch: ir.BasicBlock
            ) -> list[tuple[ir.Value, ir.Value]]:
    """Header phis and values used after the loop go to stack slots; their (slot,
    bytes)."""
    eb = ir.IRBuilder()
    eb.position_at_start(fn.blocks[0])
    out: list[tuple[ir.Value, ir.Value]] = []

    def slot_for(ty: ir.Type) -> ir.Value:
        s = eb.alloca(ty)
        out.append((s, ir.ConstantInt(ir.i64, max(alloc_size(ty), 1))))
        return s

    for phi in list(loop.header.phis()):
        s = slot_for(phi.type)
        for v, pred in phi.incoming:
            ir.IRBuilder(position=pred.terminator).store(v, s)
        b = ir.IRBuilder()
        b.position_at_start(loop.header)
        phi.replace_all_uses_with(b.load(phi.type, s))
        phi.erase_from_parent()
    for bb in loop.block_list:
        for inst in list(bb.instructions):
            outside = [u for u in inst.users if isinstance(u, ir.Instruction)
                       and u.parent not in loop.blocks]
            if not outside or inst.type.is_void:
                continue
            s = slot_for(inst.type)
            after = ir.IRBuilder()
            if isinstance(inst, ir.PHINode):
                after.position_at_start(bb)
                after.position_before(bb.instructions[bb.first_insertion_index()])
            else:
                after.position_after(inst)
            after.store(inst, s)
            for u in outside:
                if isinstance(u, ir.PHINode):  # an exit phi: read where the loop ends
                    for k, (v, pred) in enumerate(list(u.incoming)):
                        if v is inst and pred in loop.blocks:
                            u.set_incoming_value(k, ir.IRBuilder(
                                position=pre.terminator).load(inst.type, s))
                else:
                    _replace_operand(u, inst, ir.IRBuilder(position=u).load(inst.type, s))
    return out


def _replace_operand(inst: ir.Instruction, old: ir.Value, new: ir.Value) -> None:
    for k, op in enumerate(inst.operands):
        if op is old:
            inst.set_operand(k, new)


def _live_ins(loop: Loop) -> list[ir.Value]:
    """Values the loop uses that are defined before it (instructions, arguments)."""
    seen: dict[ir.Value, None] = {}
    for bb in loop.block_list:
        for inst in bb.instructions:
            for op in inst.operands:
                if isinstance(op, ir.Argument) or (isinstance(op, ir.Instruction)
                                                   and op.parent not in loop.blocks):
                    seen[op] = None
    return list(seen)


def _written_locals(fn: ir.Function, loop: Loop, live_ins: list[ir.Value]
                    ) -> list[tuple[ir.Value, ir.Value]]:
    """The function's stack variables the loop writes (at -O0: its whole state)."""
    written: set[ir.Value] = set()
    for bb in loop.block_list:
        for inst in bb.instructions:
            obj = written_object(inst)
            if obj is not None:
                written.add(obj)
    out = []
    for v in live_ins:
        if isinstance(v, ir.AllocaInst) and v in written and v.count is None:
            out.append((v, ir.ConstantInt(ir.i64, max(alloc_size(v.allocated_type), 1))))
    return out


def _outline(ctx: DerivativeContext, fn: ir.Function, loop: Loop, call: ir.CallInst,
             live_ins: list[ir.Value], latch: ir.BasicBlock, exiting: ir.BasicBlock, *,
             keep_going: bool) -> ir.Function:
    """``int step(int64_t i, live-ins...)``: one trip around the loop (see the module
    docstring); ``keep_going``: the header's exit test always goes on."""
    module = ctx.module
    name = f"{fn.name}.fixed_point_{'adjoint_' if keep_going else ''}step"
    step = ir.Function(module.unique_name(name),
                       ir.FunctionType(ir.i32, [ir.i64, *(v.type for v in live_ins)]),
                       "internal")
    module.add_function(step)
    step.fn_attrs.append("noinline")
    vm: dict[ir.Value, ir.Value] = {v: a for v, a in zip(live_ins, step.args[1:], strict=True)}
    blocks = clone_blocks_into_ordered(fn, step, loop, vm)
    go_on = step.append_basic_block("next")
    ir.IRBuilder(go_on).ret(ir.ConstantInt(ir.i32, 1))
    stop = step.append_basic_block("done")
    ir.IRBuilder(stop).ret(ir.ConstantInt(ir.i32, 0))
    header = vm[loop.header]
    inside = {nb for _, nb in blocks}
    for old_bb, bb in blocks:
        term = bb.terminator
        assert term is not None
        succs = term.successors()
        for succ in succs:
            if succ is header:
                _replace_operand(term, succ, go_on)
            elif succ not in inside:  # the exit
                stay = next((t for t in succs if t in inside), None)
                keep = keep_going and old_bb is exiting and exiting is loop.header
                _replace_operand(term, succ, stay if keep and stay is not None else stop)
    marker = vm.get(call)
    if isinstance(marker, ir.Instruction):
        marker.erase_from_parent()
    for inst in list(step.instructions()):  # (the slots they mark are the caller's now)
        if isinstance(inst, ir.CallInst) and inst.called_function is not None and \
                inst.called_function.name.startswith("llvm.lifetime."):
            inst.erase_from_parent()
    return step


def clone_blocks_into_ordered(fn: ir.Function, step: ir.Function, loop: Loop,
                              vm: dict[ir.Value, ir.Value]
                              ) -> list[tuple[ir.BasicBlock, ir.BasicBlock]]:
    """Copies of the loop's blocks in ``step``, the header first (the entry block)."""
    order = [loop.header, *(bb for bb in loop.block_list if bb is not loop.header)]
    pairs = []
    for bb in order:
        nb = step.append_basic_block(bb.name)
        vm[bb] = nb
        pairs.append((bb, nb))
    copies: list[ir.Instruction] = []
    for bb, nb in pairs:
        for inst in bb.instructions:
            c = clone_instruction(inst, vm)
            nb.append(c)
            vm[inst] = c
            copies.append(c)
    remap_instructions(copies, vm)  # (uses before definitions: phis around inner loops)
    return pairs


__all__ = ["lower_marked_fixed_point"]
