"""Tapes: making forward values available in the reverse pass (cache vs recompute).

The reverse pass of block B (``rev.B``) runs once for every forward execution of B, in the
opposite order. So a per-invocation byte stack is a correct tape for any control flow
(counted loops, while loops, nesting, irreducible graphs): the forward pass pushes, at the
end of B, one *frame* holding the values ``rev.B`` needs; ``rev.B`` pops that frame at its
head. Frames have a fixed layout per block (one capacity check per block execution, grown by
``realloc`` doubling), and the stack is freed at the end of the reverse pass. Inside a
loop nest whose trip counts are known when it is entered, the nest reserves all the bytes
it will push once on the edge into it, and its blocks push without a capacity check (so
LLVM can vectorize both passes); loops with unknown trip counts keep the checked push.

What is *not* put on the tape (decided by :class:`LookupPlanner`):

* constants, arguments, globals;
* values defined outside every loop in a block that dominates every return: they are
  still in registers when the reverse pass runs;
* header induction variables of counted loops (see :mod:`irgrad.ad.reverse.loops`),
  recomputed from the loop's reverse counter;
* cheap pure instructions (arithmetic, casts, GEPs, compares, selects, and calls of pure
  intrinsics such as ``llvm.fmuladd``, ``llvm.fabs``, ``llvm.maxnum``) and loads of memory
  that nothing in the function overwrites, when recomputing them needs at most one tape
  slot: they are recomputed at the head of ``rev.B`` from looked-up operands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import TAPE_ON_CALLER_STACK_KEY, DerivativeMode, FnConfig
from irgrad.ad.core.deferred_frees import (
    FREED,
    LIST_FIELD,
    LIST_TYPE,
    defer_free_function,
    deferring_release,
    drain_frees_function,
)
from irgrad.ad.core.tape_runtime import (
    STATE_TYPE,
    pop_frame,
    tape_push_function,
    tape_release_function,
)
from irgrad.ad.reverse.recompute import (
    RECOMPUTE_OPCODES,
    is_cheap_intrinsic,
    is_constant_division,
)
from irgrad.ad.reverse.store_forwarding import find_forwarded
from irgrad.analysis.layout import abi_align, alloc_size
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils
    from irgrad.ad.reverse.loops import CountedLoop
    from irgrad.ad.reverse.store_forwarding import Forwarded
    from irgrad.analysis.loops import Loop

class _Frame:
    def __init__(self, sub: ir.Instruction, frame_ptr: ir.Value) -> None:
        self.values: list[ir.Value] = []
        self.offsets: list[int] = []
        self.loads: list[ir.LoadInst] = []  # the reverse pass's read of each slot
        self.size = 0
        self.sub = sub  # `sub i64 %sp, SIZE` in rev.B's head (SIZE patched at the end)
        self.frame_ptr = frame_ptr


class Tape:
    """The per-invocation byte stack of one derivative function."""

    def __init__(self, gu: GradientUtils) -> None:
        self.gu = gu
        self.frames: dict[ir.BasicBlock, _Frame] = {}
        b = gu.entry_builder()
        # {base, sp, capacity, stack buffer}: the stack starts in a small buffer in the
        # derivative's own frame when that is safe (combined mode: the tape dies with the
        # call; no calls to defined functions: no recursion stacking buffers), so a small
        # sweep (one per residual of a Jacobian) needs no malloc/free
        self.state_type = STATE_TYPE
        self.state = b.alloca(self.state_type, name=gu.fresh("tape"))
        # a split callee of another derivative pushes onto its caller's stack: this alloca
        # stands for the caller's state until the split replaces it by the parameter
        self.on_caller_stack = on_caller_stack(gu.config)
        # blocks whose forward pass calls a derivative that pushes onto this stack
        self.sharing_blocks: set[ir.BasicBlock] = set()
        # frames of derivatives sharing one stack start wherever the last frame ended, a
        # multiple of 8 bytes: slots are read and written at most 8-byte aligned
        self.max_align = 8 if self.on_caller_stack or _calls_defined(gu) else 16
        if not self.on_caller_stack:
            b.store(ir.ConstantAggregateZero(self.state_type), self.state)
        self.defers = False  # this derivative defers shadow frees to the end
        # blocks whose forward pass pushes a block of run-time size (push_block)
        self.block_pushers: set[ir.BasicBlock] = set()
        self.starts_on_stack = not self.on_caller_stack and _stack_buffer_safe(gu)
        if self.starts_on_stack:
            buf = b.alloca(ir.ArrayType(STACK_BUFFER_BYTES, ir.i8), align=16,
                           name=gu.fresh("tape.buf"))
            b.store(buf, self.state)
            b.store(ir.ConstantInt(ir.i64, STACK_BUFFER_BYTES),
                    b.struct_gep(self.state_type, self.state, 2))
            b.store(buf, b.struct_gep(self.state_type, self.state, 3))

    def cache(self, orig_block: ir.BasicBlock, value: ir.Value) -> ir.Value:
        """Push ``value`` at the end of forward ``orig_block``; pop it at ``rev.B``'s head."""
        frame = self.frames.get(orig_block)
        b = self.gu.head_builder(orig_block)
        if frame is None:  # the frame's size is patched into the pop by finalize()
            sub, frame_ptr = pop_frame(b, self.state, 0)
            frame = self.frames[orig_block] = _Frame(sub, frame_ptr)
        size = alloc_size(value.type)
        align = min(self.max_align, abi_align(value.type))
        off = (frame.size + align - 1) // align * align
        frame.values.append(value)
        frame.offsets.append(off)
        frame.size = off + size
        slot = b.gep(ir.i8, frame.frame_ptr, [ir.ConstantInt(ir.i64, off)])
        # the slot is aligned to at most max_align bytes: say so (a <4 x double> defaults
        # to 32)
        load = b.load(value.type, slot, align, name=self.gu.fresh("tape.v"))
        frame.loads.append(load)
        return load

    def push_block(self, orig_block: ir.BasicBlock, b: IRBuilder, nbytes: ir.Value,
                   name: str = "block") -> tuple[ir.Value, ir.Value]:
        """Reserve ``nbytes`` (an ``i64`` computed at run time) on the stack at ``b``, in
        forward ``orig_block`` before the block's frame is pushed; pop them at the head of
        ``rev.<orig_block>``, right after the frame. Returns the forward address of the
        bytes and their offset from the stack's base (the stack may move as it grows: the
        reverse pass finds them at ``base + offset``, :meth:`block_address`)."""
        if orig_block not in self.frames:  # the frame's pop comes first at rev.B's head
            sub, frame_ptr = pop_frame(self.gu.head_builder(orig_block), self.state, 0)
            self.frames[orig_block] = _Frame(sub, frame_ptr)
        # whole grains: the frames pushed after these stay aligned
        mask = ir.ConstantInt(ir.i64, 15)
        rounded = b.and_(b.add(nbytes, mask), ir.ConstantInt(ir.i64, -16))
        offset = b.load(ir.i64, b.struct_gep(self.state_type, self.state, 1),
                        name=self.gu.fresh(name + ".at"))
        ptr = b.call(tape_push_function(self.gu.module), [self.state, rounded],
                     name=self.gu.fresh(name))
        self.block_pushers.add(orig_block)
        rev = self.gu.head_builder(orig_block)
        at = self.gu.lookup(offset, orig_block)
        sp_slot = rev.struct_gep(self.state_type, self.state, 1)
        # (several blocks pushed in one block: the lowest offset wins, in any order)
        rev.store(rev.call_intrinsic("llvm.umin.i64", ir.i64, [rev.load(ir.i64, sp_slot), at]),
                  sp_slot)
        return ptr, offset

    def block_address(self, b: IRBuilder, offset: ir.Value) -> ir.Value:
        """In the reverse pass: the bytes :meth:`push_block` reserved at ``offset``."""
        return b.gep(ir.i8, b.load(ir.ptr, self.state), [offset],
                     name=self.gu.fresh("block"))

    def slot_loads(self, value: ir.Value) -> list[ir.LoadInst]:
        """The reverse pass's reads of the slots that hold ``value``."""
        return [ld for f in self.frames.values()
                for v, ld in zip(f.values, f.loads, strict=True) if v is value]

    def drop_slot(self, load: ir.LoadInst) -> None:
        """Remove the slot ``load`` (which nothing uses any more) reads: the forward pass
        no longer stores it. The other slots keep their offsets."""
        for orig_block, frame in list(self.frames.items()):
            if load not in frame.loads:
                continue
            k = frame.loads.index(load)
            del frame.values[k], frame.offsets[k], frame.loads[k]
            slot = load.pointer
            load.erase_from_parent()
            if isinstance(slot, ir.Instruction) and not slot.users:
                slot.erase_from_parent()
            frame.size = max((off + alloc_size(v.type) for v, off in
                              zip(frame.values, frame.offsets, strict=True)), default=0)
            if not frame.values:  # its pop stays, of 0 bytes
                del self.frames[orig_block]
            return

    def finalize(self) -> None:
        """Emit the pushes in the forward blocks and fix the frame sizes.

        Blocks inside a loop nest whose trip counts are all known when the nest is
        entered (:meth:`LoopCounters.reserve_root`) push without a capacity check: the
        nest reserves everything it will push once, on the edge into it.
        """
        push = tape_push_function(self.gu.module)
        # frames are padded to the largest alignment any of them needs (8 or 16 bytes)
        grain = 16 if self.max_align > 8 and any(
            abi_align(v.type) > 8 for f in self.frames.values() for v in f.values) else 8
        own: dict[Loop, int] = {}  # bytes pushed per iteration by a loop's own blocks
        roots: dict[ir.BasicBlock, CountedLoop] = {}
        for orig_block, frame in self.frames.items():
            root = self.gu.loops.reserve_root(orig_block)
            if root is None:
                continue
            roots[root.loop.header] = root
            lp = self.gu.loops.loop_of(orig_block)
            assert lp is not None
            own[lp] = own.get(lp, 0) + (frame.size + grain - 1) // grain * grain
        for h, root in list(roots.items()):
            # a callee pushing onto this stack inside the nest, or a block of run-time
            # size pushed there, would eat its reservation
            if any(blk in self.sharing_blocks or blk in self.block_pushers
                   for blk in root.loop.blocks) or \
                    not self._reserve(root, own):
                del roots[h]
        for orig_block, frame in self.frames.items():
            size = (frame.size + grain - 1) // grain * grain
            frame.sub.set_operand(1, ir.ConstantInt(ir.i64, size))
            fwd = self.gu.forward_block(orig_block)
            term = fwd.terminator
            assert term is not None
            b = IRBuilder(position=term)
            root = self.gu.loops.reserve_root(orig_block)
            if root is not None and root.loop.header in roots:
                ptr = self._push_unchecked(b, size)
            else:
                ptr = b.call(push, [self.state, ir.ConstantInt(ir.i64, size)])
            for v, off in zip(frame.values, frame.offsets, strict=True):
                slot = b.gep(ir.i8, ptr, [ir.ConstantInt(ir.i64, off)])
                b.store(v, slot, min(self.max_align, abi_align(v.type)))

    def _push_unchecked(self, b: IRBuilder, size: int) -> ir.Value:
        sp_slot = b.struct_gep(self.state_type, self.state, 1)
        sp = b.load(ir.i64, sp_slot)
        b.store(b.add(sp, ir.ConstantInt(ir.i64, size)), sp_slot)
        base = b.load(ir.ptr, self.state)
        return b.gep(ir.i8, base, [sp])

    def _reserve(self, cl: CountedLoop, own: dict[Loop, int]) -> bool:
        """On a new block between the forward entering block and the header: make room
        for everything the loop nest pushes, ``trip_count * bytes_per_iteration`` (one
        capacity check per execution of the nest)."""
        gu = self.gu
        fwd_in = gu.forward_block(cl.entering)
        fwd_h = gu.forward_block(cl.loop.header)
        term = fwd_in.terminator
        assert term is not None
        mid = gu.new.append_basic_block(gu.fresh("reserve"))
        b = IRBuilder(mid)
        br = b.br(fwd_h)
        b.position_before(br)
        need = self._nest_bytes(cl.loop, own, b)
        if need is None:
            br.erase_from_parent()
            mid.erase_from_parent()
            return False
        for k, op in enumerate(term.operands):
            if op is fwd_h:
                term.set_operand(k, mid)
        for phi in fwd_h.phis():
            for k, (_, blk) in enumerate(phi.incoming):
                if blk is fwd_in:
                    phi.set_incoming_block(k, mid)
        sp = b.load(ir.i64, b.struct_gep(self.state_type, self.state, 1))
        b.call(tape_push_function(self.gu.module), [self.state, need])
        b.store(sp, b.struct_gep(self.state_type, self.state, 1))
        return True

    def _nest_bytes(self, loop: Loop, own: dict[Loop, int], b: IRBuilder
                    ) -> ir.Value | None:
        """``trip_count(loop) * (own bytes + sum over subloops of their nest bytes)``."""
        per_iter: ir.Value = ir.ConstantInt(ir.i64, own.get(loop, 0))
        for sub in loop.subloops:
            nb = self._nest_bytes(sub, own, b)
            if nb is None:
                return None
            per_iter = b.add(per_iter, nb)
        cl = self.gu.loops.by_header[loop.header]
        tc = self.gu.loops.emit_trip_count_with(cl, b)
        return None if tc is None else b.mul(tc, per_iter)

    def defer_free(self, b: IRBuilder, block: ir.Value, release: ir.Function | None, *,
                   now: bool, primal: ir.Value | None = None, kind: int = FREED) -> None:
        """Release the shadow ``block`` with ``release`` (a function of the block) when
        the outermost reverse pass ends (:mod:`irgrad.ad.core.deferred_frees`; ``kind``
        says why it is listed); where no one keeps a list, at once when ``now``, else
        never. Nothing when ``block`` is ``primal`` (runtime activity: an inactive pointer
        is its own shadow) or null. ``release`` None: the entry only says we allocated
        the block."""
        null = ir.ConstantPointerNull(ir.ptr)
        b.call(defer_free_function(self.gu.module),
               [self.state, block, release or null, ir.ConstantInt(ir.i1, int(now)),
                null if primal is None else primal, ir.ConstantInt(ir.i64, kind)])
        self.defers = True

    def defer_release(self, b: IRBuilder, fn: ir.Function, args: list[ir.Value]) -> None:
        """List the blocks release function ``fn`` would free given ``args`` (a shadow
        object) for release when the outermost reverse pass ends."""
        b.call(deferring_release(self.gu.module, fn), [*args, self.state])
        self.defers = True

    def keeps_deferred_frees(self) -> bool:
        """The outermost derivative (combined mode) keeps the list, when it or a callee
        on its stack defers a free."""
        return (self.gu.config.mode is DerivativeMode.REVERSE_COMBINED
                and not self.on_caller_stack and (self.defers or bool(self.sharing_blocks)))

    def emit_free(self, b: IRBuilder) -> None:
        if self.keeps_deferred_frees():
            e = self.gu.entry_builder()
            lst = e.alloca(LIST_TYPE, name=self.gu.fresh("deferred.frees"))
            e.store(ir.ConstantAggregateZero(LIST_TYPE), lst)
            e.store(lst, e.struct_gep(self.state_type, self.state, LIST_FIELD))
            b.call(drain_frees_function(self.gu.module), [lst])
        if (not self.frames and not self.sharing_blocks and not self.block_pushers) \
                or self.on_caller_stack:
            return  # nothing pushed, or the caller's stack (its owner releases it)
        b.call(tape_release_function(self.gu.module), [self.state])


STACK_BUFFER_BYTES = 1024


def keeps_deferred_list(config: FnConfig) -> bool:
    """A list of deferred shadow frees reaches derivatives of ``config`` (the outermost
    combined derivative's, shared by the callees on its stack; not a tape the user holds,
    whose reverse may run while the caller still reads the block)."""
    return config.mode is DerivativeMode.REVERSE_COMBINED or on_caller_stack(config)


def on_caller_stack(config: FnConfig) -> bool:
    """The derivative pushes its tape onto its caller's byte stack (split mode between
    derivatives irgrad made: LIFO, since the caller pops its frame of a block before it
    calls the reverses of that block's calls)."""
    return bool(dict(config.extra).get(TAPE_ON_CALLER_STACK_KEY, False))


def _calls_defined(gu: GradientUtils) -> bool:
    """The function calls a defined function (or calls through a pointer)."""
    for inst in gu.orig.instructions():
        if isinstance(inst, ir.CallBase):
            fn = inst.called_function
            if fn is None or not fn.is_declaration:
                return True
    return False


def _stack_buffer_safe(gu: GradientUtils) -> bool:
    if gu.config.mode is not DerivativeMode.REVERSE_COMBINED:
        return False  # split mode: the tape outlives the augmented primal's frame
    return not _calls_defined(gu)  # a callee's own derivative could stack buffers


class LookupPlanner:
    """Decides, per forward value and reverse block, between reuse, recompute and cache."""

    def __init__(self, gu: GradientUtils) -> None:
        self.gu = gu
        self._plan_memo: dict[tuple[ir.BasicBlock, ir.Value], frozenset[ir.Value]] = {}
        self._recompute: set[tuple[ir.BasicBlock, ir.Value]] = set()
        self._forward: set[tuple[ir.BasicBlock, ir.Value]] = set()
        # values the loops give back without a slot per iteration: "iv" (recomputed from
        # the reverse counter), "recurrence" (undone), "snapshot" (read from a copy)
        self._by_loop: dict[tuple[ir.BasicBlock, ir.Value], str] = {}
        self._forwarded: dict[ir.Value, Forwarded | None] = {}
        # values already on the tape for a reverse block: a recompute that needs only
        # those (and at most one new slot) costs no more tape than caching the value
        self._cached: dict[ir.BasicBlock, set[ir.Value]] = {}

    def is_available(self, v: ir.Value) -> bool:
        """True when ``v`` can be used as is anywhere in the reverse pass."""
        if not isinstance(v, ir.Instruction):
            return True
        return self.gu.is_reverse_value(v) or self.gu.available_in_reverse(v)

    def plan(self, rev_block: ir.BasicBlock, v: ir.Value, depth: int = 0) -> frozenset[ir.Value]:
        """The values that must be cached to make ``v`` available in ``rev.B``."""
        if self.is_available(v):
            return frozenset()
        hv, home = self.gu.loops.hoist(v, rev_block)
        if home is not rev_block:
            if depth > 0:
                return frozenset()  # made once per loop execution, outside this block
            v, rev_block = hv, home
        key = (rev_block, v)
        memo = self._plan_memo.get(key)
        if memo is not None:
            return memo
        result: frozenset[ir.Value] = frozenset([v])
        if self.gu.loops.recomputable_iv(v, rev_block):
            result = frozenset()
            self._by_loop[key] = "iv"
        elif self.gu.loops.recurrence(v, rev_block) is not None:
            result = frozenset()
            self._by_loop[key] = "recurrence"
        elif (fw := self.forwarded(v)) is not None:
            leaves = frozenset()
            for leaf in (fw.at, *fw.leaves):
                leaves |= self.plan(rev_block, self.gu.primal(leaf), depth + 1)
            if self._new_slots(rev_block, leaves) <= 1:
                result = leaves
                self._forward.add(key)
        elif self.gu.loops.snapshot(v, rev_block) is not None:
            result = frozenset()
            self._by_loop[key] = "snapshot"
        elif depth < 12 and self._recomputable(v):
            leaves: frozenset[ir.Value] = frozenset()
            for op in self._recompute_operands(v):
                leaves |= self.plan(rev_block, op, depth + 1)
            if self._new_slots(rev_block, leaves) <= 1 and \
                    self._new_bytes(rev_block, leaves) <= max(alloc_size(v.type), 8):
                result = leaves
                self._recompute.add(key)
        self._plan_memo[key] = result
        return result

    def note_cached(self, rev_block: ir.BasicBlock, v: ir.Value) -> None:
        """``v`` was put on the tape for ``rev_block``."""
        self._cached.setdefault(rev_block, set()).add(v)

    def _new_slots(self, rev_block: ir.BasicBlock, leaves: frozenset[ir.Value]) -> int:
        cached = self._cached.get(rev_block)
        return len(leaves) if not cached else len(leaves - cached)

    def _new_bytes(self, rev_block: ir.BasicBlock, leaves: frozenset[ir.Value]) -> int:
        """Tape bytes the new slots of ``leaves`` take: a recompute from one new slot
        wider than the value itself (the double of an augmented call's ``{tape,
        result}``, one lane of a vector) costs more tape than caching the value."""
        cached = self._cached.get(rev_block) or set()
        return sum(alloc_size(leaf.type) for leaf in leaves if leaf not in cached)

    def forwarded(self, v: ir.Value) -> Forwarded | None:
        """For a load of scratch memory: the store it reads (see
        :mod:`irgrad.ad.reverse.store_forwarding`); None otherwise or when the load is stable."""
        if not isinstance(v, ir.LoadInst) or self.gu.load_is_stable(v):
            return None
        if v in self._forwarded:
            return self._forwarded[v]

        got = None
        orig = self.gu.orig_of_new.get(self.gu.shadow_primal.get(v, v))
        if isinstance(orig, ir.LoadInst) and (
            self.gu.config.mode is DerivativeMode.REVERSE_COMBINED
        ):
            got = find_forwarded(self.gu, orig)
        self._forwarded[v] = got
        return got

    def should_forward(self, rev_block: ir.BasicBlock, v: ir.Value) -> bool:
        v, rev_block = self.gu.loops.hoist(v, rev_block)
        self.plan(rev_block, v)
        return (rev_block, v) in self._forward

    def should_recompute(self, rev_block: ir.BasicBlock, v: ir.Value) -> bool:
        v, rev_block = self.gu.loops.hoist(v, rev_block)
        self.plan(rev_block, v)
        return (rev_block, v) in self._recompute

    # -- what was decided (for the explain report) --------------------------------------
    def recomputed_keys(self) -> list[tuple[ir.BasicBlock, ir.Value]]:
        return list(self._recompute)

    def forwarded_keys(self) -> list[tuple[ir.BasicBlock, ir.Value]]:
        return list(self._forward)

    def loop_kept_keys(self) -> list[tuple[tuple[ir.BasicBlock, ir.Value], str]]:
        """(key, kind) of the values the loops give back: "iv", "recurrence", "snapshot"."""
        return list(self._by_loop.items())

    @staticmethod
    def _recompute_operands(v: ir.Value) -> list[ir.Value]:
        assert isinstance(v, ir.Instruction)
        return [op for op in v.operands if not isinstance(op, ir.BasicBlock)]

    def _recomputable(self, v: ir.Value) -> bool:
        if not isinstance(v, ir.Instruction):
            return False
        if v.opcode in RECOMPUTE_OPCODES or is_cheap_intrinsic(v) or is_constant_division(v):
            return True
        if isinstance(v, ir.LoadInst) and not v.volatile and not v.is_atomic:
            return self.gu.load_is_stable(v)
        return False
