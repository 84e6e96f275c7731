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
    if not inst.type.is_pointer:
        return loaded
    g = global_behind(fp, p)
    if g is None:
        return loaded
    shadows = shadow_globals_of(fp.ctx)
    return [shadows.check_pointer_shadow(fp.b, s, inst, p, into=g) for s in loaded]


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
