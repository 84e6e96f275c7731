"""Arrays read the same way in every iteration of an outer loop, copied once before it.

In ``for i { for j { s += a[i][j] * x[j]; } y[i] = s; }`` the load ``x[j]`` reads the
same ``n`` values in every iteration of the ``i`` loop. When something overwrites ``x``
after the nest (a solver's search direction, the next stage of a time step), the load
cannot be re-read in the reverse pass, and taping it costs ``n`` values per iteration
of ``i``: ``n^2`` per execution of the nest, for ``n`` distinct values.

A load ``L`` is *snapshot* when

* its innermost loop ``J`` and ``J``'s parent ``I`` are counted loops, each left only
  through its latch, ``L`` runs in every iteration of ``J`` and ``J`` is entered in every
  iteration of ``I`` (so the whole range below is read, in the first iteration of ``I``
  already);
* ``L`` reads ``base[iv]`` (one-index GEP; ``iv`` an induction variable of ``J`` with a
  positive constant step, possibly sign- or zero-extended without wrapping), or a field
  at a constant offset into that element (``p[j].y``), with ``base``, the start of
  ``iv`` and ``J``'s trip count defined outside ``I``;
* nothing in ``I`` may write the memory ``L`` reads: in an array of structs, stores to
  other fields (``p[i].ax += ...`` while ``p[j].x`` is read) do not count.

The forward pass then copies the range ``L`` reads at the end of ``I``'s preheader, once
per execution of ``I`` (the loads of one range, such as several fields of the same
elements, share the copy): onto the tape when ``I`` is outermost (a block of run-time
size pushed onto the byte stack, no ``malloc``), else into a ``malloc`` (see
:meth:`LoopSnapshots._copy`). The reverse of iteration ``k`` of ``J`` reads element
``k * step`` of it (at the field's offset); the head of the preheader's reverse, which
runs once the reverse of ``I`` is done, pops or frees it. The stack may move while the
forward pass grows it, so the forward pass keeps a block's offset; the reverse pass turns
it into an address once, where it looks the offset up (ahead of the reverse of ``I``,
hoisted out of the loops it is invariant in), not in every iteration of ``J``: the stack
does not move during the reverse pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.function_pointers import gep_constant_offset
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.loops import Loop
from irgrad.analysis.trip_count import InductionVariable
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.loops import CountedLoop, LoopCounters
    from irgrad.analysis.memory_writes import MemoryWrites


@dataclass
class Snapshot:
    """The copy of the range one load reads (original function's values)."""

    outer: CountedLoop  # I: copied at the end of its preheader
    inner: CountedLoop  # J: the load's loop
    load: ir.LoadInst
    element: ir.Type  # the GEP's source element type
    base: ir.Value
    iv: InductionVariable
    step: int
    extend: str | None  # "sext" / "zext" of the induction variable, or None
    offset: int  # bytes into the element (a struct field's), 0 for the element itself
    # the copy (made on first use): its offset on the tape, or a malloc'd pointer
    buffer: ir.Value | None = None
    on_tape: bool = True


class LoopSnapshots:
    """The snapshot loads of one reverse-mode synthesis."""

    def __init__(self, loops: LoopCounters) -> None:
        self.loops = loops
        self.gu = loops.gu
        self._found: dict[ir.LoadInst, Snapshot | None] = {}
        # one copy per range: the fields of one array of structs (p[j].x, p[j].y) share it
        self._copies: dict[tuple[object, ...], tuple[ir.Value, bool]] = {}
        # a copy's address in the reverse pass, by (reverse block, offset)
        self._addresses: dict[tuple[ir.BasicBlock, ir.Value], ir.Value] = {}

    def find(self, v: ir.Value, orig_block: ir.BasicBlock) -> Snapshot | None:
        """The snapshot of forward load ``v`` when it is one and ``orig_block`` (where it
        is needed) lies in its loop."""
        gu = self.gu
        orig = gu.orig_of_new.get(v)
        if not isinstance(orig, ir.LoadInst) or v is not gu.primal(orig):
            return None
        if orig not in self._found:
            self._found[orig] = self._analyze(orig)
        snap = self._found[orig]
        if snap is None or not snap.inner.loop.contains(orig_block):
            return None
        return snap

    def copies(self) -> list[Snapshot]:
        """One snapshot per copy made (the loads sharing a copy give the first)."""
        seen: set[int] = set()
        out: list[Snapshot] = []
        for snap in self._found.values():
            if snap is not None and snap.buffer is not None and id(snap.buffer) not in seen:
                seen.add(id(snap.buffer))
                out.append(snap)
        return out

    # -- analysis -----------------------------------------------------------------------
    def _analyze(self, load: ir.LoadInst) -> Snapshot | None:
        loops, gu = self.loops, self.gu
        if load.volatile or load.is_atomic or load.parent is None or loops.info is None \
                or loops.dt is None:
            return None
        inner_loop = loops.info.loop_for(load.parent)
        outer_loop = inner_loop.parent if inner_loop is not None else None
        if inner_loop is None or outer_loop is None:
            return None
        inner = loops.by_header.get(inner_loop.header)
        outer = loops.by_header.get(outer_loop.header)
        if inner is None or outer is None:
            return None
        dt = loops.dt
        if not (_only_latch_exits(inner_loop, inner.latch) and
                _only_latch_exits(outer_loop, outer.latch) and
                dt.dominates(load.parent, inner.latch) and
                dt.dominates(inner.entering, outer.latch) and
                loops.info.loop_for(inner.entering) is outer_loop):
            return None
        access = self._access(load, inner, outer_loop)
        if access is None:
            return None
        element, base, iv, step, extend, offset = access
        tc = inner_loop.trip_count()
        if tc is None or not loops.trip_count_usable(inner) or \
                not all(outer_loop.is_invariant(v) for v in (tc.start, tc.bound)):
            return None
        if gu.memory_writes.may_be_written_in(
                load.pointer, outer_loop.blocks, tbaa=load.get_metadata("tbaa"),
                apart=lambda w: self._other_buffer(w, base, outer_loop),
                size=alloc_size(load.type)):
            return None
        return Snapshot(outer, inner, load, element, base, iv, step, extend, offset)

    def _other_buffer(self, write: ir.Instruction, base: ir.Value, outer_loop: Loop) -> bool:
        """Does ``write`` store through the other buffer of a pair swapped by a loop
        around ``outer_loop`` (``t = cur; cur = nxt; nxt = t;``: in any one iteration of
        that loop the two are different allocations), while the load reads ``base``?"""
        if not isinstance(write, ir.StoreInst):
            return False
        mine, other = _root_phi(base), _root_phi(write.pointer)
        if mine is None or other is None or mine is other or mine.parent is None:
            return False
        assert self.loops.info is not None
        swap_loop = self.loops.info.loop_for(mine.parent)
        if swap_loop is None or swap_loop.header is not mine.parent or \
                swap_loop is outer_loop or not swap_loop.contains(outer_loop):
            return False
        return _swapped(mine, other, self.gu.memory_writes)

    def _access(self, load: ir.LoadInst, inner: CountedLoop, outer_loop: Loop
                ) -> tuple[ir.Type, ir.Value, InductionVariable, int, str | None, int] | None:
        """``load`` as ``base[ext(iv)]`` plus a constant byte offset into the element (see
        the module docstring), or None."""
        gep, offset = _field_of(load.pointer)
        if not isinstance(gep, ir.GetElementPtrInst) or len(gep.indices) != 1 or \
                isinstance(gep.type, ir.VectorType) or not outer_loop.is_invariant(gep.pointer):
            return None
        if offset < 0 or offset + alloc_size(load.type) > alloc_size(gep.source_type):
            return None  # not within one element
        idx = gep.indices[0]
        extend: str | None = None
        if isinstance(idx, ir.CastInst) and idx.opcode in ("sext", "zext"):
            extend = idx.opcode
            idx = idx.value
        iv = inner.ivs.get(idx)
        if not isinstance(iv, InductionVariable) or not isinstance(iv.step, int) or \
                iv.step <= 0 or not outer_loop.is_invariant(iv.start):
            return None
        if extend is not None and ("nsw" if extend == "sext" else "nuw") not in iv.increment.flags:
            return None  # the narrow counter could wrap: its extension would not be affine
        return gep.source_type, gep.pointer, iv, iv.step, extend, offset

    # -- forward and reverse ------------------------------------------------------------
    def value(self, snap: Snapshot, orig_block: ir.BasicBlock) -> ir.Value:
        """The load's value in the iteration of ``J`` being reversed, at
        ``rev.<orig_block>``: element ``k * step`` of the copy."""
        gu = self.gu
        fresh = False  # the copy is made here (its malloc's free is emitted below)
        if snap.buffer is None:
            key = (snap.outer.entering, snap.inner.loop.header, snap.base, snap.iv.phi,
                   snap.element, snap.step, snap.extend)
            fresh = key not in self._copies
            if fresh:
                self._copy(snap)
                assert snap.buffer is not None
                self._copies[key] = (snap.buffer, snap.on_tape)
            snap.buffer, snap.on_tape = self._copies[key]
        assert snap.buffer is not None and snap.inner.counter is not None
        if snap.on_tape:
            buf = self._address(snap.buffer, orig_block)
        else:
            buf = gu.lookup(snap.buffer, orig_block)
            if fresh:
                # freed by the preheader's reverse, which the reverse of the outer loop's
                # exit dominates: looked up after the copy's address, the pointer takes
                # one tape slot for both
                free = gu.libc("free", ir.FunctionType(ir.void, [ir.ptr]))
                entering = snap.outer.entering
                gu.head_builder(entering).call(free, [gu.lookup(snap.buffer, entering)])
        b = gu.head_builder(orig_block)
        k = b.load(ir.i64, snap.inner.counter, name=gu.fresh("k"))
        at = k if snap.step == 1 else b.mul(k, ir.ConstantInt(ir.i64, snap.step))
        slot = b.gep(snap.element, buf, [at], name=gu.fresh("snap.at"))
        if snap.offset:
            slot = b.gep(ir.i8, slot, [ir.ConstantInt(ir.i64, snap.offset)])
        return b.load(snap.load.type, slot, name=gu.fresh((snap.load.name or "v") + ".snap"))

    def _address(self, offset: ir.Value, orig_block: ir.BasicBlock) -> ir.Value:
        """The copy at tape ``offset`` (a forward value), addressed in the reverse pass
        of ``orig_block``: computed once at the head of the reverse block where the
        offset's lookup is hoisted to (out of the loops it is invariant in)."""
        gu = self.gu
        # (the offset itself, or a phi of it at the loop's exit when the exit is reached
        # by paths that skip the loop too)
        hoisted, at = gu.loops.hoist(offset, orig_block)
        got = self._addresses.get((at, hoisted))
        if got is None:
            looked_up = gu.lookup(hoisted, at)
            got = gu.ensure_tape().block_address(gu.head_builder(at), looked_up)
            self._addresses[(at, hoisted)] = got
        return got

    def _copy(self, snap: Snapshot) -> None:
        """Forward: copy the range onto the tape at the end of ``I``'s preheader; the
        preheader's reverse pops it (:meth:`Tape.push_block`). When the preheader is in
        a loop itself: a malloc, freed by the preheader's reverse."""
        gu = self.gu
        entering = snap.outer.entering
        term = gu.forward_block(entering).terminator
        assert term is not None
        b = IRBuilder(position=term)
        tc = self.loops.emit_trip_count_with(snap.inner, b)
        assert tc is not None
        size = alloc_size(snap.element)
        zero = ir.ConstantInt(ir.i64, 0)
        last = b.mul(b.sub(tc, ir.ConstantInt(ir.i64, 1)), ir.ConstantInt(ir.i64, snap.step))
        count = b.add(last, ir.ConstantInt(ir.i64, 1))
        positive = b.icmp("sgt", tc, zero)
        nbytes = b.select(positive, b.mul(count, ir.ConstantInt(ir.i64, size)), zero)
        # on the tape when the outer loop is outermost (a callback's product, once per
        # call); inside a loop, a malloc freed by the preheader's reverse. On the tape
        # there, LULESH mini's gradient was 40% slower with glibc's default settings and
        # as fast with its heap trimming off (GLIBC_TUNABLES=glibc.malloc.trim_threshold=
        # 268435456): 17x the brk calls, twice the page faults -- the malloc'd copies
        # happen to keep the heap's top in use while the cycle's blocks come and go
        snap.on_tape = self.loops.loop_of(entering) is None
        if snap.on_tape:
            buf, kept = gu.ensure_tape().push_block(entering, b, nbytes, name="snap")
        else:
            malloc = gu.libc("malloc", ir.FunctionType(ir.ptr, [ir.i64]))
            buf = kept = b.call(malloc, [nbytes], name=gu.fresh("snap"))
        start = gu.primal(snap.iv.start)
        if snap.extend == "sext":
            start = b.sext(start, ir.i64)
        elif snap.extend == "zext":
            start = b.zext(start, ir.i64)
        first = b.gep(snap.element, gu.primal(snap.base), [start])
        # the intrinsic, not libc's memcpy: a derivative differentiated again (a Hessian
        # by forward over reverse) copies the tangents with it
        b.memcpy(buf, first, nbytes)
        snap.buffer = kept


def _field_of(ptr: ir.Value) -> tuple[ir.Value, int]:
    """``ptr`` as (an element's address, constant byte offset into it): one GEP with
    constant indices on top of the element's GEP is looked through (``p[j].y`` is
    ``getelementptr i8, (getelementptr %body, p, j), 8`` after LLVM's canonicalization)."""
    if isinstance(ptr, ir.GetElementPtrInst) and isinstance(ptr.pointer, ir.GetElementPtrInst):
        offset = gep_constant_offset(ptr.source_type, list(ptr.indices))
        if offset is not None:
            return ptr.pointer, offset
    return ptr, 0


def _root_phi(ptr: ir.Value) -> ir.PHINode | None:
    """The phi a pointer is based on through GEPs and pointer casts, if any."""
    for _ in range(16):
        if isinstance(ptr, ir.GetElementPtrInst):
            ptr = ptr.pointer
        elif isinstance(ptr, ir.CastInst) and ptr.opcode in ("bitcast", "addrspacecast"):
            ptr = ptr.value
        else:
            break
    return ptr if isinstance(ptr, ir.PHINode) else None


def _swapped(a: ir.PHINode, b: ir.PHINode, writes: MemoryWrites) -> bool:
    """``a = [x, entry], [b, latch]`` and ``b = [y, entry], [a, latch]`` in one header,
    with ``x`` and ``y`` objects that cannot overlap: each iteration holds both, apart."""
    if a.parent is not b.parent or a.num_incoming != 2 or b.num_incoming != 2:
        return False
    starts: list[ir.Value] = []
    for phi, partner in ((a, b), (b, a)):
        swaps = [bb for v, bb in phi.incoming if v is partner]
        others = [(v, bb) for v, bb in phi.incoming if v is not partner]
        if len(swaps) != 1 or len(others) != 1:
            return False
        starts.append(others[0][0])
    return not writes.objects_may_overlap(starts[0], starts[1])


def _only_latch_exits(loop: Loop, latch: ir.BasicBlock) -> bool:
    """Every returning exit leaves from the latch: each header execution is a whole
    iteration."""
    return loop.returning_exiting_blocks == [latch]


__all__ = ["LoopSnapshots", "Snapshot"]
