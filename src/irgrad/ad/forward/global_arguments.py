"""Forward mode: pointers into active globals that reach callees as arguments.

The shadow of an active global is zeroed before each top-level derivative call, so a
pointer the global held before the call (a function-static ``std::vector`` workspace
filled by an earlier primal call) has a null shadow. A pointer loaded from the global's
shadow is checked at run time
(:meth:`irgrad.ad.core.shadow_globals.ShadowGlobals.check_pointer_shadow`); inside a
callee the global is an argument (``this`` of ``vector::assign``), so each derivative
records which of its arguments point into which active global (``GLOBAL_ARGS_KEY`` in
its ``FnConfig.extra``) and checks pointers loaded through them the same way, instead of
dereferencing the null shadow.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.shadow_globals import memory_global, shadow_globals_of
from irgrad.analysis.tbaa import module_tbaa
from irgrad.analysis.underlying_objects import underlying_object

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass

# pairs (argument index, active global it points into) of a forward derivative
GLOBAL_ARGS_KEY = "global_arguments"


def global_params(config_extra: Iterable[tuple[str, object]]
                  ) -> dict[int, ir.GlobalVariable]:
    """The parameters a forward derivative receives pointers into active globals for."""
    for key, value in config_extra:
        if key == GLOBAL_ARGS_KEY:
            return dict(value)  # type: ignore[call-overload]
    return {}


def global_behind(fp: ForwardPass, p: ir.Value) -> ir.GlobalVariable | None:
    """The active global pointer ``p`` points into (directly, or through an argument the
    caller passed it in), whose shadow the derivative's caller zeroed; None otherwise."""
    got = memory_global(p)
    if got is not None:
        g, through = got
        return g if not through and fp.globals.is_active(g) else None
    base = underlying_object(p)
    return fp.global_args.get(base) if base is not None else None


def checked_pointer_shadows(fp: ForwardPass, loaded: list[ir.Value], inst: ir.LoadInst
                            ) -> list[ir.Value]:
    """The shadows ``loaded`` of pointer ``inst``, checked when ``inst`` reads memory of
    an active global: a null shadow of a non-null pointer stops with a message."""
    p = inst.pointer
    if not inst.type.is_pointer or _vtable_pointer(inst):
        return loaded
    g = global_behind(fp, p)
    if g is None:
        return loaded
    shadows = shadow_globals_of(fp.ctx)
    return [shadows.check_pointer_shadow(fp.b, s, inst, p, into=g) for s in loaded]


def _vtable_pointer(inst: ir.LoadInst) -> bool:
    """A C++ object's vtable pointer (TBAA ``vtable pointer``): a static object's was set
    by its constructor before any derivative ran, so its shadow in the zeroed shadow
    global is null; forward mode picks the callee by the primal's vtable, and the shadow
    is read only by a call through it (as before objects reached callees as arguments)."""
    tag = inst.get_metadata("tbaa")
    fn = inst.function
    module = fn.parent if fn is not None else None
    if tag is not None and module is not None:
        return module_tbaa(module).type_name(tag) == "vtable pointer"
    return _only_dispatches(inst)  # (-O0 has no TBAA: the loaded table only picks callees)


def _only_dispatches(table: ir.Value, depth: int = 0) -> bool:
    """Every use of ``table`` reads a function pointer out of it (through offsets) that
    is only called or compared."""
    if depth > 4 or not table.uses:
        return False
    for use in table.uses:
        u = use.user
        if isinstance(u, ir.GetElementPtrInst) and use.index == 0:
            if not _only_dispatches(u, depth + 1):
                return False
        elif isinstance(u, ir.LoadInst) and u.type.is_pointer:
            if not u.uses or not all(
                    (isinstance(c.user, ir.CallBase) and c.user.callee is u)
                    or isinstance(c.user, ir.CmpInst) for c in u.uses):
                return False
        elif not isinstance(u, ir.CmpInst):
            return False
    return True


def global_args_extra(fp: ForwardPass, args: Sequence[ir.Value],
                      shadowed: Sequence[bool]) -> tuple[tuple[str, object], ...]:
    """The ``FnConfig.extra`` entry of a callee taking ``args``: the shadowed pointer
    arguments that point into active globals."""
    pairs = []
    for i, (a, dup) in enumerate(zip(args, shadowed, strict=False)):
        if dup and a.type.is_pointer:
            g = global_behind(fp, a)
            if g is not None:
                pairs.append((i, g))
    return ((GLOBAL_ARGS_KEY, tuple(pairs)),) if pairs else ()


__all__ = ["GLOBAL_ARGS_KEY", "checked_pointer_shadows", "global_args_extra",
           "global_behind", "global_params"]
