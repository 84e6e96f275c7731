"""Small copies keep the floating-point type the front end gave them (a pre-AD step).

LLVM's instcombine turns a ``memcpy`` of 2, 4 or 8 bytes into an integer load and store,
and GVN then folds a constant stored just before into that integer. A one-element
``std::array<double, 1>`` (or ``struct { double x; }``, a ``std::complex<float>``)
initialised in a constructor and copied into a member becomes ``store i64
4596373779694328218`` (the bits of 0.2) in one function and ``load i64`` / ``store i64`` in
another: no instruction says any more that the bytes are a double. When the copy stays
out of line (Boost.Odeint's stage table under ``-fsanitize=pointer-overflow``, whose checks
keep it from being inlined), type analysis has no evidence for it and the derivative is
``Cannot deduce type``.

The front end's IR still says what is copied: a copy whose destination or source is a
local, a global or a field (``alloca``, ``getelementptr`` on a struct or array type) of
exactly one floating-point value (or a few of one kind, as a vector) becomes a load and a
store of that type, which LLVM keeps typed (and folds constants into as doubles). A copy
between objects of different types (a ``uint64_t`` punned into a ``double``) stays as it is.
"""

from __future__ import annotations

import re

from irgrad import ir
from irgrad.analysis.known_functions import callee_name
from irgrad.analysis.layout import alloc_size
from irgrad.ir.builder import IRBuilder

#: the sizes instcombine turns into an integer load and store (1 byte is never a float)
_SIZES = (2, 4, 8)
_COPY = re.compile(r"^llvm\.mem(?:cpy|move)\.p0\.p0\.i(?:32|64)$")
#: a quick test on module text: is there a small copy to look at?
CANDIDATE = re.compile(r"@llvm\.mem(?:cpy|move)\.p0\.p0\.i(?:32|64)\([^\n]*, "
                       r"i(?:32|64) [248], i1 false\)")
_ALIGN = re.compile(r"^align (\d+)$")


class _Other:
    """A declared type that is not a float (an integer, a struct of mixed fields)."""


OTHER = _Other()


def type_small_copies(module: ir.Module) -> int:
    """Rewrite the small copies of floating-point objects in ``module`` (see the module
    docstring); the number rewritten."""
    count = 0
    for fn in module.functions:
        if fn.is_declaration:
            continue
        text = fn.unparsed_body()
        if text is not None and CANDIDATE.search(text) is None:
            continue  # (its body stays unparsed)
        for inst in list(fn.instructions()):
            if isinstance(inst, ir.CallInst) and _rewrite(inst):
                count += 1
    return count


def _rewrite(call: ir.CallInst) -> bool:
    if not _COPY.match(callee_name(call) or "") or len(call.args) < 4:
        return False
    dst, src, length, volatile = call.args[:4]
    if not (isinstance(length, ir.ConstantInt) and length.value in _SIZES):
        return False
    if not (isinstance(volatile, ir.ConstantInt) and volatile.value == 0):
        return False
    t = copied_type(dst, src, length.value)
    if t is None:
        return False
    b = IRBuilder(position=call)
    b.debug_loc = call.get_metadata("dbg")
    value = b.load(t, src, _align(call, 1))
    b.store(value, dst, _align(call, 0))
    call.erase_from_parent()
    return True


def copied_type(dst: ir.Value, src: ir.Value, size: int) -> ir.Type | None:
    """The floating-point type (scalar or vector) of ``size`` bytes copied from ``src``
    to ``dst``: what the typed end(s) declare, when no end declares anything else."""
    found: ir.Type | None = None
    for p in (dst, src):
        declared = declared_type(p)
        if declared is None:
            continue  # (a pointer argument, a call's result: says nothing)
        t = float_object(declared, size)
        if t is OTHER or (found is not None and t != found):
            return None
        found = t  # type: ignore[assignment]
    return found


def declared_type(p: ir.Value) -> ir.Type | None:
    """The type the front end gave the object ``p`` points to: an alloca's, a global's,
    the field or element a typed ``getelementptr`` reaches. None when nothing says (byte
    offsets, arguments, calls)."""
    if isinstance(p, ir.AllocaInst):
        return p.allocated_type if p.count is None or _is_one(p.count) else None
    if isinstance(p, ir.GlobalVariable):
        return p.value_type
    if isinstance(p, ir.GetElementPtrInst) and not isinstance(p.type, ir.VectorType):
        t: ir.Type = p.source_type
        if isinstance(t, ir.IntType) and t.width == 8:
            return None  # a byte offset
        for idx in p.indices[1:]:
            if t.is_struct:
                elements = t.elements  # type: ignore[attr-defined]
                if not isinstance(idx, ir.ConstantInt) or idx.value >= len(elements):
                    return None
                t = elements[idx.value]
            elif isinstance(t, ir.ArrayType | ir.VectorType):
                t = t.element
            else:
                return None
        return t
    return None


def float_object(t: ir.Type, size: int) -> ir.Type | _Other:
    """``t`` as the floating-point value(s) of exactly ``size`` bytes it holds (one-field
    structs and one-element arrays peeled: ``double``; several floats of one kind:
    ``<n x float>``), or ``OTHER``."""
    if alloc_size(t) != size:
        return OTHER
    leaves: list[ir.Type] = []
    if not _float_leaves(t, leaves) or not leaves:
        return OTHER
    kind = leaves[0]
    if any(x != kind for x in leaves) or len(leaves) * alloc_size(kind) != size:
        return OTHER  # mixed kinds, or padding
    return kind if len(leaves) == 1 else ir.VectorType(len(leaves), kind)


def _float_leaves(t: ir.Type, out: list[ir.Type]) -> bool:
    if isinstance(t, ir.FloatType):
        out.append(t)
        return True
    if t.is_struct and not getattr(t, "opaque", False):
        return all(_float_leaves(e, out) for e in t.elements)  # type: ignore[attr-defined]
    if isinstance(t, ir.ArrayType):
        return all(_float_leaves(t.element, out) for _ in range(t.count))
    return False


def _align(call: ir.CallInst, k: int) -> int:
    attrs = call.arg_attrs[k] if k < len(call.arg_attrs) else []
    for a in attrs:
        m = _ALIGN.match(a)
        if m is not None:
            return int(m.group(1))
    return 1


def _is_one(v: ir.Value) -> bool:
    return isinstance(v, ir.ConstantInt) and v.value == 1


__all__ = ["CANDIDATE", "copied_type", "declared_type", "float_object", "type_small_copies"]
