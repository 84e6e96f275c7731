"""Runtime activity (Enzyme's ``enzyme_runtime_activity``): inactive pointer arguments
whose memory nevertheless carries derivatives.

A pointer passed ``enzyme_const`` promises that its memory holds nothing to differentiate.
Real code breaks the promise in two ways: it stores active values into that memory and
reads them back (ADBench's LSTM ``state`` as Enzyme's own benchmark passes it, a solver's
scratch buffer), or it mixes the pointer with active pointers (``xp = first ? input :
&state[i]``, an array of row pointers some of which are active). Both need a shadow for
the constant pointer; without one the derivatives that flow through its memory are lost.

:func:`params_needing_shadow` finds those arguments -- in the function itself and, through
the arguments it passes on, in every function it calls -- so that the derivative can give
each of them a zeroed shadow of its own for the duration of the call: the derivatives
that flow through the memory are exact, and the caller's buffer (constant, as promised)
receives none.
"""

from __future__ import annotations

from collections.abc import Sequence

from irgrad import ir
from irgrad.analysis.activity import ActivityAnalysis
from irgrad.analysis.known_functions import callee_name, is_memory_transfer
from irgrad.analysis.underlying_objects import underlying_objects

_Key = tuple[ir.Function, tuple[bool, ...]]


def params_needing_shadow(fn: ir.Function, active: Sequence[bool],
                          memo: dict[_Key, frozenset[int]] | None = None) -> frozenset[int]:
    """The indices of ``fn``'s inactive pointer parameters that need a shadow (see the
    module docstring), given which parameters are active."""
    memo = {} if memo is None else memo
    key = (fn, tuple(active))
    got = memo.get(key)
    if got is not None:
        return got
    memo[key] = frozenset()  # recursion: optimistic until computed
    promoted: set[int] = set()
    while True:
        acts = [a or k in promoted for k, a in enumerate(active)]
        need = _needing(fn, acts, memo)
        if need <= promoted:
            break
        promoted |= need
    result = frozenset(promoted)
    memo[key] = result
    return result


def _needing(fn: ir.Function, acts: list[bool], memo: dict[_Key, frozenset[int]]
             ) -> set[int]:
    inactive = {a: k for k, a in enumerate(fn.args) if a.type.is_pointer and not acts[k]}
    if not inactive or fn.is_declaration:
        return set()
    analysis = ActivityAnalysis.for_arguments(fn, acts)

    def roots(v: ir.Value) -> set[int]:
        return {inactive[o] for o in underlying_objects(v) if o in inactive}

    def carries(v: ir.Value) -> bool:
        return v in analysis.varied or (v.type.is_pointer and v in analysis.shadowed)

    need: set[int] = set()
    for inst in fn.instructions():
        if isinstance(inst, ir.StoreInst):
            if carries(inst.value):  # active data stored into the constant memory
                need |= roots(inst.pointer)
            if inst.value.type.is_pointer and analysis.loads_active(inst.pointer):
                need |= roots(inst.value)  # stored where active pointers live
        elif isinstance(inst, ir.PHINode | ir.SelectInst):
            if inst.type.is_pointer and inst in analysis.shadowed:
                need |= roots(inst)  # mixed with active pointers
        elif isinstance(inst, ir.CallBase):
            need |= _call_needing(inst, analysis, roots, carries, memo)
    return need


def _call_needing(call: ir.CallBase, analysis: ActivityAnalysis, roots, carries,  # type: ignore[no-untyped-def]
                  memo: dict[_Key, frozenset[int]]) -> set[int]:
    name = callee_name(call)
    if is_memory_transfer(name):
        return roots(call.args[0]) if call.args[1] in analysis.shadowed else set()
    callee = call.called_function
    if callee is None or callee.is_declaration or (name or "").startswith("llvm."):
        return set()
    args = call.args[: len(callee.args)]
    if not any(carries(a) for a in args):
        return set()
    inner = params_needing_shadow(callee, [carries(a) for a in args], memo)
    need: set[int] = set()
    for j in inner:
        need |= roots(args[j])
    return need


__all__ = ["params_needing_shadow"]
