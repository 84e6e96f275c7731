"""The function's own memory (allocas, heap blocks that do not escape) as the activity
analysis sees it: which stores and copies write it (:func:`local_writes`), whether an
active value may be stored into it (:func:`alloca_may_hold`), and objects only inactive
library code touches (:func:`library_only_local`: a ``std::ostringstream``)."""

from __future__ import annotations

from collections.abc import Container

from irgrad import ir
from irgrad.analysis.fortran_runtime import reads_descriptor
from irgrad.analysis.global_activity import has_float
from irgrad.analysis.input_formats import INPUT_FUNCTIONS, input_destination
from irgrad.analysis.known_functions import (
    callee_name,
    free_pointer_arg,
    is_fresh_allocation,
    is_ignored_intrinsic,
    is_inactive_function,
    is_memory_transfer,
    is_memset,
)
from irgrad.analysis.underlying_objects import underlying_object


def is_integer_like(t: ir.Type) -> bool:
    """An integer or a vector of integers (``<2 x i64>``: two doubles moved as words)."""
    return isinstance(t.element if isinstance(t, ir.VectorType) else t, ir.IntType)


def is_local_memory(v: ir.Value | None) -> bool:
    """An alloca or a fresh heap allocation of the function."""
    return isinstance(v, ir.AllocaInst) or (
        isinstance(v, ir.CallInst) and is_fresh_allocation(callee_name(v)))


def local_writes(local: ir.Value) -> list[ir.Instruction] | None:
    """The stores and memcpys into the function's own memory ``local`` (an alloca or a
    fresh heap allocation; through GEPs and casts); None when its address escapes
    (stored, passed to a call other than its free, merged by a phi/select...)."""
    writes: list[ir.Instruction] = []
    work: list[ir.Value] = [local]
    seen: set[int] = set()
    while work:
        p = work.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        for use in p.uses:
            u = use.user
            if isinstance(u, ir.GetElementPtrInst) or (
                    isinstance(u, ir.CastInst) and u.opcode in ("bitcast", "addrspacecast")):
                work.append(u)
            elif isinstance(u, ir.LoadInst | ir.CmpInst):
                continue
            elif isinstance(u, ir.StoreInst):
                if u.value is p:
                    return None  # the address itself is stored
                writes.append(u)
            elif isinstance(u, ir.CallBase):
                name = callee_name(u)
                if is_ignored_intrinsic(name) or is_memset(name) or (
                        use.index == free_pointer_arg(name)) or reads_descriptor(name, use.index):
                    continue  # (flang's runtime reading a descriptor)
                if name in INPUT_FUNCTIONS:  # sscanf(line, "%lf", &v): v gets inactive data
                    if input_destination(name, use.index):
                        writes.append(u)
                    continue
                if is_inactive_function(name):
                    continue  # reads it (strcmp, printf), or writes text or counts into it
                if is_memory_transfer(name):
                    if u.args[0] is p and u.args[1] is not p:
                        writes.append(u)
                    elif u.args[0] is not p:
                        continue  # only read
                    else:
                        return None
                    continue
                return None
            else:
                return None
    return writes


def library_only_local(alloca: ir.Instruction) -> bool:
    """A local object that only library functions without derivatives touch -- a
    ``std::ostringstream``, a ``std::string`` -- gets no shadow: its address goes only to
    such calls (:func:`irgrad.analysis.known_functions.is_inactive_call`), lifetime
    markers, comparisons, loads, and stores of non-floating-point values that come from
    constants, globals, the object itself or such calls (vtable pointers, its own
    buffer)."""
    family: set[ir.Value] = {alloca}
    work: list[ir.Value] = [alloca]
    stores: list[ir.StoreInst] = []
    used_by_library = False
    while work:
        p = work.pop()
        for use in p.uses:
            u = use.user
            if isinstance(u, ir.GetElementPtrInst | ir.CastInst) and u.opcode in (
                    "getelementptr", "bitcast", "addrspacecast"):
                if u not in family:
                    family.add(u)
                    work.append(u)
            elif isinstance(u, ir.LoadInst | ir.CmpInst) or (
                    isinstance(u, ir.CastInst) and u.opcode == "ptrtoint"):
                continue
            elif isinstance(u, ir.StoreInst) and use.index == 1:
                stores.append(u)
            elif isinstance(u, ir.CallBase):
                name = callee_name(u)
                if is_ignored_intrinsic(name) or is_memset(name):
                    continue
                if not is_inactive_function(name):
                    return False
                used_by_library = True
            else:
                return False
    if not used_by_library:
        return False
    for st in stores:
        v = st.value
        if has_float(v.type):
            return False
        if v.type.is_pointer and not _inactive_pointer(v, family):
            return False
    return True


def _inactive_pointer(v: ir.Value, family: set[ir.Value]) -> bool:
    """A pointer that cannot have a shadow: a constant or global, a pointer into the
    object ``family`` itself, loaded from a global or from the object, or returned by a
    library call without derivatives."""
    if isinstance(v, ir.Constant) or v in family:
        return True
    if isinstance(v, ir.LoadInst):
        base = underlying_object(v.pointer)
        return isinstance(base, ir.GlobalVariable) or base in family
    if isinstance(v, ir.GetElementPtrInst):
        return _inactive_pointer(v.pointer, family)
    if isinstance(v, ir.CallBase):
        return is_inactive_function(callee_name(v))
    return False


def alloca_may_hold(pointer: ir.Value, active: Container[ir.Value]) -> bool:
    """Can memory behind ``pointer`` hold one of the ``active`` values? False only for a
    local (``%x.addr`` of unoptimized IR) whose every write stores a value outside
    ``active`` (an ``enzyme_const`` pointer argument, a counter)."""
    base = underlying_object(pointer)
    if not isinstance(base, ir.AllocaInst):
        return True
    writes = local_writes(base)
    if writes is None:
        return True
    for w in writes:
        if isinstance(w, ir.StoreInst):
            v = w.value
            if v in active or not (v.type.is_pointer or has_float(v.type)
                                   or is_integer_like(v.type)):
                return True
        elif callee_name(w) in INPUT_FUNCTIONS:
            continue  # parsed or read data: never active
        elif w.args[1] in active:  # type: ignore[attr-defined]
            return True
    return False


__all__ = [
    "alloca_may_hold",
    "is_integer_like",
    "is_local_memory",
    "library_only_local",
    "local_writes",
]
