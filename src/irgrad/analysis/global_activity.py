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
  never is; nor are irgrad's own globals (``__irgrad_*``) or LLVM's (``llvm.*``).

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
    is_memory_transfer,
    is_memset,
)

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

    def is_active(self, v: ir.Value) -> bool:
        g = global_base(v)
        return g is not None and g in self.active

    def uses_active_globals(self, fn: ir.Function | None) -> bool:
        return fn is not None and fn in self.users

    def writes_active_globals(self, fn: ir.Function | None) -> bool:
        return fn is not None and fn in self.writers


NO_ACTIVE_GLOBALS = GlobalActivity()


def reachable_functions(roots: Iterable[ir.Function]) -> set[ir.Function]:
    """The defined functions ``roots`` may run: through direct calls, and -- when one of
    them calls through a pointer -- every function whose address is taken."""
    seen: set[ir.Function] = set()
    work = [f for f in roots if not f.is_declaration]
    indirect = False
    module: ir.Module | None = None
    while work:
        fn = work.pop()
        if fn in seen:
            continue
        seen.add(fn)
        module = module or fn.parent
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
        if not work and indirect and module is not None:
            indirect = False
            work = [f for f in module.functions if not f.is_declaration and f not in seen
                    and any(not (isinstance(u.user, ir.CallBase) and u.user.callee is f)
                            for u in f.uses)]
    return seen


def _pointer_uses(g: ir.GlobalVariable) -> Iterable[tuple[ir.Value, ir.Use]]:
    """Every use of a pointer based on ``g`` (through constant expressions, GEPs and
    pointer casts): (the pointer, its use)."""
    work: list[ir.Value] = [g]
    seen: set[int] = set()
    while work:
        p = work.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        for use in p.uses:
            u = use.user
            if (isinstance(u, ir.ConstantExpr) and u.opcode in _POINTER_CASTS
                    and use.index == 0) or (
                    isinstance(u, ir.Instruction) and u.opcode in _POINTER_CASTS
                    and use.index == 0):
                work.append(u)
            else:
                yield p, use


def _classify_use(g: ir.GlobalVariable, p: ir.Value, use: ir.Use) -> tuple[bool, bool]:
    """(writes, makes active) for one use of pointer ``p`` based on ``g``."""
    u = use.user
    if isinstance(u, ir.LoadInst):
        return False, False
    if isinstance(u, ir.StoreInst):
        if u.value is p:  # the address itself is stored: it escapes
            return False, True
        v = u.value
        return True, not isinstance(v, ir.Constant) and _carries(v.type, g)
    if isinstance(u, ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
        return True, _carries(u.type, g)
    if isinstance(u, ir.CallBase):
        name = callee_name(u)
        if is_inactive_call(name):
            return False, False
        if is_memset(name):
            return use.index == 0, False
        if is_memory_transfer(name):
            if use.index != 0:
                return False, False
            src = global_base(u.args[1])
            return True, not (src is not None and src.is_constant)
        return True, True  # passed to a function: irgrad cannot follow it
    if isinstance(u, ir.CmpInst) or (isinstance(u, ir.Instruction) and u.opcode == "ptrtoint"):
        return False, False
    return True, True  # phi, select, returned, ...: the address escapes


def _only_llvm_lists(c: ir.Value) -> bool:
    """Constant ``c`` (a user of a global's address) ends up only in ``@llvm.used``-style
    globals, or nowhere."""
    if isinstance(c, ir.GlobalVariable):
        return c.name.startswith("llvm.")
    if not isinstance(c, ir.Constant) or isinstance(c, ir.GlobalValue):
        return False
    return all(_only_llvm_lists(use.user) for use in c.uses)


def _carries(t: ir.Type, g: ir.GlobalVariable) -> bool:
    """Can a stored value of type ``t`` carry a derivative into ``g``? Floating-point
    data and pointers can; an integer can when ``g`` holds floating-point data (a double
    copied as an i64)."""
    if has_float(t) or t.is_pointer:
        return True
    return isinstance(t, ir.IntType) and t.width >= 16 and has_float(g.value_type)


def _candidate(g: ir.GlobalVariable) -> bool:
    return (not g.is_constant and not g.name.startswith(("__irgrad_", "llvm."))
            and may_hold_derivative(g.value_type))


def global_activity(module: ir.Module, roots: Iterable[ir.Function] | None = None,
                    user_shadows: Iterable[ir.GlobalVariable] = ()) -> GlobalActivity:
    """Classify the globals of ``module`` for derivatives of ``roots`` (the functions
    differentiated; all defined functions when None)."""
    reach = reachable_functions(
        roots if roots is not None else [f for f in module.functions if not f.is_declaration])
    active: dict[ir.GlobalVariable, ir.Instruction | None] = {
        g: None for g in user_shadows}
    touch: dict[ir.GlobalVariable, list[tuple[ir.Function, bool]]] = {}
    for g in module.globals:
        if not _candidate(g) and g not in active:
            continue
        uses: list[tuple[ir.Function, bool]] = []
        for p, use in _pointer_uses(g):
            u = use.user
            fn = u.function if isinstance(u, ir.Instruction) else None
            if fn is None:
                # in another global's initializer (not LLVM's own lists): the address is
                # data now, and what is written through it cannot be followed
                if not isinstance(u, ir.Instruction) and not _only_llvm_lists(u):
                    active.setdefault(g, None)
                continue
            if fn not in reach:
                continue
            writes, makes_active = _classify_use(g, p, use)
            uses.append((fn, writes))
            if makes_active and _candidate(g):
                active.setdefault(g, u)  # type: ignore[arg-type]
        touch[g] = uses
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
    )


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
