"""Stack allocations of run-time size (C99 VLAs, ``alloca(n)``) in reverse mode.

The reverse pass reads a local's memory (and its shadow) long after the forward pass
left the local's scope: a VLA declared in a loop body is released by
``llvm.stackrestore`` at the end of each iteration, and the split-mode reverse runs in
another call altogether. So in a derivative every ``alloca`` of run-time size, and every
``alloca`` outside the entry block (one per execution), becomes a heap allocation:
``malloc(count * size)`` in the forward pass, with a zero-filled shadow beside it when it
has one, both freed when the reverse pass reaches the allocation (each execution's
pointers come back from the tape like any forward value). Constant-size locals of the
entry block stay on the stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.allocations import as_i64
from irgrad.analysis.layout import alloc_size
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


def is_dynamic_alloca(inst: ir.Instruction) -> bool:
    """An alloca of run-time size, or one that runs more than once per call."""
    if not isinstance(inst, ir.AllocaInst):
        return False
    fn = inst.parent.parent if inst.parent is not None else None
    in_entry = fn is not None and fn.blocks and inst.parent is fn.blocks[0]
    return not in_entry or (inst.count is not None
                            and not isinstance(inst.count, ir.ConstantInt))


def _bytes(b: IRBuilder, a: ir.AllocaInst, count: ir.Value | None) -> ir.Value:
    size = ir.ConstantInt(ir.i64, max(1, alloc_size(a.allocated_type)))
    if count is None:
        return size
    if isinstance(count, ir.ConstantInt):
        return ir.ConstantInt(ir.i64, max(1, size.value * count.value))
    return b.mul(as_i64(b, count), size)


def heapify_dynamic_allocas(gu: GradientUtils) -> None:
    """In the forward pass, replace the clones of the dynamic allocas by ``malloc``."""
    malloc = gu.libc("malloc", ir.FunctionType(ir.ptr, [ir.i64]))
    for inst in list(gu.orig.instructions()):
        if not is_dynamic_alloca(inst) or inst.parent not in gu.reachable:
            continue
        assert isinstance(inst, ir.AllocaInst)
        new = gu.vmap[inst]
        assert isinstance(new, ir.AllocaInst)
        b = IRBuilder(position=new)
        count = gu.primal(inst.count) if inst.count is not None else None
        m = b.call(malloc, [_bytes(b, inst, count)], name=gu.fresh((inst.name or "vla")
                                                                  + ".heap"))
        m.metadata = [(k, v) for k, v in new.metadata if k == "dbg"]
        new.replace_all_uses_with(m)
        if gu.entry_marker is new:
            gu.entry_marker = m
        gu.orig_of_new.pop(new, None)
        new.erase_from_parent()
        gu.vmap[inst] = m
        gu.orig_of_new[m] = inst
        gu.heap_allocas.add(inst)


def shadow_heap_alloca(gu: GradientUtils, inst: ir.AllocaInst, b: IRBuilder,
                       name: str) -> ir.Value:
    """The zero-filled heap shadow of a heapified alloca (``calloc``)."""
    calloc = gu.libc("calloc", ir.FunctionType(ir.ptr, [ir.i64, ir.i64]))
    count = gu.primal(inst.count) if inst.count is not None else None
    return b.call(calloc, [_bytes(b, inst, count), ir.ConstantInt(ir.i64, 1)], name=name)


def reverse_heap_alloca(gu: GradientUtils, inst: ir.AllocaInst, b: IRBuilder) -> None:
    """The reverse pass reached the allocation: this execution's memory (and shadow)
    is no longer needed."""
    bb = inst.parent
    assert bb is not None
    free = gu.libc("free", ir.FunctionType(ir.void, [ir.ptr]))
    b.call(free, [gu.lookup_primal(inst, bb)])
    if gu.is_shadowed(inst):
        b.call(free, [gu.lookup_shadow(inst, bb, inst)])


__all__ = ["heapify_dynamic_allocas", "is_dynamic_alloca", "reverse_heap_alloca",
           "shadow_heap_alloca"]
