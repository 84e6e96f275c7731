"""Which global variables carry derivatives, and which functions touch them.

Enzyme gives an active global a *shadow global*; a global that only ever holds data no
derivative flows into stays inactive (its loads are constants to the derivative). This
module decides which is which, for the whole module at once (a global written in one
function may be read in another, so every derivative must agree):

* a **constant** global (``static const double C[]``) is inactive: nothing writes it (the
  derivative code gives it a zero shadow where a pointer to it meets active pointers);
* a **mutable** global is *active* when code that runs inside a derivative (the functions
  differentiated and everything they call) may put a derivative into it: it stores a
  computed (non-constant) floating-point value or pointer into it, copies memory into it,
  or lets its address escape (passes it to a call, merges it in a phi or select, stores
  it) -- after which irgrad cannot follow what is written through it;
* a global whose type holds neither floating-point data nor pointers (``int count``)
  never is, nor one made active by its uses alone when nothing reachable from it can hold
  a floating-point value (a message log, :mod:`irgrad.analysis.type_reach`); nor are irgrad's own globals (``__irgrad_*``) or LLVM's (``llvm.*``).

A global listed in ``user_shadows`` (Enzyme's ``enzyme_shadow`` convention) is active
whatever its uses. ``users`` are the functions that read or write an active global,
directly or through the functions they call; ``writers`` those that may write one. A call
of a user carries a derivative even without active arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from irgrad import ir
from irgrad.analysis.known_functions import (
    callee_name,
    is_inactive_call,
    is_inactive_global,
    is_memory_transfer,
    is_memset,
)
from irgrad.analysis.type_reach import FloatFreeGlobals

_POINTER_CASTS = ("getelementptr", "bitcast", "addrspacecast")


def has_float(t: ir.Type) -> bool:
    """True for floating-point types and aggregates/vectors that contain them."""
    if isinstance(t, ir.FloatType):
        return True
    if isinstance(t, ir.VectorType | ir.ArrayType):
        return has_float(t.element)
    if t.is_struct:
        return any(has_float(e) for e in t.elements)  # type: ignore[attr-defined]
    return False


def may_hold_derivative(t: ir.Type) -> bool:
    """Can memory of type ``t`` hold floating-point data or pointers (bytes count: a
    Fortran COMMON block or a union is an ``[N x i8]``)?"""
    if has_float(t) or t.is_pointer:
        return True
    if isinstance(t, ir.ArrayType | ir.VectorType):
        return may_hold_derivative(t.element) or (
            isinstance(t.element, ir.IntType) and t.element.width == 8)
    if t.is_struct:
        return any(may_hold_derivative(e) for e in t.elements)  # type: ignore[attr-defined]
    return False


def global_base(v: ir.Value) -> ir.GlobalVariable | None:
    """The global a constant pointer expression is based on (``@G``,
    ``getelementptr (i8, ptr @G, i64 8)``, casts of it), or None."""
    for _ in range(32):
        if isinstance(v, ir.GlobalVariable):
            return v
        if isinstance(v, ir.ConstantExpr) and v.opcode in _POINTER_CASTS and v.operands:
            v = v.operands[0]
            continue
        return None
    return None


@dataclass(frozen=True)
class GlobalActivity:
    """The active globals of a module and the functions that touch them."""

    active: frozenset[ir.GlobalVariable] = frozenset()
    users: frozenset[ir.Function] = frozenset()
    writers: frozenset[ir.Function] = frozenset()
    # why each global is active (for diagnostics): the instruction that made it so
    reasons: Mapping[ir.GlobalVariable, ir.Instruction | None] = field(default_factory=dict)
    # the globals kept inactive because nothing reachable from them holds a float, and
    # the classes of pointers that decided it (irgrad.analysis.type_reach)
    float_free: frozenset[ir.GlobalVariable] = frozenset()
    classes: FloatFreeGlobals | None = None

    def is_active(self, v: ir.Value) -> bool:
        g = global_base(v)
        return g is not None and g in self.active

    def points_into_float_free(self, v: ir.Value) -> bool:
        """Pointer ``v`` points into memory reachable from a global kept inactive because
        no floating-point value can be there (a message log's strings): no derivative
        is ever read or written through it."""
        return self.classes is not None and self.classes.in_class_of(v, self.float_free)

    def uses_active_globals(self, fn: ir.Function | None) -> bool:
        return fn is not None and fn in self.users

    def writes_active_globals(self, fn: ir.Function | None) -> bool:
        return fn is not None and fn in self.writers


NO_ACTIVE_GLOBALS = GlobalActivity()


def reachable_functions(roots: Iterable[ir.Function]) -> set[ir.Function]:
    """The defined functions ``roots`` may run: through direct calls, and -- when one of
    them calls through a pointer -- every function whose address is taken."""
    seen: set[ir.Function] = set()
    work = list(dict.fromkeys(f for f in roots if not f.is_declaration))
    indirect = False
    module: ir.Module | None = None
    while work:
        fn = work.pop()
        if fn not in seen:
            seen.add(fn)
            module = module or fn.parent
            indirect = _visit_calls(fn, seen, work) or indirect
        # (checked after every item, also one already seen: the list of roots may name a
        # function twice, and the last item popped decides whether the walk ends here)
        if not work and indirect and module is not None:
            indirect = False
            work = [f for f in module.functions if not f.is_declaration and f not in seen
                    and any(not (isinstance(u.user, ir.CallBase) and u.user.callee is f)
                            for u in f.uses)]
    return seen


def _visit_calls(fn: ir.Function, seen: set[ir.Function], work: list[ir.Function]) -> bool:
    """Queue the defined functions ``fn`` calls or hands to a callee; whether it calls
    through a pointer."""
    indirect = False
    for inst in fn.instructions():
        if not isinstance(inst, ir.CallBase):
            continue
        callee = inst.called_function
        if callee is None:
            indirect = indirect or not isinstance(inst.callee, ir.InlineAsm)
        elif not callee.is_declaration and callee not in seen:
            work.append(callee)
        for a in inst.args:  # a function handed to a callee may be called by it
            if isinstance(a, ir.Function) and not a.is_declaration and a not in seen:
                work.append(a)
    return indirect


def _pointer_uses(inst: ir.Instruction, index: int, p: ir.Value
                  ) -> Iterable[tuple[ir.Value, ir.Instruction, int]]:
    """Operand ``index`` of ``inst`` is the global-based pointer ``p``: every use of a
    pointer derived from it (through GEPs and pointer casts), as (pointer, user, operand
    index)."""
    work: list[tuple[ir.Value, ir.Instruction, int]] = [(p, inst, index)]
    seen: set[int] = set()
    while work:
        ptr, user, k = work.pop()
        if user.opcode in _POINTER_CASTS and k == 0:
            if id(user) in seen:
                continue
            seen.add(id(user))
            work.extend((user, u.user, u.index) for u in user.uses
                        if isinstance(u.user, ir.Instruction))
        else:
            yield ptr, user, k


def _classify_use(g: ir.GlobalVariable, p: ir.Value, u: ir.Instruction, index: int
                  ) -> tuple[bool, bool]:
    """(writes, makes active) for operand ``index`` of ``u``, pointer ``p`` based on
    ``g``."""
    if isinstance(u, ir.LoadInst):
        return False, False
    if isinstance(u, ir.StoreInst):
        if u.value is p:  # the address itself is stored: it escapes
            return False, True
        v = u.value
        return True, not isinstance(v, ir.Constant) and _carries(v.type, g)
    if isinstance(u, ir.AtomicCmpXchgInst):  # {old, success}: it stores its new value
        return True, _carries(u.new_value.type, g)
    if isinstance(u, ir.AtomicRMWInst):
        return True, _carries(u.type, g)
    if isinstance(u, ir.CallBase):
        name = callee_name(u)
        if is_inactive_call(name):
            return False, False
        if is_memset(name):
            return index == 0, False
        if is_memory_transfer(name):
            if index != 0:
                return False, False
            src = global_base(u.args[1])
            return True, not (src is not None and src.is_constant)
        return True, True  # passed to a function: irgrad cannot follow it
    if isinstance(u, ir.CmpInst) or u.opcode == "ptrtoint":
        return False, False
    return True, True  # phi, select, returned, ...: the address escapes


def _globals_in(c: ir.Value, depth: int = 0) -> Iterable[ir.GlobalVariable]:
    """The global variables a constant refers to (in aggregates and expressions)."""
    if isinstance(c, ir.GlobalVariable):
        yield c
    elif isinstance(c, ir.Constant) and not isinstance(c, ir.GlobalValue) and depth < 16:
        for op in c.operands:
            yield from _globals_in(op, depth + 1)


def _carries(t: ir.Type, g: ir.GlobalVariable) -> bool:
    """Can a stored value of type ``t`` carry a derivative into ``g``? Floating-point
    data and pointers can; an integer can when ``g`` holds floating-point data (a double
    copied as an i64)."""
    if has_float(t) or t.is_pointer:
        return True
    return isinstance(t, ir.IntType) and t.width >= 16 and has_float(g.value_type)


def _candidate(g: ir.GlobalVariable) -> bool:
    """A global that may become active: not constant, not irgrad's or LLVM's own, not
    registered inactive (``__enzyme_inactive_global``, whose table holds its address)."""
    return (not g.is_constant and not g.name.startswith(("__irgrad_", "llvm."))
            and not is_inactive_global(g.name) and may_hold_derivative(g.value_type))


def global_activity(module: ir.Module, roots: Iterable[ir.Function] | None = None,
                    user_shadows: Iterable[ir.GlobalVariable] = ()) -> GlobalActivity:
    """Classify the globals of ``module`` for derivatives of ``roots`` (the functions
    differentiated; all defined functions when None)."""
    roots = list(roots) if roots is not None else [
        f for f in module.functions if not f.is_declaration]
    reach = reachable_functions(roots)
    user_shadows = list(user_shadows)
    active: dict[ir.GlobalVariable, ir.Instruction | None] = {
        g: None for g in user_shadows}
    # globals whose address is data in another global's initializer (not LLVM's own
    # lists): what is written through it cannot be followed
    for holder in module.globals:
        init = holder.initializer
        if init is None or holder.name.startswith("llvm."):
            continue
        for g in _globals_in(init):
            if _candidate(g):
                active.setdefault(g, None)
    touch: dict[ir.GlobalVariable, list[tuple[ir.Function, bool]]] = {}
    for fn in reach:  # (only these bodies: others may stay unparsed)
        for inst in fn.instructions():
            for k, op in enumerate(inst.operands):
                g = global_base(op) if isinstance(op, ir.Constant) else None
                if g is None or not (_candidate(g) or g in active):
                    continue
                for p, user, index in _pointer_uses(inst, k, op):
                    writes, makes_active = _classify_use(g, p, user, index)
                    touch.setdefault(g, []).append((fn, writes))
                    if makes_active and _candidate(g):
                        active.setdefault(g, user)
    classes, float_free = _drop_float_free(module, reach, roots, active, user_shadows)
    direct_users: set[ir.Function] = set()
    direct_writers: set[ir.Function] = set()
    for g in active:
        for fn, writes in touch.get(g, ()):
            direct_users.add(fn)
            if writes:
                direct_writers.add(fn)
    return GlobalActivity(
        active=frozenset(active),
        users=frozenset(_callers_closure(direct_users, reach)),
        writers=frozenset(_callers_closure(direct_writers, reach)),
        reasons=active,
        float_free=frozenset(float_free),
        classes=classes,
    )


def _drop_float_free(module: ir.Module, reach: set[ir.Function], roots: list[ir.Function],
                     active: dict[ir.GlobalVariable, ir.Instruction | None],
                     user_shadows: list[ir.GlobalVariable]
                     ) -> tuple[FloatFreeGlobals | None, list[ir.GlobalVariable]]:
    """A global made active by its uses alone (its address escapes, a pointer is stored
    into it) stays inactive when nothing reachable from it can hold a floating-point
    value (a ``std::vector<std::string>`` message log: :mod:`irgrad.analysis.type_reach`)."""
    maybe = [g for g, why in active.items()
             if why is not None and g not in user_shadows and not has_float(g.value_type)]
    if not maybe:
        return None, []
    classes = FloatFreeGlobals(module, reach, roots)
    dropped = [g for g in maybe if classes.is_float_free(g)]
    for g in dropped:
        del active[g]
    return (classes if dropped else None), dropped


def _callers_closure(direct: set[ir.Function], reach: set[ir.Function]) -> set[ir.Function]:
    """``direct`` and every function of ``reach`` that calls one of them (transitively)."""
    out = set(direct)
    changed = bool(out)
    while changed:
        changed = False
        for fn in reach:
            if fn in out:
                continue
            for inst in fn.instructions():
                if isinstance(inst, ir.CallBase) and inst.called_function in out:
                    out.add(fn)
                    changed = True
                    break
    return out


__all__ = [
    "NO_ACTIVE_GLOBALS",
    "GlobalActivity",
    "global_activity",
    "global_base",
    "has_float",
    "may_hold_derivative",
    "reachable_functions",
]
