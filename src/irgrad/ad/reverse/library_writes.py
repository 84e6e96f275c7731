"""Reverse mode's forward pass around a call of inactive library code: the pointers it
wrote into an object that has a shadow, mirrored into the shadow
(:mod:`irgrad.ad.core.library_writes` says how; forward mode does the same,
``ad/forward/library_writes.py``).

A ``std::string`` returned by a callee that filled it with ``ostringstream::str()``
(``_M_replace``, ``_M_assign``) past its 15-character inline buffer kept, in its shadow,
the pointer to the shadow's inline buffer; the caller's inlined move assignment copied
that pointer into another shadow string (a record's name, a vector's element, a map's
key) and the destructor freed it (``free(): invalid pointer`` at -O1..-O3). With the
field mirrored, the shadow's data pointer is the primal's characters (their own shadow)
or the shadow's own inline buffer, and a shadow free of a block that is the primal
itself does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.library_writes import WrittenObject, mirror_writes, mirrors_library_writes
from irgrad.analysis.underlying_objects import underlying_object
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils


def mirror_library_writes(gu: GradientUtils, call: ir.CallBase) -> None:
    """In the forward pass, around the clone of inactive library call ``call`` (of the
    original function): the pointer fields it changes in objects that have shadows are
    mirrored into them."""
    if not mirrors_library_writes(call):
        return
    objects: list[WrittenObject] = []
    done: set[ir.Value] = set()
    for k, a in enumerate(call.args):
        if not a.type.is_pointer or a in done or not gu.is_shadowed(a):
            continue
        done.add(a)
        base = underlying_object(a)
        primal = gu.primal(a)
        shadow = gu.invert_pointer(a, call)  # type: ignore[arg-type]
        if shadow is primal:
            continue  # (memory that is its own shadow)
        objects.append(WrittenObject(k, primal, (shadow,), gu.types.query(a),
                                     isinstance(base, ir.AllocaInst | ir.GlobalVariable)))
    fwd = gu.vmap.get(call)
    if not objects or not isinstance(fwd, ir.CallInst):
        return
    after = IRBuilder()
    after.position_after(fwd)
    mirror_writes(call, objects, IRBuilder(position=fwd), after)


__all__ = ["mirror_library_writes"]
