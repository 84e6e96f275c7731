"""Shadow globals: the derivative memory of a module's global variables (Enzyme's
shadow globals).

:mod:`irgrad.analysis.global_activity` decides which mutable globals are active. Each
active global ``@G`` gets a **shadow global** ``@G.shadow`` of the same type (one per lane
in vector forward mode: ``@G.shadow.1``...), shared by every derivative of the module, so a
derivative flows through ``@G`` across functions exactly as through any other memory:
forward mode keeps the tangent of ``@G`` in it, reverse mode its adjoint.

**Zeroed at each top-level call.** The shadow of a global irgrad created holds no seed of
the user's: before each call of a derivative the user asked for (``__enzyme_autodiff``,
``__enzyme_fwddiff``, ``__enzyme_augmentfwd``; :func:`zero_shadows_before`) the shadows
that derivative uses (for an augmented primal, also those its reverse uses) are zeroed,
as Enzyme zeroes the shadow it creates for a global. The global's value on entry is then
a constant of the call (tangent 0), and the adjoint of that initial value is not
returned -- only arguments and the result are inputs and outputs of a derivative.

**The user's shadows.** Enzyme's conventions name a shadow the user owns: the
``enzyme_shadow`` metadata on a global (``@G = global double 0.0, !enzyme_shadow !{ptr
@G_d}``), the attribute ``__attribute__((enzyme_shadow(G_d))) double G;`` (an
``annotate("enzyme_shadow", &G_d)``), or a table in C, ``void
*__enzyme_shadow_globals[][2] = {{&G, &G_d}};``. Such a
global is active, its shadow is the user's and is never zeroed: the user seeds tangents
there and reads adjoints back, as in Enzyme.

**Constant globals** (``static const double C[]``) carry no derivative, but a pointer to
one may meet active pointers (``cond ? C[i] : x[i]``), and then needs a shadow: forward
mode reads ``@C.zero`` (zero, never written), reverse mode adds the adjoints it would give
``C`` into ``@C.sink`` (never read), so neither mode needs to know where the pointer points.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from irgrad import ir
from irgrad.ad.core.context import DerivativeContext
from irgrad.analysis.global_activity import GlobalActivity, global_activity, global_base
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.underlying_objects import underlying_object

ROOTS_KEY = "shadow_globals.roots"
_ACTIVITY_KEY = "shadow_globals.activity"
_SHADOWS_KEY = "shadow_globals.shadows"
USER_TABLE = "__enzyme_shadow_globals"


def set_roots(ctx: DerivativeContext, functions: Iterable[ir.Function]) -> None:
    """The functions the module differentiates (the first arguments of its ``__enzyme_*``
    calls): the code that runs inside derivatives is what they reach."""
    ctx.analyses[ROOTS_KEY] = list(functions)


def global_activity_of(ctx: DerivativeContext) -> GlobalActivity:
    """The module's active globals (computed once per context)."""
    got = ctx.analyses.get(_ACTIVITY_KEY)
    if got is None:
        roots = ctx.analyses.get(ROOTS_KEY)
        shadows = shadow_globals_of(ctx)
        got = global_activity(ctx.module, roots,  # type: ignore[arg-type]
                              user_shadows=shadows.user_shadows)
        ctx.analyses[_ACTIVITY_KEY] = got
    return got  # type: ignore[return-value]


def shadow_globals_of(ctx: DerivativeContext) -> ShadowGlobals:
    got = ctx.analyses.get(_SHADOWS_KEY)
    if got is None:
        got = ctx.analyses[_SHADOWS_KEY] = ShadowGlobals(ctx.module)
    return got  # type: ignore[return-value]


class ShadowGlobals:
    """The shadow globals of one module, created on first use."""

    def __init__(self, module: ir.Module) -> None:
        self.module = module
        self.user_shadows: dict[ir.GlobalVariable, ir.GlobalVariable] = _user_shadows(module)
        self._lanes: dict[tuple[ir.GlobalVariable, int], ir.GlobalVariable] = {}
        self._zero: dict[ir.GlobalVariable, ir.GlobalVariable] = {}
        self._sink: dict[ir.GlobalVariable, ir.GlobalVariable] = {}
        self.owned: set[ir.GlobalVariable] = set()  # zeroed before each top-level call

    # -- creation ------------------------------------------------------------------------
    def why_not(self, g: ir.GlobalVariable) -> str | None:
        """Why ``g`` cannot have a shadow (None: it can)."""
        if g.addrspace != 0:
            return f"global @{g.name} is in address space {g.addrspace}"
        if alloc_size(g.value_type) == 0:
            return (f"global @{g.name} is declared without its size in this module "
                    "(compile the file that defines it together with this one)")
        return None

    def _new(self, g: ir.GlobalVariable, suffix: str) -> ir.GlobalVariable:
        s = ir.GlobalVariable(self.module.unique_name(f"{g.name}.{suffix}"), g.value_type,
                              ir.null_value(g.value_type), linkage="internal",
                              addrspace=g.addrspace)
        s.align = g.align
        s.thread_local = g.thread_local
        self.module.add_global(s)
        return s

    def shadow(self, g: ir.GlobalVariable, lane: int = 0) -> ir.GlobalVariable:
        """The shadow of active global ``g`` in lane ``lane`` (vector forward mode)."""
        user = self.user_shadows.get(g)
        if user is not None and lane == 0:
            return user
        got = self._lanes.get((g, lane))
        if got is None:
            got = self._new(g, "shadow" if lane == 0 else f"shadow.{lane}")
            self._lanes[(g, lane)] = got
            self.owned.add(got)
        return got

    def constant_shadow(self, g: ir.GlobalVariable, *, reverse: bool) -> ir.GlobalVariable:
        """The shadow of constant global ``g``: zero (forward), a sink (reverse)."""
        table = self._sink if reverse else self._zero
        got = table.get(g)
        if got is None:
            got = table[g] = self._new(g, "sink" if reverse else "zero")
        return got

    def rebuild(self, c: ir.Value, base: ir.GlobalVariable) -> ir.Value:
        """Constant pointer ``c`` (a global or a constant GEP/cast chain on one) with its
        global replaced by ``base``."""
        if isinstance(c, ir.GlobalVariable):
            return base
        assert isinstance(c, ir.ConstantExpr)
        ops = list(c.operands)
        ops[0] = self.rebuild(ops[0], base)
        return ir.ConstantExpr(c.opcode, c.type, ops, c.flags, c.predicate, c.source_type)

    # -- pointers kept in globals ---------------------------------------------------------
    def check_pointer_shadow(self, b: ir.IRBuilder, shadow: ir.Value, primal: ir.Value,
                             pointer: ir.Value,
                             into: ir.GlobalVariable | None = None) -> ir.Value:
        """``shadow``, the shadow of a pointer loaded through ``pointer``, checked at run
        time when it comes from the zeroed shadow of an active global: a null shadow of a
        non-null pointer means the pointer was stored before this derivative was called
        (outside it, or in an earlier call), and its shadow is unknown. The derivative
        then stops with a message instead of dereferencing null. ``into``: the global
        ``pointer`` points into when the caller knows it (a callee's argument)."""
        got = memory_global(pointer) if into is None else (into, False)
        if got is None or got[1] or got[0] in self.user_shadows:
            return shadow
        g = got[0]
        text = (f"irgrad: the pointer in global @{g.name} was set before this derivative "
                "was called (outside the differentiated code, or in an earlier call): its "
                "shadow is unknown. Assign it inside the differentiated function, or pass "
                "the memory it points to as an argument with enzyme_dup.\n").encode()
        msg = self._message(text)
        return b.call(self._checker(), [shadow, primal, msg,
                                        ir.ConstantInt(ir.i64, len(text))])

    def _message(self, text: bytes) -> ir.GlobalVariable:
        ty = ir.ArrayType(len(text), ir.i8)
        gv = ir.GlobalVariable(self.module.unique_name("__irgrad_shadow_msg"), ty,
                               ir.ConstantDataString(ty, text), is_constant=True,
                               linkage="private")
        gv.unnamed_addr = "unnamed_addr"
        self.module.add_global(gv)
        return gv

    def _checker(self) -> ir.Function:
        """``ptr @__irgrad_check_global_shadow(ptr s, ptr p, ptr msg, i64 len)``: ``s``,
        or write ``msg`` to stderr and abort when ``s`` is null and ``p`` is not."""
        name = "__irgrad_check_global_shadow"
        fn = self.module.get_function(name)
        if fn is not None:
            return fn
        fn = ir.Function(name, ir.FunctionType(ir.ptr, [ir.ptr, ir.ptr, ir.ptr, ir.i64]),
                         linkage="internal", arg_names=["s", "p", "msg", "len"])
        self.module.add_function(fn)
        s, p, msg, n = fn.args
        entry = fn.append_basic_block("entry")
        fail = fn.append_basic_block("fail")
        ok = fn.append_basic_block("ok")
        b = ir.IRBuilder(entry)
        null = ir.ConstantPointerNull(ir.ptr)
        bad = b.and_(b.icmp("eq", s, null), b.icmp("ne", p, null))
        b.cond_br(bad, fail, ok)
        b.position_at_end(fail)
        write = self.module.get_or_insert_function(
            "write", ir.FunctionType(ir.i64, [ir.i32, ir.ptr, ir.i64]))
        abort = self.module.get_or_insert_function("abort", ir.FunctionType(ir.void, []))
        b.call(write, [ir.ConstantInt(ir.i32, 2), msg, n])
        b.call(abort, [])
        b.unreachable()
        b.position_at_end(ok)
        b.ret(s)
        return fn

    # -- zeroing -------------------------------------------------------------------------
    def used_by(self, fn: ir.Function) -> list[ir.GlobalVariable]:
        """The zeroed shadows ``fn`` and the functions it calls refer to."""
        if not self.owned:
            return []
        found: dict[ir.GlobalVariable, None] = {}
        seen: set[ir.Function] = set()
        work = [fn]
        while work:
            f = work.pop()
            if f in seen or f.is_declaration:
                continue
            seen.add(f)
            for inst in f.instructions():
                for op in inst.operands:
                    if isinstance(op, ir.Function):
                        work.append(op)
                        continue
                    g = global_base(op) if isinstance(op, ir.Constant) else None
                    if g is not None and g in self.owned:
                        found[g] = None
        return list(found)

    def zero_before(self, b: ir.IRBuilder, *fns: ir.Function) -> None:
        """At ``b``: zero the shadows the derivatives ``fns`` use (an augmented primal and
        its reverse: the reverse reads adjoints out of shadows the augmented primal never
        touches, such as the one a ``memcpy`` into a global leaves to its reverse)."""
        found: dict[ir.GlobalVariable, None] = {}
        for fn in fns:
            found.update(dict.fromkeys(self.used_by(fn)))
        for s in found:
            b.memset(s, 0, ir.ConstantInt(ir.i64, alloc_size(s.value_type)), s.align)


def memory_global(p: ir.Value) -> tuple[ir.GlobalVariable, bool] | None:
    """The global behind pointer ``p``: (``@G``, False) when ``p`` points into ``@G``,
    (``@P``, True) when ``p`` was loaded from ``@P`` (a global holding a pointer); None
    otherwise."""
    base = underlying_object(p)
    if base is None:
        return None
    g = global_base(base)
    if g is not None:
        return g, False
    if isinstance(base, ir.LoadInst):
        holder = underlying_object(base.pointer)
        h = global_base(holder) if holder is not None else None
        if h is not None:
            return h, True
    return None


def unshadowed_memory(p: ir.Value, what: str) -> str:
    """The error for ``what`` ("active value stored", "active data copied") going into
    memory without a shadow through pointer ``p``."""
    got = memory_global(p)
    if got is None:
        return (f"{what} into memory without a shadow (a constant pointer): its derivative "
                "would be lost")
    g, through = got
    if through:
        return (f"{what} into the memory global @{g.name} points to: that memory was set "
                "up outside the differentiated code and has no shadow, so its derivative "
                "would be lost (pass it as an argument with enzyme_dup, or assign "
                f"@{g.name} inside the differentiated function)")
    return f"{what} into global @{g.name}, which has no shadow: its derivative would be lost"


def zero_shadows_before(ctx: DerivativeContext, b: ir.IRBuilder, *fns: ir.Function) -> None:
    """Before a user's call of derivative ``fns[0]``: zero the shadow globals it uses, and
    those of the derivatives that continue it (the reverse of an augmented primal)."""
    shadow_globals_of(ctx).zero_before(b, *fns)


# -- the user's shadows ------------------------------------------------------------------------

_MD_REF = re.compile(r"^!(\d+)$")
_MD_LINE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!\{\s*ptr\s+@(\"[^\"]+\"|[\w.$-]+)\s*\}")


def _user_shadows(module: ir.Module) -> dict[ir.GlobalVariable, ir.GlobalVariable]:
    """``enzyme_shadow`` metadata and the ``__enzyme_shadow_globals`` table: global ->
    the shadow the user declared for it."""
    out: dict[ir.GlobalVariable, ir.GlobalVariable] = {}
    nodes: dict[str, str] | None = None
    for g in module.globals:
        for kind, ref in g.metadata:
            if kind.lstrip("!") != "enzyme_shadow":
                continue
            if nodes is None:
                nodes = {}
                for line in module.metadata:
                    m = _MD_LINE.match(line.strip())
                    if m:
                        nodes[m.group(1)] = m.group(2).strip('"')
            m = _MD_REF.match(ref.strip())
            target = module.get_global(nodes.get(m.group(1), "")) if m else None
            if target is not None:
                out[g] = target
    annotations = module.get_global("llvm.global.annotations")
    entries = annotations.initializer if annotations is not None else None
    if isinstance(entries, ir.ConstantAggregate):
        for entry in entries.elements:
            if isinstance(entry, ir.ConstantAggregate) and len(entry.elements) >= 5:
                g = global_base(entry.elements[0])
                text = global_base(entry.elements[1])
                s = annotated_shadow(entry.elements[4])
                if g is not None and s is not None and text is not None and isinstance(
                        text.initializer, ir.ConstantDataString) and \
                        text.initializer.data.split(b"\0", 1)[0] == b"enzyme_shadow":
                    out[g] = s
    table = module.get_global(USER_TABLE)
    init = table.initializer if table is not None else None
    if isinstance(init, ir.ConstantAggregate):
        for pair in init.elements:
            if isinstance(pair, ir.ConstantAggregate) and len(pair.elements) == 2:
                g, s = (global_base(e) for e in pair.elements)
                if g is not None and s is not None:
                    out[g] = s
        if table is not None and not table.uses:  # read: the table itself is not needed
            module.remove_global(table)
    return out


def annotated_shadow(args: ir.Value) -> ir.GlobalVariable | None:
    """The global an ``annotate("enzyme_shadow", &G_d)``'s arguments (a constant struct
    ``{ptr @G_d}``) name, or None."""
    holder = global_base(args)
    init = holder.initializer if holder is not None else None
    if isinstance(init, ir.ConstantAggregate) and len(init.elements) == 1:
        return global_base(init.elements[0])
    return None


def constant_data_global(v: ir.Value) -> ir.GlobalVariable | None:
    """The constant global (``static const double T[]``) that pointer ``v`` -- address
    arithmetic (GEPs, casts) on the global, with run-time indices -- points into. Where
    such a pointer meets active pointers (``c ? x : T[i % 8]``), its shadow is the same
    arithmetic on the global's zero shadow (forward) or sink (reverse)."""
    for _ in range(64):
        if isinstance(v, ir.GetElementPtrInst) or (
                isinstance(v, ir.CastInst) and v.opcode in ("bitcast", "addrspacecast")):
            v = v.operands[0]
            continue
        break
    if isinstance(v, ir.GlobalVariable | ir.ConstantExpr):
        g = global_base(v)
        if g is not None and g.is_constant:
            return g
    return None


__all__ = [
    "ROOTS_KEY",
    "USER_TABLE",
    "ShadowGlobals",
    "annotated_shadow",
    "constant_data_global",
    "global_activity_of",
    "memory_global",
    "set_roots",
    "shadow_globals_of",
    "unshadowed_memory",
    "zero_shadows_before",
]
