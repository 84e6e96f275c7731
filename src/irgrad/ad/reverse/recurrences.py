"""Loop-carried values recovered backwards in the reverse loop (no tape per iteration).

A header phi ``p = [init, entering], [next, latch]`` of a counted loop whose update can be
undone -- ``next`` is ``p + d``, ``p - d``, ``d - p``, ``p ^ d``, ``-p`` (integer or
``fneg``), a ``getelementptr`` stepping ``p`` by ``d``, or a choice between such updates by
a ``select`` or a two-way phi whose condition is known -- is an *invertible recurrence*
when every ``d`` and condition is a function of the loop's induction variables, values
defined outside the loop and constants (pure, non-trapping operations). Conditional
counters (``if (j != c) minor[k++] = ...``), sign flips (``sign = -sign``) and pointers
bumped by a computed stride are such recurrences.

Instead of one tape slot per iteration, the reverse pass keeps ``p`` in a slot (an
alloca, promoted by SROA):

* ``rev.X`` of each exit ``X`` stores the value ``p`` had in the last header execution
  (a forward phi at ``X``: one tape slot per execution of the loop at most);
* ``rev.header``, when it continues with the previous iteration (the counter just
  decremented to its index ``k``), replaces the slot's ``p`` by ``next^-1(p)``, with the
  ``d`` and conditions of iteration ``k`` recomputed from ``k`` (in a block only that
  path runs);
* every reverse block of the iteration loads the slot.

The inverses are exact: integer arithmetic wraps, ``fneg`` only flips the sign bit, and a
``getelementptr`` by ``-d`` undoes one by ``d``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.reverse.recompute import is_constant_division
from irgrad.analysis.trip_count import InductionVariable
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import clone_with_operands
from irgrad.ir.dominators import DominatorTree

if TYPE_CHECKING:
    from irgrad.ad.reverse.loops import CountedLoop, LoopCounters

# pure operations that cannot trap, recomputed for an earlier iteration (no division)
_PURE = frozenset([
    "add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "trunc", "zext",
    "sext", "icmp", "select", "freeze", "getelementptr", "ptrtoint", "fcmp", "fneg",
    "fadd", "fsub", "fmul", "sitofp", "uitofp", "fpext", "fptrunc",
])  # fmt: skip
_MAX_DEPTH = 8


@dataclass
class Recurrence:
    """One invertible header phi of a counted loop (original function's values)."""

    cl: CountedLoop
    phi: ir.PHINode
    update: ir.Value  # the latch's incoming value
    slot: ir.Value | None = None  # alloca in the new function's entry (once used)
    exit_values: dict[ir.BasicBlock, ir.Value] = field(default_factory=dict)


class InvertibleRecurrences:
    """The invertible recurrences of one reverse-mode synthesis, made on first use."""

    def __init__(self, loops: LoopCounters, dt: DominatorTree) -> None:
        self.loops = loops
        self.gu = loops.gu
        self.dt = dt
        self._found: dict[ir.PHINode, Recurrence | None] = {}
        self._exits: dict[ir.BasicBlock, ir.BasicBlock] = {}  # orig exit -> rev block
        self._headers: dict[ir.BasicBlock, tuple[ir.BasicBlock, ir.Value]] = {}

    # -- analysis -------------------------------------------------------------------------
    def find(self, v: ir.Value, orig_block: ir.BasicBlock) -> Recurrence | None:
        """The recurrence of forward value ``v`` when it is one and ``orig_block`` lies
        in its loop."""
        gu = self.gu
        orig = gu.orig_of_new.get(v)
        if not isinstance(orig, ir.PHINode) or v is not gu.primal(orig):
            return None
        rec = self._recurrence_of(orig)
        if rec is None or not rec.cl.loop.contains(orig_block):
            return None
        return rec

    def _recurrence_of(self, phi: ir.PHINode) -> Recurrence | None:
        if phi not in self._found:
            self._found[phi] = self._analyze(phi)
        return self._found[phi]

    def _analyze(self, phi: ir.PHINode) -> Recurrence | None:
        cl = self.loops.by_header.get(phi.parent) if phi.parent is not None else None
        if cl is None or phi.num_incoming != 2 or cl.loop.header is not phi.parent:
            return None
        if cl.ivs.get(phi) is not None:
            return None  # an add-recurrence: recomputed from the counter
        update = phi.incoming_value_for(cl.latch)
        if update is None or not self._invertible(update, phi, cl, 0):
            return None
        return Recurrence(cl, phi, update)

    def _invertible(self, e: ir.Value, phi: ir.PHINode, cl: CountedLoop, depth: int) -> bool:
        """Can ``phi`` be recovered from the value of ``e`` (an update of it)?"""
        if e is phi:
            return True
        if depth > _MAX_DEPTH or not isinstance(e, ir.Instruction) or \
                not cl.loop.contains(e.parent):
            return False
        got = _step(e, phi)
        if got is not None:
            inner, operands = got
            return self._invertible(inner, phi, cl, depth + 1) and all(
                self._evaluable(d, cl, depth + 1) for d in operands)
        choice = self._choice(e, cl)
        if choice is not None:
            cond, a, b = choice
            return (self._evaluable(cond, cl, depth + 1)
                    and self._invertible(a, phi, cl, depth + 1)
                    and self._invertible(b, phi, cl, depth + 1))
        return False

    def _choice(self, e: ir.Instruction, cl: CountedLoop
                ) -> tuple[ir.Value, ir.Value, ir.Value] | None:
        """``e`` as ``cond ? a : b``: a select, or a phi of two edges in the loop whose
        choice is the branch of the block that immediately dominates it."""
        if isinstance(e, ir.SelectInst):
            return e.operands[0], e.operands[1], e.operands[2]
        if not isinstance(e, ir.PHINode) or e.num_incoming != 2 or e.parent is None:
            return None
        join = e.parent
        if join is cl.loop.header or self.loops.loop_of(join) is not cl.loop:
            return None
        d = self.dt.idom(join)
        term = d.terminator if d is not None else None
        if not isinstance(term, ir.BranchInst) or not term.is_conditional:
            return None
        t, f = term.true_dest, term.false_dest
        sides: dict[bool, ir.Value] = {}
        for val, p in e.incoming:
            if p is d:
                if t is join and f is not join:
                    side = True
                elif f is join and t is not join:
                    side = False
                else:
                    return None
            elif t is not join and self.dt.dominates(t, p):
                side = True
            elif f is not join and f is not None and self.dt.dominates(f, p):
                side = False
            else:
                return None
            if side in sides:
                return None
            sides[side] = val
        cond = term.condition
        assert cond is not None
        return cond, sides[True], sides[False]

    def _evaluable(self, e: ir.Value, cl: CountedLoop, depth: int) -> bool:
        """Is ``e`` computable in ``rev.header`` for any iteration, given its index?"""
        if isinstance(e, ir.Constant | ir.Argument):
            return True
        if not isinstance(e, ir.Instruction) or e.parent is None:
            return False
        gu = self.gu
        if not cl.loop.contains(e.parent):
            return self.loops._outside_ok(cl, e, gu.primal(e))
        iv = cl.ivs.get(e)
        if isinstance(e, ir.PHINode):
            return isinstance(iv, InductionVariable) and e.parent is cl.loop.header and \
                self.loops.recomputable_iv(gu.primal(e), cl.loop.header)
        if depth > _MAX_DEPTH or self.loops.loop_of(e.parent) is not cl.loop:
            return False
        if isinstance(e, ir.LoadInst):
            # re-read for an earlier iteration: memory nothing overwrites, read by a block
            # that every iteration runs (so the address was valid in each of them)
            if e.volatile or e.is_atomic or not self.dt.dominates(e.parent, cl.latch) or \
                    not gu.load_is_stable(gu.primal(e)):  # type: ignore[arg-type]
                return False
        elif e.opcode not in _PURE and not is_constant_division(e):
            return False
        return all(self._evaluable(op, cl, depth + 1) for op in e.operands
                   if not isinstance(op, ir.BasicBlock))

    # -- reverse pass -----------------------------------------------------------------------
    def recover(self, rec: Recurrence, orig_block: ir.BasicBlock) -> ir.Value:
        """The recurrence's value in the iteration being reversed, at ``rev.<orig_block>``."""
        gu = self.gu
        if rec.slot is None:
            self._activate(rec)
        assert rec.slot is not None
        b = gu.head_builder(orig_block)
        return b.load(rec.phi.type, rec.slot, name=gu.fresh((rec.phi.name or "rec") + ".re"))

    def _activate(self, rec: Recurrence) -> None:
        gu = self.gu
        rec.slot = gu.entry_builder().alloca(rec.phi.type, name=gu.fresh("rec"))
        new_phi = gu.primal(rec.phi)
        assert isinstance(new_phi, ir.Instruction)
        loop = rec.cl.loop
        for x in rec.cl.exit_phis:  # the reachable exits
            # the value of the last header execution (the phi from the loop's blocks)
            rec.exit_values[x] = self.loops.exit_value(x, new_phi, loop.header)
            done = self._exits.get(x)
            if done is not None:  # rev.X already continues into the loop
                self._store_exit(rec, x, _before_terminator(done))
        header = self._headers.get(loop.header)
        if header is not None:
            blk, k = header
            self._step_back(rec, k, _before_terminator(blk))

    def on_exit(self, x: ir.BasicBlock, b: IRBuilder) -> None:
        """In ``rev.X`` before it continues into the loops it leaves."""
        assert b.insert_block is not None
        self._exits[x] = b.insert_block
        for rec in self._found.values():
            if rec is not None and rec.slot is not None and x in rec.exit_values:
                self._store_exit(rec, x, b)

    def on_header(self, cl: CountedLoop, k: ir.Value, first: ir.Value, b: IRBuilder) -> None:
        """In ``rev.header`` once the counter holds ``k``, the index of the iteration the
        reverse continues with (``first``: it leaves the loop instead). The updates are
        undone in a block of their own that only the path back into the loop runs (a
        load of iteration ``k``'s data must not run for an iteration that never was);
        ``b`` continues after it."""
        loop = cl.loop
        if not any(self._recurrence_of(p) is not None for p in loop.header.phis()):
            return
        gu = self.gu
        step = gu.new.append_basic_block(gu.fresh("rev.recurrences"))
        cont = gu.new.append_basic_block(gu.fresh("rev.recurrences.done"))
        gu.rev_blocks.update((step, cont))
        b.cond_br(first, cont, step)
        IRBuilder(step).br(cont)
        b.position_at_end(cont)
        self._headers[loop.header] = (step, k)
        for rec in self._found.values():
            if rec is not None and rec.slot is not None and rec.cl is cl:
                self._step_back(rec, k, _before_terminator(step))

    def _store_exit(self, rec: Recurrence, x: ir.BasicBlock, b: IRBuilder) -> None:
        assert rec.slot is not None
        b.store(self.gu.lookup(rec.exit_values[x], x), rec.slot)

    def _step_back(self, rec: Recurrence, k: ir.Value, b: IRBuilder) -> None:
        assert rec.slot is not None
        cur = b.load(rec.phi.type, rec.slot)
        memo: dict[ir.Value, ir.Value] = {}
        b.store(self._undo(rec.update, rec, cur, k, b, memo), rec.slot)

    def _undo(self, e: ir.Value, rec: Recurrence, value: ir.Value, k: ir.Value,
              b: IRBuilder, memo: dict[ir.Value, ir.Value]) -> ir.Value:
        """``phi`` of iteration ``k``, given that ``e`` had ``value`` there."""
        if e is rec.phi:
            return value
        assert isinstance(e, ir.Instruction)
        got = _step(e, rec.phi)
        if got is not None:
            inner, operands = got
            ds = [self._eval(d, rec.cl, k, b, memo) for d in operands]
            return self._undo(inner, rec, _inverse(e, inner, value, ds, b), k, b, memo)
        choice = self._choice(e, rec.cl)
        assert choice is not None
        cond, x, y = choice
        c = self._eval(cond, rec.cl, k, b, memo)
        return b.select(c, self._undo(x, rec, value, k, b, memo),
                        self._undo(y, rec, value, k, b, memo))

    def _eval(self, e: ir.Value, cl: CountedLoop, k: ir.Value, b: IRBuilder,
              memo: dict[ir.Value, ir.Value]) -> ir.Value:
        """``e`` (original, :meth:`_evaluable`) in iteration ``k``, at ``b``."""
        if isinstance(e, ir.Constant):
            return e
        got = memo.get(e)
        if got is not None:
            return got
        gu = self.gu
        header = cl.loop.header
        if isinstance(e, ir.Argument) or (
                isinstance(e, ir.Instruction) and not cl.loop.contains(e.parent)):
            got = gu.lookup(gu.primal(e), header)
        elif isinstance(e, ir.PHINode):
            iv = cl.ivs[e]
            assert isinstance(iv, InductionVariable)
            t = e.type
            assert isinstance(t, ir.IntType)
            idx = k if t.width == 64 else (b.trunc(k, t) if t.width < 64 else b.sext(k, t))
            step = iv.step
            scaled = b.mul(idx, ir.ConstantInt(t, step) if isinstance(step, int)
                           else gu.lookup(gu.primal(step), header))
            got = b.add(gu.lookup(gu.primal(iv.start), header), scaled)
        else:
            assert isinstance(e, ir.Instruction)
            ops = [op if isinstance(op, ir.BasicBlock) else self._eval(op, cl, k, b, memo)
                   for op in e.operands]
            got = clone_with_operands(e, ops)
            got.flags = []
            got.name = gu.fresh((e.name or "v") + ".back")
            b.insert(got)
        memo[e] = got
        return got


def _step(e: ir.Instruction, phi: ir.PHINode) -> tuple[ir.Value, list[ir.Value]] | None:
    """``e`` as an invertible update of one operand: (that operand, the others)."""
    op = e.opcode
    if op == "fneg":
        return e.operands[0], []
    if op in ("add", "xor", "sub") and not isinstance(e.type, ir.VectorType):
        a, c = e.operands[0], e.operands[1]
        if _mentions(a, phi) and not _mentions(c, phi):
            return a, [c]
        if _mentions(c, phi) and not _mentions(a, phi):
            return c, [a]
        return None
    if isinstance(e, ir.GetElementPtrInst) and len(e.indices) == 1 and \
            not isinstance(e.type, ir.VectorType) and _mentions(e.pointer, phi) and \
            not _mentions(e.indices[0], phi):
        return e.pointer, [e.indices[0]]
    return None


def _mentions(e: ir.Value, phi: ir.PHINode, depth: int = 0) -> bool:
    """Does ``e`` depend on ``phi`` within one iteration (through at most a few steps)?"""
    if e is phi:
        return True
    if depth > _MAX_DEPTH or not isinstance(e, ir.Instruction) or \
            (isinstance(e, ir.PHINode) and e.parent is phi.parent):
        return False
    return any(_mentions(op, phi, depth + 1) for op in e.operands
               if not isinstance(op, ir.BasicBlock))


def _inverse(e: ir.Instruction, inner: ir.Value, value: ir.Value, ds: list[ir.Value],
             b: IRBuilder) -> ir.Value:
    """The value of ``inner`` given that ``e`` (an update of it by ``ds``) is ``value``."""
    op = e.opcode
    if op == "fneg":
        return b.fneg(value)
    if op == "add":
        return b.sub(value, ds[0])
    if op == "xor":
        return b.xor(value, ds[0])
    if op == "sub":
        if e.operands[0] is inner:
            return b.add(value, ds[0])  # value = inner - d
        return b.sub(ds[0], value)  # value = d - inner
    assert isinstance(e, ir.GetElementPtrInst)
    d = ds[0]
    return b.gep(e.source_type, value, [b.sub(ir.ConstantInt(d.type, 0), d)])  # type: ignore[arg-type]


def _before_terminator(block: ir.BasicBlock) -> IRBuilder:
    term = block.terminator
    assert term is not None
    return IRBuilder(position=term)


__all__ = ["InvertibleRecurrences", "Recurrence"]
