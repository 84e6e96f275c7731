"""Pointers that a call of inactive library code writes into an object that has a
shadow, mirrored into the shadow (both modes: ``ad/forward/library_writes.py`` and
``ad/reverse/library_writes.py`` find the objects, this module emits the code).

Library code without derivatives (``std::string::_M_replace``, ``_M_assign``,
``ostringstream::str``) fills the primal object only. A ``std::string`` built inline
(its shadow's data pointer aimed at the shadow's own inline buffer) and then grown by
the library kept that stale pointer in its shadow; the inlined move assignment and
destructor then copied it into other shadows and freed the shadow's inline buffer
(``free(): invalid pointer``). So each pointer field (by type analysis) of an object
passed to the call is read before and after it; when the call changed it, the shadow's
field becomes

* the same place in the shadow object when the new pointer points into the object
  itself (a short string's inline buffer: the shadow's own buffer), and
* the pointer itself otherwise, when what it points to begins with integers (a string's
  characters) or is unknown: memory the library allocated carries no derivative and is
  its own shadow, as a pointer returned by inactive library code is
  (:func:`irgrad.analysis.underlying_objects.from_inactive_library`); shadow frees
  (:mod:`irgrad.ad.core.deferred_frees`: a block that is the primal itself is no shadow
  of its own) and memory transfers leave such a block alone.

A field the call left unchanged keeps its shadow, and so does a field pointing elsewhere
to floating-point data or pointers (a ``std::vector<double>`` an inactive function
resized: the primal's block would give its values as derivatives).

Only objects known to be there before the call are read: an argument with
``dereferenceable(N)`` (a C++ reference, ``this``), or a local or global.
"""

from __future__ import annotations

from dataclasses import dataclass

from irgrad import ir
from irgrad.analysis.known_functions import is_inactive_function
from irgrad.analysis.type_tree import TypeTree


@dataclass(frozen=True)
class WrittenObject:
    """Argument ``index`` of the call: ``primal`` (a value of the code being built),
    its shadows (one per lane; a lane that is ``primal`` itself is skipped), the type
    tree of the original argument, and whether it is a local or global (readable before
    the call without a ``dereferenceable`` attribute)."""

    index: int
    primal: ir.Value
    shadows: tuple[ir.Value, ...]
    tree: TypeTree
    local: bool


def pointer_fields(tree: TypeTree) -> tuple[list[tuple[int, bool]], int]:
    """The pointer fields of what a pointer with type tree ``tree`` points to: (offset,
    whether a new pointer there is its own shadow: what it points to does not begin with
    a floating-point value or a pointer, as characters do), and the extent of the fields
    type analysis knows."""
    mapping = tree.data0().mapping
    first = [(p[0], ct) for p, ct in mapping.items() if len(p) == 1 and p[0] >= 0]
    fields = []
    for off, ct in sorted(first, key=lambda e: e[0]):
        if ct.kind == "Pointer":
            head = [c for p, c in mapping.items()
                    if len(p) > 1 and p[0] == off and p[1] in (0, -1)]
            fields.append((off, not any(c.is_float or c.kind == "Pointer" for c in head)))
    extent = max((off for off, _ in first), default=-8) + 8
    return fields, extent


def dereferenceable(call: ir.CallBase, k: int) -> int | None:
    """The bytes argument ``k`` of ``call`` is known to point to (its
    ``dereferenceable(N)``, at the call or the declaration; a C++ reference or ``this``),
    or None."""
    attrs = list(call.arg_attrs[k]) if k < len(call.arg_attrs) else []
    fn = call.called_function
    if fn is not None and k < len(fn.args):
        attrs += getattr(fn.args[k], "attrs", None) or []
    sizes = [int(a[len("dereferenceable("):-1]) for a in attrs
             if a.startswith("dereferenceable(") and a.endswith(")")]
    return max(sizes) if sizes else None


def mirrors_library_writes(call: ir.CallBase) -> bool:
    """``call`` is a call of a library function (declared, not an intrinsic; or a
    library template the module instantiated, such as ``std::string``'s
    ``_M_construct<const char*>`` when it is not inlined, which the derivative calls as
    it is): its writes into an object reach the primal only. (A function of the module
    registered inactive runs its own stores, which the derivative already mirrors.)"""
    callee = call.called_function
    return (isinstance(call, ir.CallInst) and callee is not None
            and not callee.name.startswith("llvm.")
            and (callee.is_declaration or is_inactive_function(callee.name)))


def _at(b: ir.IRBuilder, p: ir.Value, offset: int) -> ir.Value:
    return b.gep(ir.i8, p, [ir.ConstantInt(ir.i64, offset)]) if offset else p


def mirror_writes(call: ir.CallBase, objects: list[WrittenObject], before: ir.IRBuilder,
                  after: ir.IRBuilder) -> None:
    """Around library call ``call`` (``before`` stands right before it, ``after`` right
    after it, in the code being built): the pointer fields it changes in ``objects`` are
    mirrored into their shadows."""
    for obj in objects:
        fields, extent = pointer_fields(obj.tree)
        size = dereferenceable(call, obj.index)
        if size is not None:
            extent = size
        elif not obj.local:
            continue  # (it may be null: not read before the call)
        fields = [(f, own) for f, own in fields if f + 8 <= extent]
        lanes = [s for s in obj.shadows if s is not obj.primal]
        if not fields or not lanes:
            continue
        a = obj.primal
        old = [before.freeze(before.load(ir.ptr, _at(before, a, f)), name="library.old")
               for f, _ in fields]
        b = after
        start = b.ptrtoint(a, ir.i64)
        for (f, own_ok), was in zip(fields, old, strict=True):
            new = b.load(ir.ptr, _at(b, a, f), name="library.new")
            changed = b.icmp("ne", new, was)
            offset = b.sub(b.ptrtoint(new, ir.i64), start)
            inside = b.icmp("ult", offset, ir.ConstantInt(ir.i64, extent))
            for s in lanes:
                slot = _at(b, s, f)
                cur = b.load(ir.ptr, slot)
                outside = new if own_ok else cur  # (active data: left as it was)
                mirrored = b.select(inside, b.gep(ir.i8, s, [offset]), outside)
                b.store(b.select(changed, mirrored, cur), slot)


__all__ = ["WrittenObject", "dereferenceable", "mirror_writes", "mirrors_library_writes",
           "pointer_fields"]
