"""Counted reversal of simple natural loops (no per-iteration control data on the tape).

A loop ``L`` of the original function is *counted* when its header has exactly two
reachable predecessors, one outside the loop (``entering``, one edge) and one latch (one
edge). For such a loop:

* the forward pass has an ``i64`` canonical induction variable ``iv`` (0, 1, ...: the
  loop's own one when it already has an ``i64`` one, else a new header phi);
* every exit block ``X`` of ``L`` gets a phi ``exit.iv = [iv, exiting] ..., [0, others]``:
  the index of the last header execution. It is looked up in ``rev.X`` like any value
  (so it costs one tape slot per loop execution when ``X`` is itself inside a loop, and
  nothing otherwise) and stored into the loop's *counter* (an ``i64`` alloca in the entry
  block, promoted by SROA) before ``rev.X`` continues into the loop;
* ``rev.header`` leaves for ``rev.entering`` when ``counter == 0`` and otherwise
  decrements the counter and continues with ``rev.latch``: no predecessor index is
  pushed per iteration;
* inside the reverse of ``L`` the counter is the index of the iteration being reversed,
  so a header add-recurrence ``start + step * k`` (start and step available) is
  recomputed from it instead of being cached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.reverse.loop_snapshots import LoopSnapshots, Snapshot
from irgrad.ad.reverse.recompute import RECOMPUTE_OPCODES, is_constant_division
from irgrad.ad.reverse.recurrences import InvertibleRecurrences, Recurrence
from irgrad.analysis.loops import Loop, LoopInfo
from irgrad.analysis.trip_count import (
    InductionVariable,
    PointerInductionVariable,
    emit_trip_count,
    pointer_induction_variables,
)
from irgrad.ir.builder import IRBuilder
from irgrad.ir.cfg import successors
from irgrad.ir.dominators import DominatorTree, compute_idoms

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


class CountedLoop:
    def __init__(self, loop: Loop, entering: ir.BasicBlock, latch: ir.BasicBlock) -> None:
        self.loop = loop
        self.entering = entering
        self.latch = latch
        self.counter: ir.Value | None = None  # i64 alloca (new function's entry block)
        self.iv: ir.Value | None = None  # forward canonical i64 IV (header phi)
        self.exit_phis: dict[ir.BasicBlock, ir.PHINode] = {}  # orig exit block -> phi
        # orig header phi -> recurrence (integer counters and pointers walking arrays)
        self.ivs: dict[ir.Value, InductionVariable | PointerInductionVariable] = {}


def _edges(src: ir.BasicBlock, dst: ir.BasicBlock) -> int:
    term = src.terminator
    return 0 if term is None else sum(1 for op in term.operands if op is dst)


class LoopCounters:
    """The counted loops of one reverse-mode synthesis."""

    def __init__(self, gu: GradientUtils) -> None:
        self.gu = gu
        self.by_header: dict[ir.BasicBlock, CountedLoop] = {}
        self.by_exit: dict[ir.BasicBlock, list[CountedLoop]] = {}
        self._iv_owner: dict[ir.Value, CountedLoop] = {}  # new header phi -> its loop
        self.info: LoopInfo | None = None
        self._reservable: dict[Loop, bool] = {}
        self._single_exit: dict[Loop, ir.BasicBlock | None] = {}
        self._exit_values: dict[tuple[ir.BasicBlock, ir.Value], ir.PHINode] = {}
        self._ipdom: dict[ir.BasicBlock, ir.BasicBlock | None] | None = None
        self.recurrences: InvertibleRecurrences | None = None
        self.snapshots: LoopSnapshots | None = None
        self.dt: DominatorTree | None = None

    # -- analysis + forward pass ---------------------------------------------------------
    def setup(self, live: list[ir.BasicBlock]) -> None:
        """Pick the counted loops and add their forward IVs and exit phis."""
        gu = self.gu
        if not any(b in gu.in_cycle for b in live):
            return
        # an exit into a dead end (an error branch calling exit()) never reaches the
        # reverse pass: trip counts and hoisting look at the returning exits only
        dt = self.dt = DominatorTree(gu.orig)
        info = self.info = LoopInfo(gu.orig, dt, returning_exits=True)
        self.recurrences = InvertibleRecurrences(self, dt)
        self.snapshots = LoopSnapshots(self)
        live_set = set(live)
        for loop in info:
            cl = self._counted(loop, live_set)
            if cl is None:
                continue
            self.by_header[loop.header] = cl
            for iv in [*loop.induction_variables(), *pointer_induction_variables(loop)]:
                cl.ivs[iv.phi] = iv
                self._iv_owner[gu.primal(iv.phi)] = cl
            self._forward(cl)

    def _counted(self, loop: Loop, live: set[ir.BasicBlock]) -> CountedLoop | None:
        gu = self.gu
        if loop.header not in live or len(loop.latches) != 1:
            return None
        latch = loop.latches[0]
        preds = [p for p in loop.header.predecessors() if p in gu.reachable]
        outside = [p for p in preds if p not in loop.blocks]
        if len(outside) != 1 or len(preds) != 2 or latch not in preds:
            return None
        if _edges(outside[0], loop.header) != 1 or _edges(latch, loop.header) != 1:
            return None
        return CountedLoop(loop, outside[0], latch)

    def _forward(self, cl: CountedLoop) -> None:
        gu = self.gu
        loop = cl.loop
        canon = loop.canonical_iv()
        if canon is not None and canon.type == ir.i64:
            cl.iv = gu.primal(canon)
        else:
            phi = ir.PHINode(ir.i64, name=gu.fresh("iv"))
            gu.forward_block(loop.header).insert(0, phi)
            latch_fwd = gu.forward_block(cl.latch)
            term = latch_fwd.terminator
            assert term is not None
            nxt = IRBuilder(position=term).add(phi, ir.ConstantInt(ir.i64, 1),
                                               name=gu.fresh("iv.next"))
            phi.add_incoming(ir.ConstantInt(ir.i64, 0), gu.forward_block(cl.entering))
            phi.add_incoming(nxt, latch_fwd)
            cl.iv = phi
        b = gu.entry_builder()
        cl.counter = b.alloca(ir.i64, name=gu.fresh("counter"))
        for x in loop.exit_blocks:
            if x not in gu.reachable:
                continue
            phi = ir.PHINode(ir.i64, name=gu.fresh("exit.iv"))
            for p in x.predecessors():
                if p not in gu.reachable:
                    continue
                v = cl.iv if p in loop.blocks else ir.ConstantInt(ir.i64, 0)
                for _ in range(_edges(p, x)):
                    phi.add_incoming(v, gu.forward_block(p))
            gu.forward_block(x).insert(0, phi)
            cl.exit_phis[x] = phi
            self.by_exit.setdefault(x, []).append(cl)

    # -- reverse pass ------------------------------------------------------------------
    def is_counted_header(self, bb: ir.BasicBlock) -> bool:
        return bb in self.by_header

    def set_counters_on_exit(self, x: ir.BasicBlock, b: IRBuilder) -> None:
        """In ``rev.X``: each counted loop exiting to X restarts at its last iteration."""
        for cl in self.by_exit.get(x, ()):
            last = self._last_index(cl, x)
            if last is None:
                last = self.gu.lookup(cl.exit_phis[x], x)
            assert cl.counter is not None
            b.store(last, cl.counter)
        if self.recurrences is not None:
            self.recurrences.on_exit(x, b)

    def header_pred_index(self, header: ir.BasicBlock, preds: list[ir.BasicBlock],
                          b: IRBuilder) -> ir.Value:
        """``counter == 0 ? entering : latch`` as an index into ``preds``; decrements."""
        cl = self.by_header[header]
        assert cl.counter is not None
        c = b.load(ir.i64, cl.counter, name=self.gu.fresh("count"))
        first = b.icmp("eq", c, ir.ConstantInt(ir.i64, 0), name=self.gu.fresh("first"))
        k = b.sub(c, ir.ConstantInt(ir.i64, 1))
        b.store(k, cl.counter)
        if self.recurrences is not None:  # loop-carried values of iteration k
            self.recurrences.on_header(cl, k, first, b)
        k_in = preds.index(cl.entering)
        k_latch = preds.index(cl.latch)
        return b.select(first, ir.ConstantInt(ir.i32, k_in), ir.ConstantInt(ir.i32, k_latch))

    # -- loop-invariant lookups ------------------------------------------------------------
    def _hoist_exit(self, loop: Loop) -> ir.BasicBlock | None:
        """The one exit block of ``loop`` (reaching a return), or None. Every path out of
        the loop passes it, so its reverse block runs right before the loop's reverse (at
        least once per execution of the loop) and dominates the reverse of the loop."""
        if loop in self._single_exit:
            return self._single_exit[loop]
        gu = self.gu
        exits = [x for x in loop.returning_exit_blocks if x in gu.reachable]
        x = exits[0] if len(exits) == 1 and exits[0] in gu.rev_head else None
        self._single_exit[loop] = x
        return x

    def hoist(self, v: ir.Value, orig_block: ir.BasicBlock
              ) -> tuple[ir.Value, ir.BasicBlock]:
        """Where a lookup of forward value ``v`` needed in ``rev.<orig_block>`` is best
        made: at the exit of the outermost loop around ``orig_block`` that ``v`` is
        invariant in (one tape slot or recomputation per loop execution instead of per
        iteration), else ``orig_block`` itself. When ``v`` does not dominate that exit
        (the exit is also reached by a path that skips the loop) and cannot simply be
        recomputed there (:meth:`_speculatable`), the value looked up is a phi added at
        the exit: ``v`` from the blocks it reaches (the loop's among them), poison from
        the paths that skip it (the reverse enters the loop only when it came out of
        it)."""
        if self.info is None or not isinstance(v, ir.Instruction) or v.parent is None:
            return v, orig_block
        home = self.gu.block_of_new.get(v.parent)
        if home is None:
            return v, orig_block
        block = orig_block
        loop = self.info.loop_for(block)
        while loop is not None and not loop.contains(home):
            x = self._hoist_exit(loop)
            if x is None:
                break
            if home not in self.gu.dom.get(x, ()) and not self._speculatable(v, 0, x):
                v = self.exit_value(x, v, home)
                home = x
            block = x
            loop = self.info.loop_for(x)
        return v, block

    def later_cache_blocks(self, v: ir.Instruction, orig_block: ir.BasicBlock
                           ) -> list[ir.BasicBlock]:
        """Blocks whose lookup of ``v`` also serves ``rev.<orig_block>``: the chain of
        post-dominators of ``orig_block`` within one iteration of its loop (back edges
        cut; paths into blocks that never return do not count; past the loops nested in
        it), in the same loop, that ``v`` dominates. Every returning path from
        ``orig_block`` runs each of them before its iteration ends, so their reverse
        blocks dominate ``rev.<orig_block>``: a value they already popped or recomputed
        at their head needs no slot of its own here (a value used before and after an
        error check, in both arms of an ``if`` and after it)."""
        gu = self.gu
        home = gu.block_of_new.get(v.parent) if v.parent is not None else None
        if home is None:
            return []
        if self._ipdom is None:
            self._ipdom = self._iteration_post_dominators()
        loop = self.loop_of(orig_block)
        out: list[ir.BasicBlock] = []
        nxt = self._ipdom.get(orig_block)
        while nxt is not None:
            if self._nested_in(self.loop_of(nxt), loop):
                nxt = self._ipdom.get(nxt)  # past a loop nested here, to where it leaves
                continue
            if self.loop_of(nxt) is not loop or (loop is not None and loop.header is nxt):
                break
            if home not in gu.dom.get(nxt, ()):
                break
            out.append(nxt)
            nxt = self._ipdom.get(nxt)
        return out

    @staticmethod
    def _nested_in(inner: Loop | None, outer: Loop | None) -> bool:
        """Is ``inner`` a loop strictly inside ``outer`` (None: the function body)?"""
        return inner is not None and inner is not outer and (
            outer is None or outer.contains(inner))

    def _iteration_post_dominators(self) -> dict[ir.BasicBlock, ir.BasicBlock | None]:
        """Immediate post-dominators among the blocks that reach a return, with every
        loop's back edges cut (so one never reaches into the next iteration)."""
        live = set(self.gu.rev_head)
        info = self.info

        def back(src: ir.BasicBlock, dst: ir.BasicBlock) -> bool:
            loop = info.loop_for(dst) if info is not None else None
            return loop is not None and loop.header is dst and loop.contains(src)

        def succs(b: ir.BasicBlock) -> list[ir.BasicBlock]:
            return [s for s in dict.fromkeys(successors(b)) if s in live and not back(b, s)]

        def preds(b: ir.BasicBlock) -> list[ir.BasicBlock]:
            return [p for p in dict.fromkeys(b.predecessors())
                    if p in live and not back(p, b)]

        roots = [b for b in self.gu.orig.blocks if b in live and not succs(b)]
        _, idom = compute_idoms(roots, preds, succs)
        return idom

    def _speculatable(self, v: ir.Value, depth: int, block: ir.BasicBlock) -> bool:
        """``v`` can be recomputed in ``rev.<block>`` whether or not the forward pass
        computed it: cheap pure instructions that cannot trap (no loads, no divisions)
        down to values usable everywhere and induction variables of the counted loops
        around ``block`` (recomputed from their reverse counters)."""

        if not isinstance(v, ir.Instruction) or self.gu.planner.is_available(v):
            return True
        if isinstance(v, ir.PHINode):
            return self.recomputable_iv(v, block)
        if depth > 4 or (v.opcode not in RECOMPUTE_OPCODES and not is_constant_division(v)):
            return False
        return all(self._speculatable(op, depth + 1, block) for op in v.operands
                   if not isinstance(op, ir.BasicBlock))

    def exit_value(self, x: ir.BasicBlock, v: ir.Instruction, home: ir.BasicBlock
                   ) -> ir.Value:
        """``v`` at exit block ``x``: ``v`` on every edge from a block ``v``'s block
        ``home`` dominates, poison on the others. One phi serves every loop that leaves
        through ``x`` (several loops may share an exit: a vectorized loop, its remainder
        loop and the paths that skip them), since each loop's blocks are dominated by
        ``home``."""
        key = (x, v)
        got = self._exit_values.get(key)
        if got is None:
            gu = self.gu
            phi = ir.PHINode(v.type, name=gu.fresh((v.name or "v") + ".exit"))
            for p in x.predecessors():
                if p not in gu.reachable:
                    continue
                val = v if home in gu.dom.get(p, ()) else ir.PoisonValue(v.type)
                for _ in range(_edges(p, x)):
                    phi.add_incoming(val, gu.forward_block(p))
            gu.forward_block(x).insert(0, phi)
            got = self._exit_values[key] = phi
        return got

    def _recurrence(self, v: ir.Value
                    ) -> tuple[CountedLoop, InductionVariable | PointerInductionVariable,
                               ir.Value] | None:
        """The counted loop, recurrence and forward start value of ``v``: a header
        add-recurrence, or the shadow of a pointer one (the shadow walks its array with
        the primal's steps from the shadow of the primal's start)."""
        gu = self.gu
        cl = self._iv_owner.get(v)
        if cl is not None:
            iv = cl.ivs.get(gu.orig_of_new.get(v))  # type: ignore[arg-type]
            return None if iv is None else (cl, iv, gu.primal(iv.start))
        primal = gu.shadow_primal.get(v)
        cl = self._iv_owner.get(primal) if primal is not None else None
        if cl is None or not isinstance(v, ir.PHINode) or not isinstance(primal, ir.PHINode):
            return None
        iv = cl.ivs.get(gu.orig_of_new.get(primal))  # type: ignore[arg-type]
        if not isinstance(iv, PointerInductionVariable):
            return None
        back_edges = {bb for val, bb in primal.incoming if val is gu.primal(iv.increment)}
        starts = {id(val): val for val, bb in v.incoming if bb not in back_edges}
        backs = {id(val) for val, bb in v.incoming if bb in back_edges}
        if len(starts) != 1 or backs != {id(gu.shadow.get(iv.increment))}:
            return None
        return cl, iv, next(iter(starts.values()))

    def recurrence(self, v: ir.Value, orig_block: ir.BasicBlock) -> Recurrence | None:
        """``v``'s invertible recurrence when ``orig_block`` is in its loop (see
        :mod:`irgrad.ad.reverse.recurrences`): recovered backwards, not taped."""
        if self.recurrences is None or not isinstance(v, ir.PHINode):
            return None
        return self.recurrences.find(v, orig_block)

    def snapshot(self, v: ir.Value, orig_block: ir.BasicBlock) -> Snapshot | None:
        """``v``'s copy taken before its outer loop when it is a load that reads the same
        range in every iteration of that loop (see :mod:`irgrad.ad.reverse.loop_snapshots`)."""
        if self.snapshots is None or not isinstance(v, ir.LoadInst):
            return None
        return self.snapshots.find(v, orig_block)

    def recomputable_iv(self, v: ir.Value, orig_block: ir.BasicBlock) -> bool:
        """Is ``v`` (forward value) a header add-recurrence of a counted loop around
        ``orig_block`` (or a pointer one's shadow) whose start and step are usable
        anywhere in the reverse pass?"""
        rec = self._recurrence(v)
        if rec is None:
            return False
        cl, iv, start = rec
        if not cl.loop.contains(orig_block):
            return False
        step = iv.index_step if isinstance(iv, PointerInductionVariable) else iv.step
        return self._outside_ok(cl, iv.start, start) and (
            step is None or isinstance(step, int)
            or self._outside_ok(cl, step, self.gu.primal(step)))

    def _outside_ok(self, cl: CountedLoop, v: ir.Value, new: ir.Value) -> bool:
        """``v`` (defined outside ``cl``'s loop; ``new`` its forward value or shadow) can
        be looked up inside its reverse: usable as is, or made once per loop execution
        at the loop's exit."""
        if self.gu.planner.is_available(new):
            return True
        return not cl.loop.contains(v) and self._hoist_exit(cl.loop) is not None

    def recompute_iv(self, v: ir.Value, orig_block: ir.BasicBlock) -> ir.Value:
        """``start + step * counter`` at the head of ``rev.<orig_block>``."""
        gu = self.gu
        rec = self._recurrence(v)
        assert rec is not None
        cl, iv, start_new = rec
        b = gu.head_builder(orig_block)
        assert cl.counter is not None
        k: ir.Value = b.load(ir.i64, cl.counter, name=gu.fresh("k"))
        if isinstance(iv, PointerInductionVariable):
            return self._recompute_pointer_iv(v, iv, start_new, k, b, orig_block)
        t = v.type
        assert isinstance(t, ir.IntType)
        if t.width < 64:
            k = b.trunc(k, t)
        elif t.width > 64:
            k = b.zext(k, t)
        step = iv.step
        if isinstance(step, int):
            scaled = k if step == 1 else b.mul(k, ir.ConstantInt(t, step))
        else:
            scaled = b.mul(k, gu.lookup(gu.primal(step), orig_block))
        start = gu.lookup(gu.primal(iv.start), orig_block)
        if isinstance(start, ir.ConstantInt) and start.value == 0:
            out = scaled
        else:
            out = b.add(start, scaled)
        if isinstance(out, ir.Instruction):
            out.name = gu.fresh((v.name or "iv") + ".re")
        return out

    def _recompute_pointer_iv(self, v: ir.Value, iv: PointerInductionVariable,
                              start_new: ir.Value, k: ir.Value, b: IRBuilder,
                              orig_block: ir.BasicBlock) -> ir.Value:
        """``start`` advanced by ``k`` steps (without the forward GEPs' flags)."""
        gu = self.gu
        start = gu.lookup(start_new, orig_block)
        name = gu.fresh((v.name or "p") + ".re")
        if iv.index_step is None:
            assert iv.byte_step is not None
            off = b.mul(k, ir.ConstantInt(ir.i64, iv.byte_step))
            return b.gep(ir.i8, start, [off], name=name)
        idx = gu.lookup(gu.primal(iv.index_step), orig_block)
        assert isinstance(idx.type, ir.IntType)
        if idx.type.width < 64:
            idx = b.sext(idx, ir.i64)
        elif idx.type.width > 64:
            idx = b.trunc(idx, ir.i64)
        return b.gep(iv.element, start, [b.mul(k, idx)], name=name)

    # -- trip counts -------------------------------------------------------------------
    def trip_count_usable(self, cl: CountedLoop) -> bool:
        """Is the trip count known when the loop is entered?"""
        return self._trip_count_usable(cl, available=False)

    def _trip_count_usable(self, cl: CountedLoop, available: bool) -> bool:
        """Is the trip count known at entry (and, if ``available``, computable anywhere in
        the reverse pass from start and bound)?"""
        tc = cl.loop.trip_count()
        if tc is None or not tc.is_known_at_entry(cl.loop):
            return False
        if not available:
            return True
        planner = self.gu.planner
        return all(planner.is_available(self.gu.primal(v)) for v in (tc.start, tc.bound))

    def _trip_count_at(self, cl: CountedLoop, x: ir.BasicBlock) -> bool:
        """Can the trip count be recomputed in ``rev.X`` (X an exit of the loop) from
        start and bound looked up there (their definitions dominate X)?"""
        if not self._trip_count_usable(cl, available=False):
            return False
        tc = cl.loop.trip_count()
        assert tc is not None
        dom = self.gu.dom.get(x, set())
        for v in (tc.start, tc.bound):
            if isinstance(v, ir.Instruction) and (v.parent not in dom or v.parent is x):
                return False
        return True

    def _last_index(self, cl: CountedLoop, x: ir.BasicBlock) -> ir.Value | None:
        """``trip_count - 1`` recomputed in ``rev.X`` (no tape for the loop's count, or
        one slot per execution of an outer loop that start or bound vary in)."""
        if not self._trip_count_at(cl, x):
            return None
        b = self.gu.head_builder(x)
        tc = emit_trip_count(_RemapBuilder(self.gu, b, x), cl.loop, self.gu.fresh("tc"))
        if tc is None:
            return None
        return b.sub(_to_i64(b, tc), ir.ConstantInt(ir.i64, 1))

    def reserve_root(self, orig_block: ir.BasicBlock) -> CountedLoop | None:
        """The outermost loop around ``orig_block`` whose whole nest can reserve its tape
        once at entry (see :meth:`fully_reservable`), or None."""
        if self.info is None:
            return None
        loop = self.info.loop_for(orig_block)
        root: CountedLoop | None = None
        while loop is not None:
            if self.fully_reservable(loop):
                root = self.by_header[loop.header]
            loop = loop.parent
        return root

    def fully_reservable(self, loop: Loop) -> bool:
        """``loop`` is counted with a trip count known at entry, and so is every loop
        nested in it, with their trip counts computable before ``loop`` (start and bound
        defined outside it) and entered at most once per iteration of their parent."""
        got = self._reservable.get(loop)
        if got is None:
            got = self._reservable[loop] = self._check_reservable(loop, loop)
        return got

    def _check_reservable(self, loop: Loop, root: Loop) -> bool:
        cl = self.by_header.get(loop.header)
        if cl is None or not self._trip_count_usable(cl, available=False):
            return False
        if loop is not root:
            tc = loop.trip_count()
            assert tc is not None
            if not (root.is_invariant(tc.start) and root.is_invariant(tc.bound)):
                return False
            assert self.info is not None
            if self.info.loop_for(cl.entering) is not loop.parent:
                return False
        return all(self._check_reservable(sub, root) for sub in loop.subloops)

    def loop_of(self, orig_block: ir.BasicBlock) -> Loop | None:
        return None if self.info is None else self.info.loop_for(orig_block)

    def emit_trip_count_with(self, cl: CountedLoop, b: IRBuilder) -> ir.Value | None:
        """The trip count as ``i64`` at ``b`` (a forward point dominated by the entry)."""
        tc = emit_trip_count(_RemapBuilder(self.gu, b), cl.loop, self.gu.fresh("tc"))
        return None if tc is None else _to_i64(b, tc)


def _to_i64(b: IRBuilder, v: ir.Value) -> ir.Value:
    t = v.type
    assert isinstance(t, ir.IntType)
    if t.width < 64:
        return b.zext(v, ir.i64)
    if t.width > 64:
        return b.trunc(v, ir.i64)
    return v


class _RemapBuilder:
    """Inserts instructions built on original values, with operands mapped to the forward
    (cloned) values."""

    def __init__(self, gu: GradientUtils, b: IRBuilder,
                 rev_block: ir.BasicBlock | None = None) -> None:
        self.gu = gu
        self.b = b
        self.rev_block = rev_block  # set: operands are looked up in rev.<rev_block>

    def insert(self, inst: ir.Instruction, name: str | None = None) -> ir.Instruction:
        for k, op in enumerate(inst.operands):
            mapped = self.gu.primal(op)
            if self.rev_block is not None:
                mapped = self.gu.lookup(mapped, self.rev_block)
            if mapped is not op:
                inst.set_operand(k, mapped)
        return self.b.insert(inst, self.gu.fresh(name or "tc"))
