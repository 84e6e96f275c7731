"""Forward mode around a call of inactive library code: the pointers it wrote into an
object that has a shadow, mirrored into the shadow.

Library code without derivatives (``std::string::_M_replace``, ``_M_assign``,
``ostringstream::str``) fills the primal object only. A ``std::string`` built inline
(its shadow's data pointer aimed at the shadow's own inline buffer) and then grown by
the library kept that stale pointer in its shadow, and the inlined destructor freed the
shadow's inline buffer (``free(): invalid pointer``), or a pointer the library never
set. So each pointer field (by type analysis) of an object passed to the call is read
before and after it; when the call changed it, the shadow's field becomes

* the same place in the shadow object when the new pointer points into the object
  itself (a short string's inline buffer: the shadow's own buffer), and
* the pointer itself otherwise, when what it points to begins with integers (a string's
  characters) or is unknown: memory the library allocated carries no derivative and is
  its own shadow, as a pointer returned by inactive library code is
  (:func:`irgrad.analysis.underlying_objects.from_inactive_library`); the shadow frees
  and memory transfers already leave a block that is its own shadow alone.

A field the call left unchanged keeps its shadow, and so does a field pointing elsewhere
to floating-point data or pointers (a ``std::vector<double>`` an inactive function
resized: the primal's block would give its values as tangents).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.underlying_objects import underlying_object

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def _pointer_fields(fp: ForwardPass, a: ir.Value) -> tuple[list[tuple[int, bool]], int]:
    """The pointer fields of what ``a`` points to (type analysis of the original
    function): (offset, whether a new pointer there is its own shadow: what it points to
    does not begin with a floating-point value or a pointer, as characters do), and the
    extent of the fields type analysis knows."""
    assert fp.original is not None
    fn, origin = fp.original
    o = origin.get(a)
    if o is None:
        return [], 0
    tree = fp.ctx.types(fn).query(o).data0().mapping
    first = [(p[0], ct) for p, ct in tree.items() if len(p) == 1 and p[0] >= 0]
    fields = []
    for off, ct in sorted(first, key=lambda e: e[0]):
        if ct.kind == "Pointer":
            head = [c for p, c in tree.items() if len(p) > 1 and p[0] == off and p[1] in (0, -1)]
            fields.append((off, not any(c.is_float or c.kind == "Pointer" for c in head)))
    extent = max((off for off, _ in first), default=-8) + 8
    return fields, extent


def _dereferenceable(call: ir.CallInst, k: int) -> int | None:
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


def _at(b: ir.IRBuilder, p: ir.Value, offset: int) -> ir.Value:
    return b.gep(ir.i8, p, [ir.ConstantInt(ir.i64, offset)]) if offset else p


def mirror_library_writes(fp: ForwardPass, call: ir.CallBase) -> None:
    """Around inactive library call ``call`` (the builder stands right after it): the
    pointer fields it changes in objects that have shadows are mirrored into them."""
    if not isinstance(call, ir.CallInst) or fp.original is None:
        return
    callee = call.called_function
    if callee is None or not callee.is_declaration or callee.name.startswith("llvm."):
        return  # (a function of the module registered inactive: its own stores stand)
    b = fp.b
    done: set[ir.Value] = set()
    for k, a in enumerate(call.args):
        if not a.type.is_pointer or a in fp.interleaved or a in done:
            continue
        done.add(a)
        t = fp.tangent(a)
        base = underlying_object(a)
        if t is None or base in fp.constant_allocas:
            continue  # (a local whose shadow is never read: a std::ostringstream)
        fields, extent = _pointer_fields(fp, a)
        size = _dereferenceable(call, k)
        if size is not None:
            extent = size
        elif not isinstance(base, ir.AllocaInst | ir.GlobalVariable):
            continue  # (it may be null: not read before the call)
        fields = [(f, own) for f, own in fields if f + 8 <= extent]
        if not fields:
            continue
        with b.goto(call):
            before = [b.freeze(b.load(ir.ptr, _at(b, a, f)), name="library.old")
                      for f, _ in fields]
        lanes = t if isinstance(t, list) else [t]
        start = b.ptrtoint(a, ir.i64)
        for (f, own_ok), old in zip(fields, before, strict=True):
            new = b.load(ir.ptr, _at(b, a, f), name="library.new")
            changed = b.icmp("ne", new, old)
            offset = b.sub(b.ptrtoint(new, ir.i64), start)
            inside = b.icmp("ult", offset, ir.ConstantInt(ir.i64, extent))
            for s in lanes:
                if s is a:
                    continue  # its own shadow already
                slot = _at(b, s, f)
                cur = b.load(ir.ptr, slot)
                outside = new if own_ok else cur  # (active data: left as it was)
                mirrored = b.select(inside, b.gep(ir.i8, s, [offset]), outside)
                b.store(b.select(changed, mirrored, cur), slot)


__all__ = ["mirror_library_writes"]
