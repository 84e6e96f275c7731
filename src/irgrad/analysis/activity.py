"""Activity analysis (Enzyme's ActivityAnalysis): which values carry derivatives.

The one activity analysis of irgrad: forward mode, reverse mode and ``--print-activity``
all ask it. From the active arguments (seeds) a forward taint finds

* **varied** values: non-pointer values that may carry a nonzero derivative — a
  floating-point value computed from a varied value or loaded from memory that may hold
  active data;
* **shadowed** pointers: pointers that have a shadow — derived from an active pointer
  argument, loaded from shadowed memory, or freshly allocated (alloca, malloc, ...; the
  derivative code allocates a shadow for every allocation of the function).

Memory of the function's own (an alloca -- unoptimized IR's ``%x.addr`` -- or a heap
allocation whose address does not escape) that only ever receives inactive values hands
out inactive loads, as Enzyme decides. Calls of the functions in
:mod:`irgrad.analysis.known_functions` that carry no derivatives give inactive results.

A backward pass then finds the **useful** values: those that may influence an active
output (the returned value when the return is active, stores into shadowed memory, calls
with active arguments). Enzyme's ``-print-activity`` queries combine the two:
:meth:`ActivityAnalysis.is_constant_value` (``icv``) and
:meth:`ActivityAnalysis.is_constant_instruction` (``ici``).

A function constant is a pointer with a shadow (its table of derivatives, see
:mod:`irgrad.ad.core.function_shadows`): a select or phi of functions is shadowed, so a
function pointer stored into active memory stores its shadow too.

What a derivative mode can express differs in one point, given by an
:class:`ActivityPolicy`: forward mode carries tangents through integer values (bitwise
copies of floating-point data); reverse mode does not (it reports an error where it would
need them). Both give a pointer returned by a call with active arguments a shadow (the
callee's derivative returns it: Enzyme's shadow return).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.allocating_functions import FreshMemo, returns_fresh_allocation
from irgrad.analysis.function_pointers import (
    as_function,
    points_into_function_table,
    points_to_code,
)
from irgrad.analysis.global_activity import (
    NO_ACTIVE_GLOBALS,
    GlobalActivity,
    has_float,
)
from irgrad.analysis.input_formats import INPUT_FUNCTIONS, input_destination
from irgrad.analysis.known_functions import (
    callee_name,
    is_allocation,
    is_free,
    is_ignored_intrinsic,
    is_inactive_call,
    is_math_function,
    is_math_intrinsic,
    is_memory_transfer,
    is_memset,
)
from irgrad.analysis.local_memory import (
    is_integer_like,
    is_local_memory,
    library_only_local,
    local_writes,
)
from irgrad.analysis.memory_writes import writes_caller_memory
from irgrad.analysis.underlying_objects import underlying_object
from irgrad.ir.cfg import reverse_postorder

if TYPE_CHECKING:
    from irgrad.analysis.type_analysis import TypeResults

# integer results that never carry a derivative, whatever their operands
_INTEGER_BARRIERS = ("fptosi", "fptoui", "icmp", "fcmp", "ptrtoint")
_POINTER_DERIVED = ("getelementptr", "bitcast", "addrspacecast", "freeze")
_ADDRESS_ARITHMETIC = ("add", "sub", "and", "or", "xor")


def moves_address(inst: ir.Instruction, addresses: Container[ir.Value]) -> bool:
    """``inst`` moves or masks an address held in an integer: an add/sub/and/or/xor with
    exactly one operand in ``addresses`` (a sub's address first, as ``p - q`` of two
    addresses is a distance)."""
    if inst.opcode not in _ADDRESS_ARITHMETIC:
        return False
    a, b = inst.operands
    if inst.opcode == "sub":
        return a in addresses and b not in addresses
    return (a in addresses) != (b in addresses)


# results that carry no derivative whatever their operands: comparisons, and integers
# converted from floating-point values (a tangent moves through integers only as bits)
_OPAQUE_RESULTS = frozenset({"fcmp", "icmp", "fptosi", "fptoui"})


def _derivative_operands(inst: ir.Instruction) -> list[ir.Value]:
    """The operands a derivative of ``inst``'s result can flow back into: not a select's
    condition, nothing of a comparison (so a value only compared is not useful)."""
    if inst.opcode in _OPAQUE_RESULTS:
        return []
    ops = [op for op in inst.operands if not isinstance(op, ir.BasicBlock)]
    return ops[1:] if inst.opcode == "select" else ops


def holds_address_type(t: ir.Type) -> bool:
    """An integer as wide as a pointer (``i64``: ``ptrtoint``, an iterator the ABI passes
    or returns as an integer)."""
    return isinstance(t, ir.IntType) and t.width == 64


def holds_pointers(t: ir.Type) -> bool:
    """True for pointers and structs/arrays that contain them."""
    if t.is_pointer:
        return True
    if isinstance(t, ir.ArrayType):
        return holds_pointers(t.element)
    if t.is_struct:
        return any(holds_pointers(e) for e in t.elements)  # type: ignore[attr-defined]
    return False


def is_pointer_like(t: ir.Type) -> bool:
    """A pointer or a vector of pointers (the addresses of a gather or scatter)."""
    return t.is_pointer or (isinstance(t, ir.VectorType) and t.element.is_pointer)


@dataclass(frozen=True)
class ActivityPolicy:
    """What a derivative mode can carry derivatives through.

    ``integers_carry``: integer values computed from active data carry derivatives (they
    may be bitwise copies of floating-point data). ``shadow_results``: a pointer returned
    by a call (or taken out of an aggregate, or made by ``inttoptr``) from active operands
    has a shadow.
    """

    integers_carry: bool
    shadow_results: bool


REVERSE_POLICY = ActivityPolicy(integers_carry=False, shadow_results=True)
FORWARD_POLICY = ActivityPolicy(integers_carry=True, shadow_results=True)


class ActivityAnalysis:
    """Varied values, shadowed pointers and useful values of one function.

    ``seeds``: the values active on entry (active arguments; forward mode passes the
    clones of the arguments that have tangents). ``blocks``: the blocks to analyse (all of
    ``fn`` by default). ``return_active``: the return value is an active output (only the
    usefulness queries depend on it). ``globals_``: the module's active globals
    (:mod:`irgrad.analysis.global_activity`): they are shadowed memory, and calls of
    functions that use them carry derivatives.
    """

    def __init__(self, fn: ir.Function, seeds: Iterable[ir.Value], *,
                 policy: ActivityPolicy = REVERSE_POLICY, return_active: bool = False,
                 blocks: Sequence[ir.BasicBlock] | None = None,
                 types: TypeResults | None = None,
                 globals_: GlobalActivity = NO_ACTIVE_GLOBALS) -> None:
        self.function = fn
        self.policy = policy
        self.types = types
        self.return_active = return_active
        self.globals = globals_
        self.varied: set[ir.Value] = set()
        self.shadowed: set[ir.Value] = set()
        # integers that hold a shadowed pointer's address, moved by constant offsets or
        # masked (``inttoptr((ptrtoint(p) & -64) + 64)``: hand-made aligned allocation,
        # as Eigen does): the same arithmetic on the shadow's address gives the shadow
        self.addresses: set[ir.Value] = set()
        self._fresh_memo: FreshMemo = {}
        for v in seeds:
            if v.type.is_pointer:
                self.shadowed.add(v)
            elif holds_address_type(v.type) and not policy.integers_carry:
                # an integer argument with a shadow holds an address (an iterator the
                # ABI passes as ``i64``): its shadow is the shadow's address
                self.addresses.add(v)
            else:
                self.varied.add(v)
        if blocks is None:  # reverse post-order (fast convergence), unreachable blocks last
            order = reverse_postorder(fn)
            seen = set(order)
            blocks = [*order, *(bb for bb in fn.blocks if bb not in seen)]
        order = blocks
        self._insts = [i for bb in order for i in bb.instructions]
        if globals_.active:  # active globals (and constant expressions on them) have shadows
            for inst in self._insts:
                for op in inst.operands:
                    if isinstance(op, ir.GlobalVariable | ir.ConstantExpr) and \
                            globals_.is_active(op):
                        self.shadowed.add(op)
        self._writes_memo: dict[ir.Function, bool] = {}
        # local memory whose contents may carry derivatives (an active value stored into
        # it, or its address escapes)
        self._active_locals: set[ir.Value] = set()
        self._local_writes: dict[ir.Value, list[ir.Instruction] | None] = {}
        self._solve()
        self._useful: set[ir.Value] | None = None

    @classmethod
    def for_arguments(cls, fn: ir.Function, arg_activity: Sequence[bool], *,
                      policy: ActivityPolicy = REVERSE_POLICY, return_active: bool = False,
                      types: TypeResults | None = None,
                      globals_: GlobalActivity = NO_ACTIVE_GLOBALS) -> ActivityAnalysis:
        """Seeds from per-argument activity: an active pointer is shadowed, an active
        floating-point (or, under ``integers_carry``, any) scalar is varied."""
        seeds = [a for a, act in zip(fn.args, arg_activity, strict=False) if act and (
            a.type.is_pointer or has_float(a.type) or policy.integers_carry
            or holds_address_type(a.type))]
        return cls(fn, seeds, policy=policy, return_active=return_active, types=types,
                   globals_=globals_)

    # -- the forward taint -------------------------------------------------------------
    def is_active(self, v: ir.Value) -> bool:
        """Varied, shadowed, or an integer holding the address of shadowed memory."""
        return v in self.varied or v in self.shadowed or v in self.addresses

    def _solve(self) -> None:
        changed = True
        while changed:
            changed = False
            for inst in self._insts:
                if inst.type.is_void:
                    continue
                if inst not in self.shadowed and self._pointer_like(inst.type) \
                        and self._pointer_active(inst):
                    self.shadowed.add(inst)
                    changed = True
                if inst not in self.varied and not is_pointer_like(inst.type) \
                        and self._classify(inst):
                    self.varied.add(inst)  # (an aggregate may be both)
                    changed = True
                if inst not in self.addresses and self._holds_address(inst):
                    self.addresses.add(inst)
                    changed = True

    def _pointer_like(self, t: ir.Type) -> bool:
        """Values with shadows: pointers, and (in reverse mode, where aggregates do not
        carry tangents) aggregates holding pointers, such as the ``{node *, node *}``
        pair ``std::map`` returns by value."""
        return is_pointer_like(t) or (not self.policy.integers_carry and holds_pointers(t))

    def _classify(self, inst: ir.Instruction) -> bool:
        """May non-pointer ``inst`` carry a derivative (varied)?"""
        op = inst.opcode
        if not self.may_carry(inst) or op in _INTEGER_BARRIERS:
            return False
        if op == "load":
            return self.loads_active(inst.operands[0])
        if op in ("sitofp", "uitofp", "alloca"):
            return False
        if isinstance(inst, ir.CallBase):
            if is_inactive_call(callee_name(inst)):
                return False
            if self.globals.uses_active_globals(inst.called_function):
                return True  # it reads (or writes) memory of an active global
            return any(self.is_active(a) for a in inst.args)
        # under integers_carry, aggregates of pointers carry their shadows too
        carries = self.is_active if self.policy.integers_carry else self.varied.__contains__
        if op == "phi":
            vals = [v for v, _ in inst.incoming]  # type: ignore[attr-defined]
            return any(carries(v) for v in vals)
        ops = inst.operands[1:] if op == "select" else inst.operands
        return any(carries(v) for v in ops if not isinstance(v, ir.BasicBlock))

    def _holds_address(self, inst: ir.Instruction) -> bool:
        """An integer holding a shadowed pointer's address: its ``ptrtoint``, a pointer
        field of shadowed memory read as an integer (type analysis says so: Eigen copies
        a struct of references as ``i64``), that moved by an offset or masked (one
        operand an address, the other not), a phi/select/freeze of such addresses, or
        returned by a call with active arguments when type analysis says it is a pointer."""
        if not holds_address_type(inst.type):
            return False
        op = inst.opcode
        if op == "ptrtoint":
            return inst.operands[0] in self.shadowed
        if op == "phi":
            return any(v in self.addresses for v, _ in inst.incoming)  # type: ignore[attr-defined]
        if op == "select":
            return any(v in self.addresses for v in inst.operands[1:])
        if op == "freeze":
            return inst.operands[0] in self.addresses
        if isinstance(inst, ir.CallBase):
            # an address computed by a callee from active pointers (``uintptr_t
            # align_up(uintptr_t p)``): type analysis says the result is a pointer
            return (self.types is not None and self.types.scalar_type(inst).is_pointer
                    and not is_inactive_call(callee_name(inst))
                    and any(self.is_active(a) for a in inst.args))
        if op == "load":
            return (self.types is not None and self.types.scalar_type(inst).is_pointer
                    and self.loads_active(inst.operands[0]))
        return moves_address(inst, self.addresses)

    def _pointer_active(self, inst: ir.Instruction) -> bool:
        op = inst.opcode
        if op == "alloca":
            return not library_only_local(inst)
        if op in _POINTER_DERIVED:
            base = inst.operands[0]
            if op == "getelementptr" and points_to_code(base):
                return False  # into code (a signature before a function): no shadow
            return self._has_shadow(base)
        if op in ("insertelement", "shufflevector"):  # vectors of pointers (gathers)
            return any(self._has_shadow(o) for o in inst.operands[:2])
        if op == "extractelement" and is_pointer_like(inst.operands[0].type):
            return inst.operands[0] in self.shadowed
        if op == "phi":
            return any(self._has_shadow(v) for v, _ in inst.incoming)  # type: ignore[attr-defined]
        if op == "select":
            return any(self._has_shadow(v) for v in inst.operands[1:])
        if op == "load":
            return self.loads_active(inst.operands[0])
        if isinstance(inst, ir.CallBase):
            name = callee_name(inst)
            if is_allocation(name):
                return True
            if is_inactive_call(name) or name in INPUT_FUNCTIONS:  # (fgets: its buffer)
                return False
            if returns_fresh_allocation(inst.called_function, self._fresh_memo):
                return True  # an allocator wrapper (xmalloc, an aligned allocator)
            if not self.policy.shadow_results:
                return False
            return any(self.is_active(a) for a in inst.args)
        if op == "insertvalue":
            return any(self._has_shadow(v) for v in inst.operands[:2])
        if op == "freeze":
            return inst.operands[0] in self.shadowed
        if op == "inttoptr" and inst.operands[0] in self.addresses:
            return True
        if self.policy.shadow_results and op in ("inttoptr", "extractvalue",
                                                 "extractelement"):
            if self.policy.integers_carry:
                return self.is_active(inst.operands[0])
            return inst.operands[0] in self.shadowed
        return False

    def _has_shadow(self, v: ir.Value) -> bool:
        """Shadowed, or a constant whose shadow holds derivatives: a function (its table)
        or a pointer into a constant table of functions (a vtable, a callback table)."""
        if v in self.shadowed:
            return True
        return isinstance(v, ir.Constant) and (
            as_function(v) is not None or points_into_function_table(v))

    def may_carry(self, v: ir.Value) -> bool:
        """Can non-pointer value ``v`` hold a derivative at all (by its type; an integer
        when the policy says so, or type analysis says it holds a float)?"""
        if has_float(v.type) or self.policy.integers_carry:
            return True
        return (self.types is not None and is_integer_like(v.type)
                and self.types.carries_float(v))

    def loads_active(self, pointer: ir.Value) -> bool:
        """Can a load through ``pointer`` give a value with a derivative / a shadow?

        Unoptimized IR keeps every argument and local in an alloca (``%x.addr``): a local
        that only ever holds inactive values (a pointer argument marked ``enzyme_const``, a
        loop counter) gives inactive loads, as Enzyme's activity analysis decides; treating
        them as shadowed would read a shadow nobody wrote (null) and accumulate there."""
        if pointer not in self.shadowed or points_to_code(pointer):
            return False
        base = underlying_object(pointer)
        if not is_local_memory(base):
            return True
        return self.local_holds_active(base)  # type: ignore[arg-type]

    def local_holds_active(self, local: ir.Value) -> bool:
        """Whether an active value (or pointer) may be stored into the function's own
        memory ``local`` (an alloca or a heap allocation)."""
        if local in self._active_locals:
            return True
        if local not in self._local_writes:
            self._local_writes[local] = local_writes(local)
        accesses = self._local_writes[local]
        if accesses is None or any(self._writes_active(w) for w in accesses):
            self._active_locals.add(local)
            return True
        return False

    alloca_holds_active = local_holds_active

    def _writes_active(self, inst: ir.Instruction) -> bool:
        if isinstance(inst, ir.StoreInst):
            v = inst.value
            if v.type.is_pointer:
                return v in self.shadowed
            if is_integer_like(v.type):
                return self.may_carry(v) and v in self.varied
            if has_float(v.type):
                return v in self.varied
            return True  # other aggregates: conservatively active
        assert isinstance(inst, ir.CallBase)  # memcpy/memmove into the alloca
        if callee_name(inst) in INPUT_FUNCTIONS:  # sscanf/fread: parsed or read data
            return False
        return inst.args[1] in self.shadowed

    # -- usefulness (backward) -------------------------------------------------------------
    def _solve_useful(self) -> set[ir.Value]:
        useful: set[ir.Value] = set()
        work: list[ir.Value] = []

        def mark(vals: Iterable[ir.Value]) -> None:
            for v in vals:
                if isinstance(v, ir.Instruction | ir.Argument) and v not in useful:
                    useful.add(v)
                    work.append(v)

        for inst in self._insts:
            if isinstance(inst, ir.ReturnInst):
                if inst.value is not None and self.return_active:
                    mark([inst.value])
            elif isinstance(inst, ir.StoreInst | ir.AtomicRMWInst):  # atomic: *p += v
                if self.loads_active(inst.pointer):
                    mark([inst.value])
            elif isinstance(inst, ir.CallBase):
                name = callee_name(inst)
                if is_inactive_call(name) or (is_math_function(name) and not inst.type.is_void):
                    continue
                if name in INPUT_FUNCTIONS:  # writes data read from text or a file
                    continue
                # a call is an output only when it may write memory (through its active
                # arguments or an active global); otherwise only its result matters,
                # and that is marked useful like any value when it is used
                if self.call_may_write(inst) and (
                        any(self.is_active(a) for a in inst.args)
                        or self.globals.writes_active_globals(inst.called_function)):
                    mark(inst.args)
        while work:
            v = work.pop()
            if isinstance(v, ir.Instruction) and not isinstance(v, ir.LoadInst | ir.AllocaInst):
                mark(_derivative_operands(v))
        return useful

    def call_may_write(self, call: ir.CallBase) -> bool:
        """May ``call`` write memory the function can see after it returns?"""
        name = callee_name(call)
        if is_memory_transfer(name) or is_memset(name):
            return True
        if is_inactive_call(name) or is_free(name) or is_allocation(name):
            return False
        fn = call.called_function
        if fn is None:
            return True  # indirect call or inline assembly
        if fn.is_declaration:  # (other intrinsics, e.g. masked stores, may write)
            return not (is_math_function(name) or is_math_intrinsic(name)
                        or is_ignored_intrinsic(name))
        return writes_caller_memory(fn, self._writes_memo)

    def is_useful(self, v: ir.Value) -> bool:
        """May ``v`` influence an active output?"""
        if self._useful is None:
            self._useful = self._solve_useful()
        return v in self._useful

    # -- Enzyme's queries ------------------------------------------------------------------
    def is_constant_value(self, v: ir.Value) -> bool:
        """True when ``v`` cannot carry a derivative (Enzyme's ``isConstantValue``)."""
        if isinstance(v, ir.Argument):
            return v.parent is not self.function or not self.is_active(v)
        if not isinstance(v, ir.Instruction) or v.type.is_void:
            return True
        if v.type.is_pointer:  # a pointer is active when the memory it points to is
            return not self.loads_active(v)
        if v in self.addresses:  # so is an integer holding its address
            return False
        return not (v in self.varied and self.is_useful(v))

    def is_constant_instruction(self, inst: ir.Instruction) -> bool:
        """True when ``inst`` needs no derivative code (``isConstantInstruction``)."""
        if inst.is_terminator:
            return True
        if isinstance(inst, ir.StoreInst | ir.AtomicRMWInst):
            v = inst.value
            return not (self.loads_active(inst.pointer)
                        and (v.type.is_pointer or self.may_carry(v)))
        if isinstance(inst, ir.CallBase):
            name = callee_name(inst)
            if is_inactive_call(name):
                return True
            if is_memory_transfer(name) or is_memset(name):
                return not self.loads_active(inst.args[0])
            if name in INPUT_FUNCTIONS:  # parsed into memory without derivatives
                return not any(self.loads_active(a) for k, a in enumerate(inst.args)
                               if input_destination(name, k))
            if not inst.type.is_void and not self.is_constant_value(inst):
                return False
            if is_math_function(name) or (name or "").startswith("llvm."):
                return True
            # its result carries no useful derivative: it needs one only if it may write
            # active memory (a read-only call whose result is unused needs none, and
            # differentiating it could only turn an overflow into 0 * inf = NaN)
            if not self.call_may_write(inst):
                return True
            if self.globals.writes_active_globals(inst.called_function):
                return False
            return not any(self.is_active(a) for a in inst.args)
        return self.is_constant_value(inst)


def default_activity(fn: ir.Function) -> tuple[list[bool], bool]:
    """Enzyme's defaults without markers: pointers duplicated, floats active, ints constant;
    a floating-point return is active."""
    args = [a.type.is_pointer or has_float(a.type) for a in fn.args]
    return args, has_float(fn.return_type)


__all__ = [
    "FORWARD_POLICY",
    "REVERSE_POLICY",
    "ActivityAnalysis",
    "ActivityPolicy",
    "default_activity",
    "has_float",
    "holds_address_type",
    "holds_pointers",
    "is_pointer_like",
    "moves_address",
]
