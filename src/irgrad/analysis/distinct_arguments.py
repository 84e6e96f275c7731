"""Pointer arguments of a call that point into different objects.

A callback such as ``rhs(t, y, dydt, params)`` cannot tell from its own code whether
``dydt`` may alias ``y``: a store to ``dydt[i]`` may then change any ``y[j]`` it reads, and
its derivative must tape every value it reads from ``y`` again after each such store. The
caller often knows better: it passes two buffers it allocated itself (``malloc`` or
``alloca``), or one of its own buffers and memory that existed before it was called (an
argument of its own, a global). Such pointers are based on different objects, whatever
else the program does with them: no capture reasoning is needed, because only the two
arguments are compared, not every pointer the callee might load.

:func:`distinct_argument_pairs` lists the pairs ``(k, j)`` (``k < j``) of a call's
arguments for which every object the one may be based on differs from every object the
other may be based on (through phis and selects, :func:`underlying_objects`). A pair of
the caller's own arguments counts when the caller's derivative was itself made for call
sites that pass them distinct (``known``): the fact travels down a chain of calls, through
a dispatcher of function pointers too. A derivative synthesized for such call sites may
treat the pair as not aliasing (:class:`irgrad.analysis.memory_writes.MemoryWrites`).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.analysis.underlying_objects import is_allocated_object, object_set


def argument_pair(a: ir.Argument, b: ir.Argument) -> tuple[int, int]:
    """The key of two arguments in a set of pairs: their indices, the smaller first."""
    return min(a.index, b.index), max(a.index, b.index)


def _distinct(a: ir.Value, b: ir.Value, known: frozenset[tuple[int, int]]) -> bool:
    """Are objects ``a`` and ``b`` (underlying objects in one function) different, in
    every execution where both are live?"""
    if a is b:
        return False  # (one allocation site: the same object, or one per iteration)
    # an allocation made by this function (this call of it) is not an object that
    # existed before it was called, nor another allocation of its own that is still live
    for x, y in ((a, b), (b, a)):
        if is_allocated_object(x) and (
                is_allocated_object(y) or isinstance(y, ir.Argument | ir.GlobalVariable)):
            return True
    if isinstance(a, ir.GlobalVariable) and isinstance(b, ir.GlobalVariable):
        return True
    if isinstance(a, ir.Argument) and isinstance(b, ir.Argument):
        return argument_pair(a, b) in known
    return False


def distinct_argument_pairs(args: tuple[ir.Value, ...] | list[ir.Value],
                            known: frozenset[tuple[int, int]] = frozenset()
                            ) -> tuple[tuple[int, int], ...]:
    """The pairs ``(k, j)``, ``k < j``, of pointer arguments ``args`` of one call that
    point into different objects (see the module docstring); ``known``: such pairs of the
    calling function's own arguments."""
    objects: list[frozenset[ir.Value] | None] = [
        object_set(a) if a.type.is_pointer and not isinstance(a, ir.Constant) else None
        for a in args]
    pairs: list[tuple[int, int]] = []
    for k, ok in enumerate(objects):
        if not ok:
            continue
        for j in range(k + 1, len(objects)):
            oj = objects[j]
            if oj and all(_distinct(x, y, known) for x in ok for y in oj):
                pairs.append((k, j))
    return tuple(pairs)


__all__ = ["argument_pair", "distinct_argument_pairs"]
