"""GradientUtils: the state of one reverse-mode synthesis (Enzyme's GradientUtils).

It owns the map from the original function's values to the forward (cloned) values, the
shadows of pointers (``invert_pointer``), the adjoint slots (``diffe`` allocas in the entry
block, promoted to registers by the post-AD SROA) and ``lookup``, which makes a forward
value usable in a reverse block (reuse, recompute or tape, see :mod:`irgrad.ad.reverse.tape`).
"""

from __future__ import annotations

from collections.abc import Callable

from irgrad import ir
from irgrad.ad.core.config import (
    DISTINCT_ARGUMENTS_KEY,
    NOT_OVERWRITTEN_KEY,
    DerivativeMode,
    FnConfig,
)
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.diagnostics import no_shadow_message, source_location_of, value_text
from irgrad.ad.core.function_shadows import shadow_of_constant
from irgrad.ad.core.internal_shadows import internal_shadow_params
from irgrad.ad.core.shadow_globals import (
    constant_data_global,
    global_activity_of,
    shadow_globals_of,
)
from irgrad.ad.reverse.adjoints import add_values, adjoint_zero
from irgrad.ad.reverse.loops import LoopCounters
from irgrad.ad.reverse.memory import create_shadow, integer_shadow
from irgrad.ad.reverse.sunk_stores import sinkable_stores
from irgrad.ad.reverse.tape import LookupPlanner, Tape
from irgrad.ad.rules.emit import is_zero
from irgrad.analysis.activity import REVERSE_POLICY, ActivityAnalysis, has_float
from irgrad.analysis.global_activity import global_base
from irgrad.analysis.layout import store_size
from irgrad.analysis.memory_writes import MemoryWrites
from irgrad.analysis.underlying_objects import (
    from_inactive_library,
    is_null_based,
    underlying_object,
)
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import clone_with_operands


def _reachable_from(start: ir.BasicBlock) -> set[ir.BasicBlock]:
    seen: set[ir.BasicBlock] = set()
    stack = list(start.successors())
    while stack:
        b = stack.pop()
        if b in seen:
            continue
        seen.add(b)
        stack.extend(b.successors())
    return seen


def _dominators(fn: ir.Function) -> dict[ir.BasicBlock, set[ir.BasicBlock]]:
    blocks = fn.blocks
    entry = blocks[0]
    reach = _reachable_from(entry) | {entry}
    order = [b for b in blocks if b in reach]
    dom: dict[ir.BasicBlock, set[ir.BasicBlock]] = {b: set(order) for b in order}
    dom[entry] = {entry}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            preds = [p for p in b.predecessors() if p in reach]
            new = set.intersection(*(dom[p] for p in preds)) if preds else set()
            new = new | {b}
            if new != dom[b]:
                dom[b] = new
                changed = True
    return dom


class GradientUtils:
    """Everything one ``diffe_<f>`` synthesis shares between the handlers."""

    def __init__(self, ctx: DerivativeContext, config: FnConfig, new_fn: ir.Function) -> None:
        self.ctx = ctx
        self.config = config
        self.orig = config.function
        self.new = new_fn
        self.module: ir.Module = ctx.module
        self.types = ctx.types(self.orig)
        self.globals = global_activity_of(ctx)
        internal = internal_shadow_params(config)  # enzyme_const, shadowed inside
        self.activity = ActivityAnalysis.for_arguments(
            self.orig, [t.is_active or k in internal for k, t in enumerate(config.arg_types)],
            policy=REVERSE_POLICY, return_active=config.return_type.is_active,
            types=self.types, globals_=self.globals)
        self.memory_writes = MemoryWrites(self.orig, frozenset(
            dict(config.extra).get(DISTINCT_ARGUMENTS_KEY, ())))  # type: ignore[arg-type]
        self.vmap: dict[ir.Value, ir.Value] = {}
        self.orig_of_new: dict[ir.Value, ir.Value] = {}
        self.block_of_new: dict[ir.BasicBlock, ir.BasicBlock] = {}
        self.shadow: dict[ir.Value, ir.Value] = {}
        #: shadowed pointers whose shadow cannot be made (a select of an enzyme_const
        #: argument's memory and a shadowed global): the error, raised where one is needed
        self.unshadowable: dict[ir.Value, DifferentiationError] = {}
        self.shadow_primal: dict[ir.Value, ir.Value] = {}  # new shadow -> new primal
        self.diffe_slots: dict[ir.Value, ir.Value] = {}
        self.rev_head: dict[ir.BasicBlock, ir.BasicBlock] = {}
        self.rev_blocks: set[ir.BasicBlock] = set()
        self._lookup_memo: dict[tuple[ir.BasicBlock, ir.Value], ir.Value] = {}
        self._names: set[str] = {a.name for a in new_fn.args if a.name}
        self._counter = 0
        self.entry_marker: ir.Instruction | None = None
        self.tape: Tape | None = None
        self.freed_allocations: set[ir.Value] = set()
        # of those: the primal's frees, kept in the forward pass until the reverse pass
        # is complete, and the free of the primal block each one's reverse made
        # (ad/reverse/forward_frees.py decides which of the two stays)
        self.tentative_frees: dict[ir.Value, list[ir.Instruction]] = {}
        self.reverse_primal_frees: dict[ir.Value, ir.CallInst] = {}
        self.release_decisions: dict[ir.Value, str | None] = {}  # None: freed forward
        # allocation -> the frees / release-function calls the reverse pass makes for it
        self.deferred_releases: dict[ir.Value, list[ir.CallInst]] = {}
        # allocas of run-time size (VLAs) that the derivative allocates on the heap
        self.heap_allocas: set[ir.Value] = set()
        self.deferred_frees: list[Callable[[IRBuilder], None]] = []
        # own allocations whose shadows a free of mixed origin also lists for the end
        # (ad/reverse/shadow_frees.py): their reverse lists them instead of freeing
        self.listed_shadow_allocations: set[ir.Value] = set()
        # own allocations stored into memory whose reverse releases their shadows (made
        # on the first free of mixed origin: ad/reverse/shadow_frees.py)
        self.stored_released_allocations: set[ir.Value] | None = None
        self.planner = LookupPlanner(self)
        self.loops = LoopCounters(self)
        dom = self.dom = _dominators(self.orig)
        self.reachable = set(dom)
        self.returns = [
            b for b in self.orig.blocks
            if b in dom and b.terminator is not None and b.terminator.opcode == "ret"
        ]  # fmt: skip
        self.in_cycle = {b for b in dom if b in _reachable_from(b)}
        self.dominates_exit = {
            b for b in dom if all(b in dom[r] for r in self.returns)
        }
        self.sunk_stores = sinkable_stores(self)
        self.memory_writes.exclude_writes(set(self.sunk_stores))
        for inst in self.orig.instructions():
            if inst.name:
                self._names.add(inst.name)
        for bb in self.orig.blocks:
            if bb.name:
                self._names.add(bb.name)

    # -- names and builders ------------------------------------------------------------
    def fresh(self, base: str) -> str:
        while True:
            self._counter += 1
            name = f"{base}.ad{self._counter}"
            if name not in self._names:
                self._names.add(name)
                return name

    def entry_builder(self) -> IRBuilder:
        """A builder before the first forward instruction of the entry block."""
        assert self.entry_marker is not None
        return IRBuilder(position=self.entry_marker)

    def head_builder(self, orig_block: ir.BasicBlock) -> IRBuilder:
        head = self.rev_head[orig_block]
        term = head.terminator
        assert term is not None
        return IRBuilder(position=term)

    def forward_block(self, orig_block: ir.BasicBlock) -> ir.BasicBlock:
        return self.vmap[orig_block]  # type: ignore[return-value]

    def libc(self, name: str, ft: ir.FunctionType) -> ir.Function:
        fn = self.module.get_function(name)
        if fn is not None:
            return fn
        return self.module.get_or_insert_function(name, ft)

    def error(self, message: str, inst: ir.Instruction | None = None) -> DifferentiationError:
        where = f" in function {self.orig.name}"
        loc = None
        if inst is not None:
            where += f" at instruction `{value_text(inst)}`"
            loc = source_location_of(inst, self.module)
        try:
            return DifferentiationError(message + where, loc)  # type: ignore[call-arg]
        except TypeError:
            return DifferentiationError(message + where)

    # -- values ------------------------------------------------------------------------
    def is_varied(self, v: ir.Value) -> bool:
        """Does ``v`` carry an adjoint: varied (it depends on active inputs) and useful
        (it influences an active output)? A value that is only varied has a zero adjoint:
        the reverse pass skips it (its partials may be infinite: 0 * inf = NaN)."""
        return v in self.activity.varied and (
            not isinstance(v, ir.Instruction) or self.activity.is_useful(v))

    def is_shadowed(self, v: ir.Value) -> bool:
        return v in self.activity.shadowed

    def primal(self, v: ir.Value) -> ir.Value:
        """The forward (cloned) value of an original value."""
        return self.vmap.get(v, v)

    def invert_pointer(self, v: ir.Value, inst: ir.Instruction | None = None) -> ir.Value:
        """The shadow of an original pointer (forward value), or of an integer holding
        the address of shadowed memory (the shadow's address)."""
        s = self.shadow.get(v)
        if s is not None:
            return s
        if v in self.unshadowable:
            raise self.unshadowable[v]
        if v in self.activity.addresses:
            return integer_shadow(self, v, inst or v)  # type: ignore[arg-type]
        if isinstance(v, ir.ConstantPointerNull | ir.UndefValue | ir.PoisonValue
                      | ir.ConstantAggregateZero) or _null_aggregate(v):
            return v
        if is_null_based(v):
            return self.primal(v)  # null + n (an empty std::vector's end): as null, itself
        if _integer_address(v):
            return v  # a dangling address (an empty Rust Vec's pointer): as null, itself
        if isinstance(v, ir.Constant):
            s = shadow_of_constant(self.ctx, v, self.config.mode)
            if s is not None:  # a function's table of derivatives, a vtable's shadow
                self.shadow[v] = s
                return s
        if isinstance(v, ir.GlobalVariable | ir.ConstantExpr):
            s = self._global_shadow(v, inst)
            if s is not None:
                self.shadow[v] = s
                return s
        if isinstance(v, ir.Instruction) and v in self.vmap and not self.is_shadowed(v) \
                and constant_data_global(v) is not None:
            # T + i into constant data meets active pointers: the same arithmetic on
            # T's sink (the base's shadow), right after v's clone
            shadow = create_shadow(self, v)
            assert shadow is not None
            return shadow
        if isinstance(v, ir.Instruction) and v in self.vmap and (
                from_inactive_library(v) or self.types.points_to_integers(v)):
            return self.primal(v)  # memory no derivative reaches: its own shadow
        # the instruction that needs the shadow, or the pointer itself when that one
        # has no source line (a phi)
        where = inst
        if isinstance(v, ir.Instruction) and (where is None or where.debug_loc is None):
            where = v
        raise self.error(no_shadow_message(v), where)

    def _global_shadow(self, v: ir.Constant, inst: ir.Instruction | None) -> ir.Value | None:
        """The shadow of a global (or a constant expression on one): its shadow global
        when it is active, a sink when it is constant (reverse mode never reads it)."""
        g = global_base(v)
        if g is None:
            return None
        shadows = shadow_globals_of(self.ctx)
        if g in self.globals.active:
            why = shadows.why_not(g)
            if why is not None:
                raise self.error(f"active memory in global @{g.name} has no shadow: {why}",
                                 inst)
            return shadows.rebuild(v, shadows.shadow(g))
        if g.is_constant and shadows.why_not(g) is None:
            return shadows.rebuild(v, shadows.constant_shadow(g, reverse=True))
        raise self.error(
            f"active memory in global @{g.name} has no shadow (a derivative stored in a "
            "global would be lost)", inst)

    def is_reverse_value(self, v: ir.Instruction) -> bool:
        return v.parent in self.rev_blocks

    def available_in_reverse(self, v: ir.Instruction) -> bool:
        bb = v.parent
        orig_bb = self.block_of_new.get(bb) if bb is not None else None
        if orig_bb is None:
            return bb is not None and bb is self.new.blocks[0]
        return orig_bb not in self.in_cycle and orig_bb in self.dominates_exit

    def load_is_stable(self, load: ir.LoadInst) -> bool:
        primal = self.shadow_primal.get(load, load)
        orig = self.orig_of_new.get(primal)
        if not isinstance(orig, ir.LoadInst):
            return False
        if self.config.mode is not DerivativeMode.REVERSE_COMBINED:
            # split mode: memory may change between augmented and reverse, except what
            # the caller promised (enzyme_not_overwritten) and the function leaves alone
            kept = dict(self.config.extra).get(NOT_OVERWRITTEN_KEY, ())
            base = underlying_object(orig.pointer)
            if not (isinstance(base, ir.Argument) and base.parent is self.orig
                    and base.index in kept):  # type: ignore[operator]
                return False
        return not self.memory_writes.may_be_overwritten(
            orig.pointer, after=orig, size=store_size(orig.type),
            tbaa=orig.get_metadata("tbaa"))

    def lookup(self, v: ir.Value, orig_block: ir.BasicBlock) -> ir.Value:
        """``v`` (a forward value of the new function) usable in ``rev.<orig_block>``."""
        if not isinstance(v, ir.Instruction) or self.planner.is_available(v):
            return v
        v, orig_block = self.loops.hoist(v, orig_block)
        if not isinstance(v, ir.Instruction):
            return v
        key = (orig_block, v)
        got = self._lookup_memo.get(key)
        if got is not None:
            return got
        if self.loops.recomputable_iv(v, orig_block):
            got = self.loops.recompute_iv(v, orig_block)
        elif (rec := self.loops.recurrence(v, orig_block)) is not None:
            assert self.loops.recurrences is not None
            got = self.loops.recurrences.recover(rec, orig_block)
        elif self.planner.should_forward(orig_block, v):
            got = self._emit_forwarded(v, orig_block)
        elif self.planner.should_recompute(orig_block, v):
            ops = [
                op if isinstance(op, ir.BasicBlock) else self.lookup(op, orig_block)
                for op in v.operands
            ]
            got = clone_with_operands(v, ops)
            got.name = self.fresh((v.name or "v") + ".re")
            self.head_builder(orig_block).insert(got)
        elif (snap := self.loops.snapshot(v, orig_block)) is not None:
            assert self.loops.snapshots is not None
            got = self.loops.snapshots.value(snap, orig_block)
        else:
            # a block whose reverse runs before this one in every iteration may already
            # hold v (it was looked up there first: the reverse pass goes backwards)
            later = self.loops.later_cache_blocks(v, orig_block)
            got = next((g for g in (self._lookup_memo.get((b, v)) for b in later)
                        if g is not None), None)
            if got is None:
                # or will be looked up there (it computes with v): one slot for both
                used = next((b for b in later if self._computes_with(v, b)), None)
                if used is None and later and self.loops.loop_of(orig_block) is None:
                    # outside loops each block runs at most once per call: every lookup
                    # shares the slot of the last block that post-dominates them
                    used = later[-1]
                if used is not None:
                    got = self.lookup(v, used)
                else:
                    got = self.ensure_tape().cache(orig_block, v)
                    self.planner.note_cached(orig_block, v)
        self._lookup_memo[key] = got
        return got

    def _computes_with(self, v: ir.Value, orig_block: ir.BasicBlock) -> bool:
        """Does forward ``orig_block`` use ``v`` in an instruction other than a phi (whose
        reverse, unlike a phi's, may look ``v`` up in ``rev.<orig_block>``)?"""
        return any(isinstance(u, ir.Instruction) and not isinstance(u, ir.PHINode)
                   and u.parent is not None and self.block_of_new.get(u.parent) is orig_block
                   for u in v.users)

    def ensure_tape(self) -> Tape:
        """This derivative's byte stack (made on first use)."""
        if self.tape is None:
            self.tape = Tape(self)
        return self.tape

    def _emit_forwarded(self, v: ir.Value, orig_block: ir.BasicBlock) -> ir.Value:
        """The stored value a forwarded load reads, rebuilt at the head of
        ``rev.<orig_block>`` with the store's index replaced by the load's."""
        fw = self.planner.forwarded(v)
        assert fw is not None
        made: dict[ir.Value, ir.Value] = {fw.index: self.lookup(self.primal(fw.at), orig_block)}

        def remap(op: ir.Value) -> ir.Value:
            got = made.get(op)
            if got is not None:
                return got
            if isinstance(op, ir.Instruction | ir.Argument):
                return self.lookup(self.primal(op), orig_block)
            return op

        b = self.head_builder(orig_block)
        for node in fw.nodes:
            new = clone_with_operands(node, [remap(op) for op in node.operands])
            new.metadata = [(k, m) for k, m in new.metadata if k != "dbg"]
            new.name = self.fresh((node.name or "v") + ".fw")
            b.insert(new)
            made[node] = new
        return made[fw.value] if fw.value in made else remap(fw.value)  # invariant value

    def lookup_primal(self, v: ir.Value, orig_block: ir.BasicBlock) -> ir.Value:
        return self.lookup(self.primal(v), orig_block)

    def lookup_shadow(self, v: ir.Value, orig_block: ir.BasicBlock,
                      inst: ir.Instruction | None = None) -> ir.Value:
        return self.lookup(self.invert_pointer(v, inst), orig_block)

    # -- adjoints ----------------------------------------------------------------------
    def adjoint_type(self, v: ir.Value) -> ir.Type | None:
        """The type of ``v``'s adjoint: its own for floating-point values (and aggregates
        and vectors of them), the float's for an integer that type analysis says holds a
        float's bits, None for values without derivatives."""
        if has_float(v.type):
            return v.type
        return self.types.carried_float(v)

    def _slot(self, v: ir.Value) -> ir.Value:
        slot = self.diffe_slots.get(v)
        if slot is None:
            t = self.adjoint_type(v) or v.type
            b = self.entry_builder()
            slot = b.alloca(t, name=self.fresh("d." + (v.name or "v")))
            b.store(adjoint_zero(t), slot)
            self.diffe_slots[v] = slot
        return slot

    def diffe(self, v: ir.Value, b: IRBuilder) -> ir.Value:
        """The adjoint of original value ``v``, read and reset to zero."""
        t = self.adjoint_type(v)
        if t is None:
            raise self.error(f"no adjoint for value of type {v.type}")
        slot = self._slot(v)
        d = b.load(t, slot)
        b.store(adjoint_zero(t), slot)
        return d

    def add_to_diffe(self, v: ir.Value, dv: ir.Value, b: IRBuilder) -> None:
        """``diffe(v) += dv`` (no-op for values that carry no derivative)."""
        if isinstance(v, ir.Constant) and not isinstance(v, ir.GlobalValue):
            return
        if not (self.is_varied(v) or (isinstance(v, ir.Argument) and has_float(v.type))):
            return
        t = self.adjoint_type(v)
        if t is None:
            raise self.error(f"no adjoint for value of type {v.type}")
        if is_zero(dv):
            return  # adding a constant zero changes nothing but the sign of a -0.0 adjoint
        if dv.type != t:
            dv = b.bitcast(dv, t)
        slot = self._slot(v)
        old = b.load(t, slot)
        b.store(add_values(b, old, dv), slot)

    def add_to_diffe_elem(self, v: ir.Value, indices: list[int], dv: ir.Value,
                          b: IRBuilder) -> None:
        """``diffe(v)[indices] += dv`` for an aggregate ``v``."""
        if not self.is_varied(v):
            return
        slot = self._slot(v)
        p = b.gep(v.type, slot, [ir.ConstantInt(ir.i64, 0)] + [
            ir.ConstantInt(ir.i32, k) for k in indices])
        old = b.load(dv.type, p)
        b.store(add_values(b, old, dv), p)


def _integer_address(v: ir.Value) -> bool:
    """``inttoptr (i64 8 to ptr)``: an address made of a constant integer, which points at
    no memory of the program (Rust's ``NonNull::dangling()``, the pointer of an empty
    ``Vec``: its alignment, never dereferenced)."""
    return (isinstance(v, ir.ConstantExpr) and v.opcode == "inttoptr"
            and isinstance(v.operands[0], ir.ConstantInt))


def _null_aggregate(v: ir.Value) -> bool:
    """A constant aggregate whose pointers are all null or undefined (its own shadow)."""
    if not isinstance(v, ir.ConstantAggregate):
        return False
    return all(_null_aggregate(e) or (not e.type.is_pointer and not isinstance(
        e, ir.ConstantAggregate)) or isinstance(e, ir.ConstantPointerNull | ir.UndefValue)
        for e in v.elements)


def _inst_text(inst: ir.Instruction) -> str:
    try:
        return str(inst).strip()
    except Exception:  # printer not available: fall back to the opcode
        return inst.opcode
