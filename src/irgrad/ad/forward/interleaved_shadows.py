"""Interleaved shadow memory for vector forward mode (width N > 1).

The shadow of a pointer normally is N separate pointers, one per tangent (Enzyme's
layout, and the one a user passes to ``__enzyme_fwddiff``). For memory that irgrad
allocates itself -- the shadow of a ``malloc``/``alloca`` inside the differentiated code
-- that layout makes every load of an active ``double`` N scalar loads from N buffers,
assembled into the ``<N x double>`` tangent, and every store N extracts and N stores:
N lane pointers live at once, far more than there are registers.

Such a shadow is laid out *interleaved* instead: one buffer of N times the size, where
the N tangents of the element at byte offset ``o`` sit side by side at ``o * N``. The
shadow pointer of ``p = base + o`` is ``shadow_base + o * N`` (a GEP on the shadow
scales its offset by N: ``gep double, %p, %i`` becomes ``gep [N x double], %p', %i``),
and the tangent of a ``double`` load is one ``<N x double>`` load.

That holds only while every access to the memory is a scalar of one floating-point
type (``load``/``store double``), so :func:`interleaved_values` admits an allocation only
if every use of it and of the pointers derived from it is one of: a GEP over scalars or
arrays of scalars, a non-volatile ``load``/``store`` of one floating-point type (as the
address), ``llvm.memset``, ``free``/``delete``, a lifetime marker, ``icmp``/``ptrtoint``
(which read the primal only), or an argument of a defined function whose parameter
admits the same (checked recursively: the callee's derivative then takes one
interleaved shadow for that parameter, see ``FnConfig.extra["interleaved"]``), or a
``memcpy``/``memmove`` to or from another allocation of the same function (the buffers
joined by copies are decided together: all interleaved with one element type, or none).
Anything else -- the pointer stored to memory, a phi or select of pointers, a copy from
a parameter or a global, an external call, integer or vector accesses -- keeps the
per-tangent layout.
"""

from __future__ import annotations

from collections.abc import Iterable

from irgrad import ir
from irgrad.ad.core.context import DerivativeContext
from irgrad.analysis.known_functions import (
    callee_name,
    free_pointer_arg,
    is_free,
    is_fresh_allocation,
)

INTERLEAVED_KEY = "interleaved"
# a pointer argument with one of these is a copy (or an ABI slot), not the memory itself
_COPYING_ATTRS = ("byval", "byref", "inalloca", "preallocated", "sret")
_TRANSFERS = ("llvm.memcpy.", "llvm.memmove.")


class _Reject(Exception):
    """A use that the interleaved layout cannot express."""


def widened(ty: ir.Type, width: int) -> ir.Type | None:
    """The GEP source type that scales ``ty``'s offsets by ``width`` (None: not
    expressible, e.g. a struct whose fields would need different scaling)."""
    if ty.is_integer or ty.is_float or ty.is_pointer:
        return ir.ArrayType(width, ty)
    if isinstance(ty, ir.ArrayType):
        inner = widened(ty.element, width)
        return ir.ArrayType(ty.count, inner) if inner is not None else None
    return None


def interleaved_params(config_extra: Iterable[tuple[str, object]]) -> frozenset[int]:
    """The parameter indices a forward derivative receives interleaved shadows for."""
    for key, value in config_extra:
        if key == INTERLEAVED_KEY:
            return frozenset(value)  # type: ignore[call-overload]
    return frozenset()


def _unify(elem: ir.Type | None, ty: ir.Type | None) -> ir.Type | None:
    if elem is None:
        return ty
    if ty is None or ty == elem:
        return elem
    raise _Reject


class InterleavingAnalysis:
    """Decides which shadows are interleaved; remembers its answers per callee parameter
    (one instance per derivative context)."""

    def __init__(self, width: int) -> None:
        self.width = width
        # per (function, parameter): its element type, None (no access) or False (not
        # admissible, also while the check is in progress: recursion is rejected)
        self._params: dict[tuple[ir.Function, int], ir.Type | bool | None] = {}

    def check(
        self, root: ir.Value, links: list[ir.Value] | None = None
    ) -> tuple[ir.Type | None, list[ir.Value]]:
        """The element type and the derived pointers (root included) of an admissible
        root; raises :class:`_Reject` if some use is not admissible. With ``links``, a
        ``memcpy``/``memmove`` between this memory and other memory is admitted and the
        other pointer appended to ``links`` (the caller decides both buffers together);
        without, it is rejected."""
        elem: ir.Type | None = None
        derived: list[ir.Value] = [root]
        seen = {root}
        k = 0
        while k < len(derived):
            v = derived[k]
            k += 1
            for use in v.uses:
                u = use.user
                if isinstance(u, ir.GetElementPtrInst):
                    if use.index != 0 or u.type.is_vector:
                        raise _Reject
                    if widened(u.source_type, self.width) is None:
                        raise _Reject
                    if u not in seen:
                        seen.add(u)
                        derived.append(u)
                elif isinstance(u, ir.LoadInst | ir.StoreInst):
                    ty = u.type if isinstance(u, ir.LoadInst) else u.value.type
                    if isinstance(u, ir.StoreInst) and use.index != 1:
                        raise _Reject  # the pointer itself is stored
                    if u.volatile or u.is_atomic or not ty.is_float:
                        raise _Reject
                    elem = _unify(elem, ty)
                elif isinstance(u, ir.CallBase):
                    name = callee_name(u) or ""
                    if name.startswith(_TRANSFERS) and use.index in (0, 1):
                        if links is None:
                            raise _Reject
                        links.append(u.args[1 - use.index])
                        continue
                    elem = _unify(elem, self._call_use(u, use.index))
                elif u.opcode not in ("icmp", "ptrtoint"):
                    raise _Reject
        return elem, derived

    def _call_use(self, call: ir.CallBase, index: int) -> ir.Type | None:
        name = callee_name(call) or ""
        if name.startswith("llvm.lifetime."):
            return None
        if name.startswith("llvm.memset.") and index == 0:
            return None
        if is_free(name) and index == free_pointer_arg(name):
            return None
        callee = call.called_function
        if (
            not isinstance(call, ir.CallInst)
            or callee is None
            or callee.is_declaration
            or index >= len(callee.function_type.params)
            or call.callee is not callee
            or any(attr.startswith(_COPYING_ATTRS) for attr in call.arg_attrs[index])
        ):
            raise _Reject
        return self.param_element(callee, index)

    def param_element(self, fn: ir.Function, index: int) -> ir.Type | None:
        """The element type of parameter ``index`` of ``fn`` if an interleaved shadow can
        be passed for it (raises :class:`_Reject` otherwise)."""
        key = (fn, index)
        if key not in self._params:
            self._params[key] = False
            self._params[key] = self.check(fn.args[index])[0]
        known = self._params[key]
        if known is False:
            raise _Reject
        return known  # type: ignore[return-value]


def _is_root(inst: ir.Value, width: int) -> bool:
    if isinstance(inst, ir.AllocaInst):
        return widened(inst.allocated_type, width) is not None
    return isinstance(inst, ir.CallInst) and is_fresh_allocation(callee_name(inst))


def _root_of(p: ir.Value) -> ir.Value:
    while isinstance(p, ir.GetElementPtrInst):
        p = p.pointer
    return p


def interleaved_values(
    analysis: InterleavingAnalysis,
    blocks: Iterable[ir.BasicBlock],
    forced: Iterable[ir.Value] = (),
) -> set[ir.Value]:
    """Every pointer value of a function body (given by its blocks) whose shadow is
    interleaved: the admissible allocations with at least one access, the pointers
    derived from them, and everything derived from the ``forced`` roots (parameters
    whose caller passes an interleaved shadow).

    Allocations joined by ``memcpy``/``memmove`` are decided together: all of them
    interleaved (one element type) or none."""
    out: set[ir.Value] = set()
    for root in forced:
        try:
            _, derived = analysis.check(root)
        except _Reject as exc:  # the caller checked the same parameter
            raise AssertionError(f"interleaved shadow passed for {root!r}") from exc
        out.update(derived)
    found: dict[ir.Value, tuple[ir.Type | None, list[ir.Value], list[ir.Value]]] = {}
    for bb in blocks:
        for inst in bb.instructions:
            if not _is_root(inst, analysis.width):
                continue
            links: list[ir.Value] = []
            try:
                elem, derived = analysis.check(inst, links)
            except _Reject:
                continue
            found[inst] = (elem, derived, [_root_of(p) for p in links])
    # a group of buffers joined by copies: every member admissible, one element type
    decided: set[ir.Value] = set()
    for start in found:
        if start in decided:
            continue
        group, todo, ok = [start], [start], True
        decided.add(start)
        while todo:
            for other in found[todo.pop()][2]:
                if other not in found:  # a parameter, a global, a rejected buffer
                    ok = False
                elif other not in decided:
                    decided.add(other)
                    group.append(other)
                    todo.append(other)
        elems = {found[r][0] for r in group} - {None}
        if not ok or len(elems) != 1:
            continue
        for r in group:
            out.update(found[r][1])
    return out


def interleaving_analysis(ctx: DerivativeContext, width: int) -> InterleavingAnalysis:
    """The module's (memoizing) interleaved-shadow analysis for vector width ``width``."""
    key = ("interleaving", width)
    got = ctx.analyses.get(key)
    if got is None:
        got = ctx.analyses[key] = InterleavingAnalysis(width)
    return got  # type: ignore[return-value]
