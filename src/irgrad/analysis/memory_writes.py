"""Which memory a function may write, and where: the question the reverse pass asks
before it recomputes a load instead of caching it (``may_be_overwritten``).
"""

from __future__ import annotations

from collections.abc import Callable

from irgrad import ir
from irgrad.analysis.blas import written_arguments
from irgrad.analysis.distinct_arguments import argument_pair
from irgrad.analysis.fortran_runtime import fortran_written_arguments
from irgrad.analysis.frees import guaranteed_free_of, is_captured
from irgrad.analysis.known_functions import (
    callee_name,
    freed_pointer,
    is_allocation,
    is_free,
    is_ignored_intrinsic,
    is_inactive_function,
    is_math_function,
    is_memory_transfer,
    is_memset,
)
from irgrad.analysis.layout import store_size
from irgrad.analysis.strided_access import may_overlap, strided_address
from irgrad.analysis.tbaa import module_tbaa
from irgrad.analysis.underlying_objects import (
    is_allocated_object,
    object_set,
    underlying_object,
)

_NO_WRITE = object()


def is_read_only(fn: ir.Function) -> bool:
    """The function's attributes say it writes no memory."""
    for a in fn.attribute_texts():
        if a in ("readnone", "readonly", "memory(none)", "memory(read)") or (
            a.startswith("memory(") and "write" not in a and "readwrite" not in a
        ):
            return True
    return False


def written_object(inst: ir.Instruction,
                   callees: dict[ir.Function, bool] | None = None) -> object:
    """The underlying object ``inst`` may write: a value, None for anything, or
    :data:`_NO_WRITE` when it writes nothing the function can read back. ``callees``:
    a memo of :func:`writes_caller_memory` (a call of a defined function that writes
    only its own stack frame writes nothing; without a memo, only its attributes say
    so)."""
    if isinstance(inst, ir.StoreInst | ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
        return underlying_object(inst.pointer)
    if not isinstance(inst, ir.CallBase):
        return _NO_WRITE
    name = callee_name(inst)
    fn = inst.called_function
    if name is None or fn is None:
        return None
    if name.startswith("llvm.lifetime."):
        # derivatives drop the lifetime markers (ad/reverse/function.py), so no later
        # local shares the slot: the contents stay for the reverse pass
        return _NO_WRITE
    if is_ignored_intrinsic(name) or is_allocation(name):
        return _NO_WRITE
    if guaranteed_free_of(inst) is not None:  # a free or a release function's call
        return _NO_WRITE  # moved into the reverse pass, after every read
    freed = freed_pointer(inst)
    if freed is not None:
        base = underlying_object(freed)
        if base is None or isinstance(base, ir.LoadInst | ir.CallBase):
            return None  # a pointer read from memory may be any allocation's
        return base
    if is_memory_transfer(name) or is_memset(name):
        return underlying_object(inst.args[0])
    written = written_arguments(inst)  # BLAS/LAPACK: only its output arrays
    if written is None:  # flang's runtime: its output descriptors
        written = fortran_written_arguments(inst)
    if written is not None and len(written) <= 1:
        return underlying_object(written[0]) if written else _NO_WRITE
    if (is_inactive_function(name) or name.startswith("llvm.")
            or (fn.is_declaration and is_math_function(name))
            or (not fn.is_declaration and is_read_only(fn))):
        return _NO_WRITE
    if callees is not None and not fn.is_declaration:
        writes = callees.get(fn)
        if writes is None:  # a fresh memo per query: recursion is resolved optimistically
            writes = callees[fn] = writes_caller_memory(fn) or _frees_memory(fn, {})
        if not writes:
            return _NO_WRITE
    return None


def _frees_memory(fn: ir.Function, memo: dict[ir.Function, bool]) -> bool:
    """Does a call of ``fn`` free memory (directly or in a function it calls)? A freed
    block cannot be read again, though :func:`writes_caller_memory` sees no write."""
    if fn in memo:
        return memo[fn]
    memo[fn] = False
    found = False
    for inst in fn.instructions():
        if not isinstance(inst, ir.CallBase):
            continue
        callee = inst.called_function
        if callee is None or freed_pointer(inst) is not None or (
                not callee.is_declaration and _frees_memory(callee, memo)):
            found = True
            break
    memo[fn] = found
    return found


def frees_memory(fn: ir.Function) -> bool:
    """Does a call of ``fn`` free memory, directly or in a function it calls (a
    destructor's node walk)? Such a call changes nothing :func:`writes_caller_memory`
    sees, but a derivative must run it to free the blocks' shadows."""
    return not fn.is_declaration and _frees_memory(fn, {})


def writes_caller_memory(fn: ir.Function,
                         _active: dict[ir.Function, bool] | None = None) -> bool:
    """May a call of ``fn`` write memory its caller can see (anything but ``fn``'s own
    stack frame), directly or through the functions it calls?

    An unknown external function may write anything; recursion is resolved optimistically
    (a cycle adds no write of its own)."""
    memo = {} if _active is None else _active
    if fn in memo:
        return memo[fn]
    memo[fn] = False  # in progress: a recursive call adds nothing by itself
    result = fn.is_declaration or any(_writes_outside(fn, i, memo) for i in fn.instructions())
    memo[fn] = result
    return result


def _writes_outside(fn: ir.Function, inst: ir.Instruction,
                    memo: dict[ir.Function, bool]) -> bool:
    if isinstance(inst, ir.LoadInst | ir.StoreInst) and (inst.volatile or inst.is_atomic):
        return True
    if not isinstance(inst, ir.StoreInst | ir.AtomicRMWInst | ir.AtomicCmpXchgInst
                      | ir.CallBase):
        return False
    if isinstance(inst, ir.CallBase):
        callee = inst.called_function
        if (callee is not None and not callee.is_declaration
                and not callee.name.startswith("llvm.")):
            return writes_caller_memory(callee, memo)
        if callee is not None and is_free(callee.name):
            return False  # the allocation is dead afterwards: no value is written
    base = written_object(inst)
    if base is _NO_WRITE:
        return False
    # the function's own stack frame (heap memory it allocates may be handed out)
    return not (isinstance(base, ir.AllocaInst) and base.function is fn)


def written_tags(fn: ir.Function, memo: dict[ir.Function, frozenset[str] | None]
                 ) -> frozenset[str] | None:
    """The TBAA tags of every store a call of ``fn`` may make (in the functions it calls
    too), or None when one of its writes has no tag (a memcpy, an untagged store, an
    unknown call): then the call may write any type."""
    if fn in memo:
        return memo[fn]
    memo[fn] = None  # recursion: unknown until this walk ends
    tags: set[str] = set()
    callees: dict[ir.Function, bool] = {}
    for inst in fn.instructions():
        if written_object(inst, callees) is _NO_WRITE:
            continue
        if isinstance(inst, ir.CallBase):
            callee = inst.called_function
            inner = (written_tags(callee, memo) if isinstance(callee, ir.Function)
                     and not callee.is_declaration else None)
            if inner is None:
                return None
            tags |= inner
            continue
        tag = inst.get_metadata("tbaa")
        if tag is None:
            return None
        tags.add(tag)
    memo[fn] = frozenset(tags)
    return memo[fn]


def _written_objects(inst: ir.Instruction) -> frozenset[ir.Value] | None:
    """The objects a store, memory transfer, memset or free through a phi or select of
    pointers may write (two buffers swapped each sweep, a pointer chosen by a branch):
    every base the pointer may have, or None when that is not known."""
    if isinstance(inst, ir.StoreInst | ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
        pointer: ir.Value | None = inst.pointer
        freeing = False
    elif isinstance(inst, ir.CallBase):
        name = callee_name(inst)
        freed = freed_pointer(inst)
        freeing = freed is not None
        pointer = freed if freeing else (
            inst.args[0] if name is not None and (is_memory_transfer(name) or is_memset(name))
            else None)
    else:
        return None
    objects = object_set(pointer) if pointer is not None else None
    if objects is None:
        return None
    if freeing and any(isinstance(o, ir.LoadInst | ir.CallBase) and not is_allocated_object(o)
                       for o in objects):
        return None  # a pointer read from memory may be any allocation's
    return objects


def _objects_may_alias(w: ir.Value, base: ir.Value, uncaptured: dict[ir.Value, bool],
                       disjoint: frozenset[tuple[int, int]] = frozenset()) -> bool:
    """May an access based on ``w`` touch memory of ``base`` (both underlying objects)?
    ``uncaptured``: a memo of :func:`_restrict_argument`; ``disjoint``: pairs of argument
    indices every caller passes pointers into different objects (``(k, j)``, ``k < j``)."""
    if w is base:
        return True
    if isinstance(w, ir.Argument) and isinstance(base, ir.Argument) and \
            argument_pair(w, base) in disjoint:
        return False
    if is_allocated_object(w) or is_allocated_object(base):
        return False  # a fresh allocation aliases nothing else
    if isinstance(w, ir.GlobalVariable) and isinstance(base, ir.GlobalVariable):
        return False
    if isinstance(base, ir.GlobalVariable) and base.is_constant:
        return False
    # a noalias (restrict) argument's memory is reached only through pointers based on
    # it while the function runs: another argument or a global is apart, and so is any
    # other pointer unless the function keeps a copy of the argument it could be read from
    return not (_restrict_argument(w, base, uncaptured)
                or _restrict_argument(base, w, uncaptured))


def _restrict_argument(v: ir.Value, other: ir.Value, memo: dict[ir.Value, bool]) -> bool:
    """``v`` is a ``noalias`` argument that ``other`` cannot be based on."""
    if not isinstance(v, ir.Argument) or "noalias" not in v.attrs:
        return False
    if isinstance(other, ir.Argument | ir.GlobalVariable):
        return True
    got = memo.get(v)
    if got is None:
        got = memo[v] = not is_captured(v)
    return got


Written = ir.Value | frozenset[ir.Value] | None


class MemoryWrites:
    """The writing instructions of one function and the objects they may write."""

    def __init__(self, fn: ir.Function,
                 disjoint: frozenset[tuple[int, int]] = frozenset()) -> None:
        """``disjoint``: pairs of argument indices (``k < j``) that point into different
        objects in every call this analysis serves (a derivative made for call sites
        that pass two distinct buffers: :func:`irgrad.analysis.distinct_arguments`)."""
        self.fn = fn
        self.disjoint = disjoint
        # (writing instruction, what it may write: one underlying object, the set of
        # objects a phi or select of pointers may be based on, or None for anything)
        self.writes: list[tuple[ir.Instruction, Written]] = []
        callees: dict[ir.Function, bool] = {}
        for inst in fn.instructions():
            base = written_object(inst, callees)
            if base is None:
                base = _written_objects(inst)
            if base is not _NO_WRITE:
                self.writes.append((inst, base))  # type: ignore[arg-type]
        self._reach: dict[ir.BasicBlock, frozenset[ir.BasicBlock]] = {}
        self._tags: dict[ir.Function, frozenset[str] | None] = {}
        self._uncaptured: dict[ir.Value, bool] = {}

    def exclude_writes(self, insts: set[ir.Instruction]) -> None:
        """Forget writes that the forward pass performs after the reverse pass (sunk
        stores): they cannot clobber what the reverse pass reloads."""
        self.writes = [(i, b) for i, b in self.writes if i not in insts]

    def reachable_after(self, bb: ir.BasicBlock) -> frozenset[ir.BasicBlock]:
        """Blocks that can execute after ``bb`` (``bb`` itself only on a cycle)."""
        got = self._reach.get(bb)
        if got is None:
            seen: set[ir.BasicBlock] = set()
            stack = list(bb.successors())
            while stack:
                b = stack.pop()
                if b not in seen:
                    seen.add(b)
                    stack.extend(b.successors())
            got = self._reach[bb] = frozenset(seen)
        return got

    def _type_may_alias(self, write: ir.Instruction, tbaa: str) -> bool:
        """Can ``write`` touch bytes read through TBAA tag ``tbaa``? Only stores, atomics
        and memcpy/memmove/memset with a tag of their own (clang tags the copy of a
        scalar), and calls of defined functions whose every write is such a store
        (:func:`written_tags`), can be ruled out."""
        module = self.fn.parent
        if module is None:
            return True
        name = callee_name(write) if isinstance(write, ir.CallBase) else None
        if isinstance(write, ir.CallBase) and not (
                name is not None and (is_memory_transfer(name) or is_memset(name))):
            fn = write.called_function
            if not isinstance(fn, ir.Function) or fn.is_declaration:
                return True
            tags = written_tags(fn, self._tags)
        else:
            tag = write.get_metadata("tbaa")
            tags = None if tag is None else frozenset([tag])
        if tags is None:
            return True
        types = module_tbaa(module)
        return any(types.may_alias(t, tbaa) for t in tags)

    def _may_follow(self, write: ir.Instruction, inst: ir.Instruction) -> bool:
        """Can ``write`` execute after ``inst`` (in the same call of the function)?"""
        wb, ib = write.parent, inst.parent
        if wb is None or ib is None:
            return True
        if wb in self.reachable_after(ib):
            return True
        if wb is ib:
            insts = ib.instructions
            return insts.index(write) > insts.index(inst)
        return False

    def may_be_written_in(self, pointer: ir.Value, blocks: set[ir.BasicBlock],
                          tbaa: str | None = None,
                          apart: Callable[[ir.Instruction], bool] | None = None,
                          size: int | None = None) -> bool:
        """Whether a write in ``blocks`` (a loop's) may touch the object ``pointer`` points
        into, at any offset (``apart``: writes the caller knows touch other memory;
        ``size``, the bytes read at ``pointer`` and at the same field of every other
        element of its array of structs: a store to another field does not count)."""
        inside = [(i, w) for i, w in self.writes if i.parent in blocks
                  and not (apart is not None and apart(i))]
        return self._aliasing(pointer, inside, size, tbaa)

    def objects_may_overlap(self, a: ir.Value, b: ir.Value) -> bool:
        """May pointers ``a`` and ``b`` of the function reach the same memory (through
        every base each may have)?"""
        oa, ob = object_set(a), object_set(b)
        if oa is None or ob is None:
            return True
        return any(_objects_may_alias(x, y, self._uncaptured, self.disjoint)
                   for x in oa for y in ob)

    def may_be_overwritten(self, pointer: ir.Value, after: ir.Instruction | None = None,
                           size: int | None = None, tbaa: str | None = None) -> bool:
        """Whether a write of the function may alias the memory ``pointer`` points to
        (only writes that can execute after ``after`` count, when it is given; a store
        to another field of the same array of structs does not, when ``size``, the bytes
        read, is given; a store whose TBAA access type is unrelated to ``tbaa``, the
        reading load's tag, does not: strict aliasing, as LLVM's own passes assume)."""
        writes = self.writes if after is None else [
            (i, w) for i, w in self.writes if self._may_follow(i, after)]
        return self._aliasing(pointer, writes, size, tbaa)

    def _aliasing(self, pointer: ir.Value, writes: list[tuple[ir.Instruction, Written]],
                  size: int | None, tbaa: str | None) -> bool:
        """Whether one of ``writes`` may touch the memory ``pointer`` points to (see
        :meth:`may_be_overwritten` for ``size`` and ``tbaa``)."""
        base = underlying_object(pointer)
        at = strided_address(pointer) if size is not None else None
        if tbaa is not None:
            writes = [(i, w) for i, w in writes if self._type_may_alias(i, tbaa)]
        # a phi or select of pointers: each base it may have
        bases = frozenset([base]) if base is not None else object_set(pointer)
        if bases is None:
            return bool(writes)
        for inst, w in writes:
            if w is None:
                return True
            if w is base and at is not None and size is not None and \
                    isinstance(inst, ir.StoreInst):
                other = strided_address(inst.pointer)
                if other is not None and other.base is at.base and not may_overlap(
                        at, size, other, store_size(inst.value.type)):
                    continue
            targets = w if isinstance(w, frozenset) else (w,)
            if any(_objects_may_alias(t, b, self._uncaptured, self.disjoint)
                   for t in targets for b in bases):
                return True
        return False


__all__ = ["MemoryWrites", "frees_memory", "is_read_only", "writes_caller_memory",
           "written_object", "written_tags"]
