"""Forward mode around a call of inactive library code: the pointers it wrote into an
object that has a shadow, mirrored into the shadow (:mod:`irgrad.ad.core.library_writes`
says how; reverse mode does the same in its forward pass,
``ad/reverse/library_writes.py``).

A ``std::string`` filled by ``ostringstream::str()`` past its inline buffer kept, in its
shadow, the pointer to the shadow's inline buffer, and the inlined destructor freed it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.library_writes import WrittenObject, mirror_writes, mirrors_library_writes
from irgrad.analysis.underlying_objects import underlying_object

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def mirror_library_writes(fp: ForwardPass, call: ir.CallBase) -> None:
    """Around inactive library call ``call`` (the builder stands right after it): the
    pointer fields it changes in objects that have shadows are mirrored into them."""
    if fp.original is None or not mirrors_library_writes(call):
        return
    fn, origin = fp.original
    types = fp.ctx.types(fn)
    objects: list[WrittenObject] = []
    done: set[ir.Value] = set()
    for k, a in enumerate(call.args):
        if not a.type.is_pointer or a in fp.interleaved or a in done:
            continue
        done.add(a)
        t = fp.tangent(a)
        base = underlying_object(a)
        o = origin.get(a)
        if t is None or base in fp.constant_allocas or o is None:
            continue  # (a local whose shadow is never read: a std::ostringstream)
        lanes = tuple(t) if isinstance(t, list) else (t,)
        objects.append(WrittenObject(k, a, lanes, types.query(o),
                                     isinstance(base, ir.AllocaInst | ir.GlobalVariable)))
    if objects and isinstance(call, ir.CallInst):
        mirror_writes(call, objects, ir.IRBuilder(position=call), fp.b)


__all__ = ["mirror_library_writes"]
