"""Functions whose only effect is to free what their pointer argument leads to.

Real code frees through its own helpers as often as it allocates through them: the
hand-made aligned allocator's ``aligned_free(p)`` frees ``((void **)p)[-1]``, the raw
block stored just below the aligned one; a ``vec_free(v)`` frees ``v->data`` then ``v``.
A call of such a function is a free for automatic differentiation: its pointer argument
has a shadow built the same way (the shadow of the raw block sits below the shadow of the
aligned one), so the same call on the shadow frees the shadow -- Enzyme's ``free`` of the
primal and of the shadow.

A defined function is a *release function* when it returns nothing, takes one pointer
(its other arguments are integers), and does nothing but read memory reachable from that
pointer, compute addresses and conditions, and call deallocators or other release
functions: no store, no floating-point value, no global, no other call (but the checks of
``-fsanitize=...``). Running it later
(in the reverse pass) or once more on a shadow then changes nothing but which blocks are
freed when.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.analysis.known_functions import (
    callee_name,
    freed_pointer,
    is_ignored_intrinsic,
    is_sanitizer_runtime,
)

_MAX_DEPTH = 8
_CACHE: dict[ir.Function, tuple[int, int | None]] = {}


def release_argument(fn: ir.Function | None, _depth: int = 0) -> int | None:
    """The index of the pointer argument whose memory ``fn`` frees, when freeing it is
    all ``fn`` does (None otherwise)."""
    if fn is None or fn.is_declaration or _depth > _MAX_DEPTH:
        return None
    if not fn.return_type.is_void:
        return None
    size = sum(len(bb.instructions) for bb in fn.blocks)
    got = _CACHE.get(fn)
    if got is not None and got[0] == size:
        return got[1]
    answer = _decide(fn, _depth)
    if len(_CACHE) > 1024:
        _CACHE.clear()
    _CACHE[fn] = (size, answer)
    return answer


def released_pointer(call: ir.CallBase) -> ir.Value | None:
    """The pointer a call frees: a deallocator's argument, or a release function's."""
    freed = freed_pointer(call)
    if freed is not None:
        return freed
    k = release_argument(call.called_function)
    return call.args[k] if k is not None and k < len(call.args) else None


def is_release_call(call: ir.Instruction) -> bool:
    """A call of a release function (not of a deallocator itself)."""
    return (isinstance(call, ir.CallBase) and freed_pointer(call) is None
            and release_argument(call.called_function) is not None)


def _decide(fn: ir.Function, depth: int) -> int | None:
    pointers = [k for k, a in enumerate(fn.args) if a.type.is_pointer]
    if len(pointers) != 1 or any(
            not (a.type.is_pointer or isinstance(a.type, ir.IntType)) for a in fn.args):
        return None
    frees = 0
    for inst in fn.instructions():
        name = callee_name(inst) if isinstance(inst, ir.CallBase) else None
        if is_ignored_intrinsic(name) or is_sanitizer_runtime(name):
            continue  # lifetime markers, -fsanitize checks (their reports are no effect)
        if _has_float(inst.type) or any(isinstance(op, ir.GlobalValue) and not
                                        isinstance(op, ir.Function) for op in inst.operands):
            return None
        if isinstance(inst, ir.CallBase):
            if freed_pointer(inst) is None and release_argument(
                    inst.called_function, depth + 1) is None:
                return None
            frees += 1
        elif isinstance(inst, ir.LoadInst):
            if inst.volatile or inst.is_atomic:
                return None
        elif not _is_pure_control_or_address(inst):
            return None
    return pointers[0] if frees else None


def _is_pure_control_or_address(inst: ir.Instruction) -> bool:
    if isinstance(inst, ir.GetElementPtrInst | ir.PHINode | ir.SelectInst | ir.CmpInst):
        return True
    if isinstance(inst, ir.CastInst):
        return inst.opcode in ("bitcast", "addrspacecast", "ptrtoint", "inttoptr", "zext",
                               "sext", "trunc", "freeze")
    if isinstance(inst, ir.BinaryOperator):
        return isinstance(inst.type, ir.IntType)
    return inst.opcode in ("br", "switch", "ret", "unreachable")


def _has_float(t: ir.Type) -> bool:
    if t.is_fp_or_fp_vector:
        return True
    if isinstance(t, ir.StructType):
        return any(_has_float(e) for e in t.elements)
    if isinstance(t, ir.ArrayType):
        return _has_float(t.element)
    return False


__all__ = ["is_release_call", "release_argument", "released_pointer"]
