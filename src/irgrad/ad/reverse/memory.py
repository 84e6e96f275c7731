"""Memory in reverse mode: shadows (forward) and memory adjoints (reverse).

Forward: every shadowed pointer gets a shadow computed beside it (same GEP on the shadow
base, zeroed shadow alloca/malloc/calloc, shadow of a loaded pointer = load from shadow
memory); a store of a pointer also stores its shadow into shadow memory.
Reverse: ``y = load p``: ``*shadow(p) += diffe(y)``; ``store v, p``:
``diffe(v) += *shadow(p); *shadow(p) = 0``; a malloc freed in the function is freed (with
its shadow) when the reverse pass reaches the malloc; so is a block of an allocator
wrapper released by a free or a release function (``xfree_aligned(p)``): the same call,
on the primal and on the shadow, after the adjoints that read them. Copies (memcpy, memmove, memset,
realloc) are in :mod:`irgrad.ad.reverse.memtransfer`.

Integers that type analysis says hold the bits of a float (``uint64_t`` round trips,
``load i64``/``store i64`` that LLVM makes of an 8-byte memcpy) carry derivatives like the
float: their adjoint has the float's type (:meth:`GradientUtils.adjoint_type`). Integers
that hold pointers get shadows like pointers when they are stored into shadowed memory.
A copy of bytes whose type nothing says is ``Cannot deduce type``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.allocations import allocation_bytes, one_argument_release, release_block
from irgrad.ad.core.deferred_frees import ALLOCATED
from irgrad.ad.core.diagnostics import mixed_activity_store_message
from irgrad.ad.core.function_shadows import constant_has_shadow
from irgrad.ad.core.shadow_globals import shadow_globals_of, unshadowed_memory
from irgrad.ad.reverse.adjoints import adjoint_zero, shadow_add, zero_of
from irgrad.ad.reverse.dynamic_allocas import shadow_heap_alloca
from irgrad.ad.reverse.memtransfer import (
    forward_memtransfer,
    old_block_bytes,
    realloc_carries_shadow,
    reverse_memset,
    reverse_memtransfer,
    reverse_realloc,
    shadow_moves_with_block,
    usable_size_function,
)
from irgrad.ad.reverse.shadow_frees import (
    defer_reallocated_shadow_free,
    releases_shadow_at_reverse,
)
from irgrad.ad.reverse.tape import keeps_deferred_list
from irgrad.analysis.activity import holds_pointers, is_pointer_like
from irgrad.analysis.frees import (
    guaranteed_free_of,
)
from irgrad.analysis.function_pointers import gep_constant_offset
from irgrad.analysis.known_functions import (
    ALLOCATORS,
    Allocator,
    allocator,
    callee_name,
    free_pointer_arg,
    freed_pointer,
    is_allocation,
    is_inactive_global,
    is_object_release,
    is_state_release,
)
from irgrad.analysis.layout import alloc_size, store_size
from irgrad.analysis.local_memory import alloca_may_hold
from irgrad.analysis.release_functions import release_argument, released_pointer
from irgrad.analysis.type_results import NARROW_INTEGER_BITS, module_float_widths
from irgrad.analysis.underlying_objects import (
    from_inactive_library,
    is_null_based,
    underlying_object,
)
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import clone_with_operands

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

_I64 = ir.i64


def _fwd_builder_after(gu: GradientUtils, inst: ir.Instruction) -> IRBuilder:
    new = gu.vmap[inst]
    assert isinstance(new, ir.Instruction)
    b = IRBuilder()
    if isinstance(new, ir.PHINode):
        assert new.parent is not None
        b.position_at_start(new.parent)
    else:
        b.position_after(new)
    return b


def _record(gu: GradientUtils, orig: ir.Value, shadow: ir.Value) -> ir.Value:
    gu.shadow[orig] = shadow
    gu.shadow_primal[shadow] = gu.vmap[orig]
    return shadow


def create_shadow(gu: GradientUtils, inst: ir.Instruction) -> ir.Value | None:
    """Create the forward shadow of shadowed pointer ``inst`` right after its clone."""
    b = _fwd_builder_after(gu, inst)
    name = gu.fresh("s." + (inst.name or "p"))
    op = inst.opcode
    if op in ("getelementptr", "bitcast", "addrspacecast", "freeze"):
        base = gu.invert_pointer(inst.operands[0], inst)
        ops = [base] + [gu.primal(o) for o in inst.operands[1:]]
        s = clone_with_operands(inst, ops)
        s.name = name
        b.insert(s)
        return _record(gu, inst, s)
    if op in ("insertelement", "shufflevector", "extractelement"):  # vectors of pointers
        ops = [gu.invert_pointer(o, inst) if is_pointer_like(o.type) else gu.primal(o)
               for o in inst.operands]
        s = clone_with_operands(inst, ops)
        s.name = name
        b.insert(s)
        return _record(gu, inst, s)
    if op == "phi":
        s = ir.PHINode(inst.type, name=name)
        b.insert(s)
        return _record(gu, inst, s)
    if op == "select":
        t = gu.invert_pointer(inst.operands[1], inst)
        f = gu.invert_pointer(inst.operands[2], inst)
        return _record(gu, inst, b.select(gu.primal(inst.operands[0]), t, f, name=name))
    if op == "load":
        assert isinstance(inst, ir.LoadInst)
        sp = gu.invert_pointer(inst.pointer, inst)
        s = b.load(inst.type, sp, inst.align, name=name)
        if gu.globals.is_active(underlying_object(inst.pointer) or inst.pointer):
            s = shadow_globals_of(gu.ctx).check_pointer_shadow(b, s, gu.vmap[inst],
                                                               inst.pointer)
        return _record(gu, inst, s)
    if op == "extractvalue":  # a pointer out of an aggregate that holds shadows
        agg = gu.invert_pointer(inst.operands[0], inst)
        s = clone_with_operands(inst, [agg])
        s.name = name
        b.insert(s)
        return _record(gu, inst, s)
    if op == "insertvalue":
        agg, elem = inst.operands[0], inst.operands[1]
        sagg = gu.invert_pointer(agg, inst) if _has_shadow(gu, agg) else gu.primal(agg)
        selem = gu.invert_pointer(elem, inst) if holds_pointers(elem.type) else gu.primal(elem)
        s = clone_with_operands(inst, [sagg, selem])
        s.name = name
        b.insert(s)
        return _record(gu, inst, s)
    if op == "alloca":
        assert isinstance(inst, ir.AllocaInst)
        if inst in gu.heap_allocas:
            return _record(gu, inst, shadow_heap_alloca(gu, inst, b, name))
        count = gu.primal(inst.count) if inst.count is not None else None
        s = b.insert(ir.AllocaInst(inst.allocated_type, count, inst.align), name)
        size: ir.Value = ir.ConstantInt(_I64, alloc_size(inst.allocated_type))
        if count is not None:
            c64 = count if count.type == _I64 else b.zext(count, _I64)
            size = b.mul(size, c64)
        b.memset(s, 0, size)
        return _record(gu, inst, s)
    if isinstance(inst, ir.CallInst):
        return _record(gu, inst, _shadow_allocation(gu, inst, b, name))
    if op == "inttoptr":  # an address computed in an integer (see ActivityAnalysis)
        bits = integer_shadow(gu, inst.operands[0], inst)
        return _record(gu, inst, b.inttoptr(bits, inst.type, name=name))
    raise gu.error(f"cannot create a shadow for `{op}`", inst)


def _has_shadow(gu: GradientUtils, v: ir.Value) -> bool:
    """An aggregate operand that holds shadows (else only constants: undef, zero)."""
    return not isinstance(v, ir.UndefValue | ir.ConstantAggregateZero)


def _shadow_allocation(gu: GradientUtils, call: ir.CallInst, b: IRBuilder,
                       name: str) -> ir.Value:
    alloc = allocator(callee_name(call))
    assert alloc is not None
    args = [gu.invert_pointer(a, call) if k in alloc.state_args else gu.primal(a)
            for k, a in enumerate(call.args)]
    if alloc.reallocates is not None:
        return _shadow_reallocation(gu, call, alloc, name)
    s = b.call(call.callee, args, call.function_type, name=name)
    if not alloc.zeroed:
        _zero_block(gu, b, s, allocation_bytes(b, alloc, args),
                    _may_be_carried(gu, call, alloc))
    register_shadow_allocation(gu, call, s, b)
    return s


def _shadow_reallocation(gu: GradientUtils, call: ir.CallInst, alloc: Allocator,
                         name: str) -> ir.Value:
    """``q = realloc(p, n)``: a fresh zeroed shadow block; the old one keeps its adjoints
    for the reverse of the code before the realloc. When the block may hold pointers
    (:func:`realloc_carries_shadow`), the new shadow starts as a copy of the old one's
    first bytes (as many as the primal keeps), so that the shadows of the pointers stored
    before the realloc move with them. Made before the primal call, while ``p`` -- which
    may be its own shadow (memory no derivative reaches) -- is still allocated. The old
    shadow block is released at the end (:func:`defer_reallocated_shadow_free`)."""
    new = gu.vmap[call]
    assert isinstance(new, ir.Instruction)
    b = IRBuilder(position=new)
    args = [gu.primal(a) for a in call.args]
    size = allocation_bytes(b, alloc, args)
    malloc = gu.libc("malloc", ir.FunctionType(ir.ptr, [_I64]))
    s = b.call(malloc, [size], name=name)
    carried = realloc_carries_shadow(gu, call) is not None
    _zero_block(gu, b, s, size, carried)
    if carried:
        assert alloc.reallocates is not None
        old = gu.invert_pointer(call.args[alloc.reallocates], call)
        b.memcpy(s, old, old_block_bytes(gu, b, alloc, args, old, size))
    defer_reallocated_shadow_free(gu, call, b)
    return s


def _may_be_carried(gu: GradientUtils, call: ir.CallInst, alloc: Allocator) -> bool:
    """May a realloc copy this allocation's shadow block (:func:`_shadow_reallocation`)?
    It copies as many bytes as the C heap says the block has, so they must all be zero
    adjoints then, past the size asked for too (:func:`_zero_block`)."""
    return (alloc.free_function is None and not alloc.state_args
            and any(gu.module.get_function(f) is not None for f in _REALLOCATORS)
            and shadow_moves_with_block(gu.types.copied_contents(call, call, None)))


def _zero_block(gu: GradientUtils, b: IRBuilder, block: ir.Value, size: ir.Value,
                usable: bool) -> None:
    """Zero a new shadow block of ``size`` bytes, or (``usable``) all the bytes the C heap
    gave it."""
    if usable:
        size = b.call(usable_size_function(gu), [block])
    b.memset(block, 0, size)


_REALLOCATORS = tuple(a.name for a in ALLOCATORS.values() if a.reallocates is not None)


def register_shadow_allocation(gu: GradientUtils, call: ir.CallBase, shadow: ir.Value,
                               b: IRBuilder) -> None:
    """At ``b``, after the shadow block ``shadow`` of allocation ``call`` is made: list it
    as ours when the allocation's reverse does not release it (the block outlives its
    function), so that a free elsewhere in the derivative releases it even where type
    analysis sees no floating-point data or pointers in the block
    (:mod:`irgrad.ad.core.deferred_frees`, :mod:`irgrad.ad.reverse.shadow_frees`). A block
    that outlives the derivative keeps its shadow (the user's to free, as in Enzyme)."""
    if keeps_deferred_list(gu.config) and not releases_shadow_at_reverse(gu, call):
        gu.ensure_tape().defer_free(b, shadow, None, now=False, kind=ALLOCATED)


def forward_out_allocation(gu: GradientUtils, call: ir.CallBase) -> None:
    """``posix_memalign(&p, align, n)``: when ``p`` is shadowed memory, the same call puts
    a zeroed shadow block of the same size and alignment into ``p``'s shadow."""
    alloc = allocator(callee_name(call))
    assert alloc is not None and alloc.out_arg is not None
    out = call.args[alloc.out_arg]
    if not gu.is_shadowed(out):
        return
    b = _fwd_builder_after(gu, call)
    args = [gu.primal(a) for a in call.args]
    args[alloc.out_arg] = gu.invert_pointer(out, call)
    b.call(call.callee, args, call.function_type)
    shadow = b.load(ir.ptr, args[alloc.out_arg], name=gu.fresh("s.memalign"))
    b.memset(shadow, 0, allocation_bytes(b, alloc, [gu.primal(a) for a in call.args]))
    register_shadow_allocation(gu, call, shadow, b)


def forward_store_shadow(gu: GradientUtils, store: ir.StoreInst) -> None:
    """A pointer stored into shadowed memory: store its shadow into the shadow memory."""
    v = store.value
    if not holds_pointers(v.type) or not gu.is_shadowed(store.pointer):
        # (varied, useful or not: the store would be what makes it useful)
        base = underlying_object(store.pointer)
        if (v in gu.activity.varied and gu.adjoint_type(v) is not None
                and not gu.is_shadowed(store.pointer)
                and not is_inactive_global(getattr(base, "name", None))):
            raise gu.error(unshadowed_memory(store.pointer, "active value stored"), store)
        if _is_integer(v.type) and gu.is_shadowed(store.pointer):
            _forward_integer_store(gu, store)
        return
    if not (gu.is_shadowed(v) or isinstance(v, ir.ConstantPointerNull)
            or constant_has_shadow(v) or is_null_based(v)):
        # (a local that only ever receives inactive values, like unoptimized IR's
        # %k.addr of an enzyme_const pointer, hands out no shadow: harmless)
        if (from_inactive_library(v) or gu.types.points_to_integers(v)
                or gu.globals.points_into_float_free(v)):
            # memory no derivative reaches (library memory, a string's characters, a
            # global message log's strings): the pointer is its own shadow, as under
            # Enzyme's runtime activity
            _store_shadow(gu, store, gu.primal(v))
        elif not isinstance(v, ir.Constant) and alloca_may_hold(store.pointer,
                                                                gu.activity.varied):
            raise gu.error(mixed_activity_store_message(v), store)
        return
    _store_shadow(gu, store, gu.invert_pointer(v, store))


def _store_shadow(gu: GradientUtils, store: ir.StoreInst, shadow: ir.Value) -> None:
    """After the forward pass's copy of pointer ``store``: ``shadow`` into the shadow
    memory."""
    new_store = gu.vmap[store]
    assert isinstance(new_store, ir.Instruction)
    b = IRBuilder(position=new_store)
    b.position_after(new_store)
    b.store(shadow, gu.invert_pointer(store.pointer, store), store.align)


def _is_integer(t: ir.Type) -> bool:
    return isinstance(t.element if isinstance(t, ir.VectorType) else t, ir.IntType)


def _holds_float(gu: GradientUtils, p: ir.Value) -> bool:
    """May the byte at ``p`` belong to a floating-point value? A byte reached through a
    run-time offset (``gep i8, %buf, %i``: a byte-by-byte copy loop) may be any byte of
    the object it points into, so the whole object is asked."""
    if any(ct.is_float for ct in gu.types.memory_types(p, 1).values()):
        return True
    q, variable = p, False
    while isinstance(q, ir.GetElementPtrInst):
        variable |= gep_constant_offset(q.source_type, list(q.operands[1:])) is None
        q = q.pointer
    return variable and any(ct.is_float for ct in gu.types.memory_types(q).values())


def _forward_integer_store(gu: GradientUtils, store: ir.StoreInst) -> None:
    """``store iN v, p`` into shadowed memory. Type analysis says what the bits are:
    a float's (the reverse pass moves its adjoint), a pointer's (its shadow is stored
    into the shadow memory), an integer's (nothing to do). Bytes of unknown type copied
    from active memory are ``Cannot deduce type``."""
    v = store.value
    if gu.adjoint_type(v) is not None or stored_adjoint_type(gu, store) is not None:
        return
    tree = gu.types.query(v).scalar_type()
    if tree.is_pointer:
        new_store = gu.vmap[store]
        assert isinstance(new_store, ir.Instruction)
        b = IRBuilder(position=new_store)
        b.position_after(new_store)
        b.store(integer_shadow(gu, v, store), gu.invert_pointer(store.pointer, store),
                store.align)
        return
    source = v.pointer if isinstance(v, ir.LoadInst) and gu.is_shadowed(v.pointer) else None
    if source is None:
        return  # an integer computed here, not data moved between buffers
    width = store_size(v.type) * 8
    if width < NARROW_INTEGER_BITS:
        if _holds_float(gu, source) or _holds_float(gu, store.pointer):
            raise gu.error(
                "Cannot deduce type of memory copied byte by byte between active buffers "
                "(the floating-point type of the data is lost)", store)
        return  # a byte is never a float nor a pointer (an empty member, a flag)
    if not tree.is_known and width != store_size(ir.ptr) * 8 and (
            width not in module_float_widths(gu.module)):
        return  # no float nor pointer of this width exists in the program: an integer
    if not tree.is_known:
        raise gu.error(f"Cannot deduce type of the data copied as `{v.type}` between active "
                       "buffers (nothing says whether it is a floating-point value, a "
                       "pointer or an integer)", store)


def integer_shadow(gu: GradientUtils, v: ir.Value, inst: ir.Instruction) -> ir.Value:
    """The shadow of an integer that holds a pointer (``load i64`` of a pointer field,
    ``ptrtoint``): the same bits read from the shadow memory / of the shadow pointer."""
    got = gu.shadow.get(v)
    if got is not None:
        return got
    if isinstance(v, ir.Constant):
        return v  # null and other constant addresses shadow themselves
    if isinstance(v, ir.LoadInst) and gu.is_shadowed(v.pointer):
        b = _fwd_builder_after(gu, v)
        s = b.load(v.type, gu.invert_pointer(v.pointer, v), v.align,
                   name=gu.fresh("s." + (v.name or "bits")))
        return _record(gu, v, s)
    if isinstance(v, ir.CastInst) and v.opcode == "ptrtoint" and gu.is_shadowed(v.value):
        b = _fwd_builder_after(gu, v)
        s = b.ptrtoint(gu.invert_pointer(v.value, v), v.type,
                       name=gu.fresh("s." + (v.name or "bits")))
        return _record(gu, v, s)
    if (isinstance(v, ir.BinaryOperator) and v in gu.activity.addresses):
        # the shadow's address moved or masked the same way (an aligned allocation)
        ops = [integer_shadow(gu, o, inst) if o in gu.activity.addresses else gu.primal(o)
               for o in v.operands]
        b = _fwd_builder_after(gu, v)
        s = clone_with_operands(v, ops)
        s.name = gu.fresh("s." + (v.name or "bits"))
        b.insert(s)
        return _record(gu, v, s)
    if isinstance(v, ir.PHINode | ir.SelectInst | ir.FreezeInst) and v in gu.activity.addresses:
        return _merged_integer_shadow(gu, v, inst)
    raise gu.error("Cannot deduce the shadow of a pointer held in an integer (stored into "
                   "active memory or passed to a call)", inst)


def _merged_shadow(gu: GradientUtils, v: ir.Value, inst: ir.Instruction) -> ir.Value:
    """The shadow bits of one value merged with addresses. One that activity analysis
    found to hold no address of memory with derivatives (the other variants of a Rust
    enum's slot: an index, a string's pointer, where one variant holds a fresh block's
    address) is its own shadow, as an inactive value is Enzyme's."""
    if v in gu.activity.addresses or v in gu.shadow or isinstance(v, ir.Constant) or (
            isinstance(v, ir.LoadInst) and gu.is_shadowed(v.pointer)) or (
            isinstance(v, ir.CastInst) and v.opcode == "ptrtoint"
            and gu.is_shadowed(v.value)):
        return integer_shadow(gu, v, inst)
    return gu.primal(v)


def _merged_integer_shadow(gu: GradientUtils, v: ir.Instruction, inst: ir.Instruction
                           ) -> ir.Value:
    """The shadow of a phi / select / freeze of addresses: the same merge of their
    shadows (a phi is recorded before its incoming shadows are made: loops)."""
    name = gu.fresh("s." + (v.name or "bits"))
    b = _fwd_builder_after(gu, v)
    if isinstance(v, ir.PHINode):
        s = ir.PHINode(v.type, name=name)
        b.insert(s)
        _record(gu, v, s)
        for value, blk in v.incoming:
            s.add_incoming(_merged_shadow(gu, value, inst), gu.vmap[blk])  # type: ignore[arg-type]
        return s
    if isinstance(v, ir.SelectInst):
        t = _merged_shadow(gu, v.true_value, inst)
        f = _merged_shadow(gu, v.false_value, inst)
        b = _fwd_builder_after(gu, v)
        return _record(gu, v, b.select(gu.primal(v.condition), t, f, name=name))
    op = integer_shadow(gu, v.operands[0], inst)
    b = _fwd_builder_after(gu, v)
    c = clone_with_operands(v, [op])
    c.name = name
    b.insert(c)
    return _record(gu, v, c)


def stored_adjoint_type(gu: GradientUtils, store: ir.StoreInst) -> ir.Type | None:
    """The type of the adjoint a store overwrites: the stored value's (a float, or the
    float an integer carries), or -- an integer constant or inactive integer written over
    floating-point data (``store i64 0`` clearing a double) -- the memory's."""
    v = store.value
    t = gu.adjoint_type(v)
    if t is not None or not _is_integer(v.type):
        return t
    mem = gu.types.memory_types(store.pointer, store_size(v.type))
    ct = mem.get(0) or mem.get(-1)
    if ct is None or not ct.is_float:
        return None
    ft = ir.FloatType(ct.float_kind or "double")
    vt = v.type
    if isinstance(vt, ir.VectorType):  # ``store <2 x i64> zeroinitializer`` over doubles
        return ir.VectorType(vt.count, ft) if ft.bits == vt.element.width else None
    return ft if ft.bits == vt.width else None


def should_drop_forward_free(gu: GradientUtils, call: ir.CallInst) -> bool:
    """``free(p)`` (or a release function's call) that releases every execution of an
    allocation of this function moves to the reverse pass
    (:func:`irgrad.analysis.frees.guaranteed_free_of`); any other free stays where it
    is."""
    freed = released_pointer(call)
    if freed is None:
        return False
    name = callee_name(call)
    if (is_state_release(name) or is_object_release(name)) and gu.is_shadowed(call.args[0]):
        # a stack allocator's release (irgrad's own tape, differentiated again) or an
        # object's (flang's _FortranADestroy of a derived type with allocatable
        # components): the blocks and their shadows live until the end of the reverse pass
        state, shadow = gu.primal(call.args[0]), gu.invert_pointer(call.args[0], call)
        fn = call.callee
        gu.deferred_frees.append(lambda b: (b.call(fn, [state]), b.call(fn, [shadow])))
        return True
    base = guaranteed_free_of(call)
    if base is None or base not in gu.activity.shadowed:
        return False
    if freed_pointer(call) is not None and is_allocation(callee_name(base)):
        gu.freed_allocations.add(base)  # malloc ... free: reverse_allocation frees both
    else:  # a wrapper's block or a release function: the same call, after the adjoints
        gu.deferred_releases.setdefault(base, []).append(call)
    return True


def release_deferred(gu: GradientUtils, alloc: ir.Instruction, b: IRBuilder) -> None:
    """In the reverse of ``alloc``: the calls that freed its block in the forward pass,
    on the primal and on the shadow (each looked up where the allocation ran)."""
    bb = alloc.parent
    assert bb is not None
    for call in gu.deferred_releases.get(alloc, ()):
        k = free_pointer_arg(callee_name(call))
        if k is None:
            k = release_argument(call.called_function)
        assert k is not None
        args = [gu.lookup_primal(a, bb) for a in call.args]
        shadow_args = list(args)
        shadow_args[k] = gu.lookup_shadow(call.args[k], bb, call)
        for a in (args, shadow_args):
            b.call(call.callee, a, call.function_type)


def reverse_allocation(gu: GradientUtils, call: ir.CallInst, b: IRBuilder) -> None:
    """Reverse of a malloc whose free was deferred: free the memory and its shadow."""
    alloc = allocator(callee_name(call))
    if alloc is not None and alloc.reallocates is not None and gu.is_shadowed(call):
        reverse_realloc(gu, call, b)
        return
    bb = call.parent
    assert bb is not None
    args = [gu.lookup_primal(a, bb) for a in call.args] if alloc and alloc.free_function \
        else []

    def release(ptr: ir.Value) -> ir.CallInst:  # as its allocator's memory is freed
        return release_block(b, gu.module, alloc, ptr, args)

    if call in gu.deferred_releases:
        return  # released by the calls that freed it (release_deferred)
    if call in gu.freed_allocations:  # (or in the forward pass: forward_frees.py)
        gu.reverse_primal_frees[call] = release(gu.lookup_primal(call, bb))
    if releases_shadow_at_reverse(gu, call):
        shadow = gu.lookup_shadow(call, bb, call)
        listed = one_argument_release(gu.module, alloc, args) \
            if call in gu.listed_shadow_allocations else None
        if listed is not None:  # a free of mixed origin lists it too: released once
            gu.ensure_tape().defer_free(b, shadow, listed, now=True)
        else:
            release(shadow)


def reverse_load(gu: GradientUtils, load: ir.LoadInst, b: IRBuilder) -> None:
    if not gu.is_varied(load):
        return
    t = gu.adjoint_type(load)
    if t is None:
        return
    bb = load.parent
    assert bb is not None
    d = gu.diffe(load, b)
    sp = gu.lookup_shadow(load.pointer, bb, load)
    old = b.load(t, sp, load.align)

    b.store(shadow_add(b, old, d), sp, load.align)


def reverse_store(gu: GradientUtils, store: ir.StoreInst, b: IRBuilder) -> None:
    v = store.value
    if not gu.is_shadowed(store.pointer):
        return
    t = stored_adjoint_type(gu, store)
    if t is None:
        return
    bb = store.parent
    assert bb is not None
    sp = gu.lookup_shadow(store.pointer, bb, store)

    # the shadow of a local buffer (an alloca, or a malloc freed here) is never seen by
    # the caller: reset it to -0.0, the additive identity, so a read-modify-write
    # ``p[i] = f(p[i])`` reverses to ``dp[i] = -0.0 + d`` which LLVM folds, and the
    # store of the reloaded adjoint goes away (the reverse loop then vectorizes)
    base = underlying_object(store.pointer)
    local = isinstance(base, ir.AllocaInst) or base in gu.freed_allocations
    zero = adjoint_zero(t) if local else zero_of(t)
    if gu.is_varied(v):
        d = b.load(t, sp, store.align)
        b.store(zero, sp, store.align)
        gu.add_to_diffe(v, d, b)
    else:
        b.store(zero, sp, store.align)


__all__ = [
    "create_shadow",
    "forward_memtransfer",
    "forward_store_shadow",
    "integer_shadow",
    "release_deferred",
    "releases_shadow_at_reverse",
    "reverse_allocation",
    "reverse_load",
    "reverse_memset",
    "reverse_memtransfer",
    "reverse_store",
    "should_drop_forward_free",
    "stored_adjoint_type",
]
