"""Memory in reverse mode: shadows (forward) and memory adjoints (reverse).

Forward: every shadowed pointer gets a shadow computed beside it (same GEP on the shadow
base, zeroed shadow alloca/malloc/calloc, shadow of a loaded pointer = load from shadow
memory); a store of a pointer also stores its shadow into shadow memory.
Reverse: ``y = load p``: ``*shadow(p) += diffe(y)``; ``store v, p``:
``diffe(v) += *shadow(p); *shadow(p) = 0``; memcpy: ``dsrc += ddst; ddst = 0``; memset:
``ddst = 0``; a malloc freed in the function is freed (with its shadow) when the reverse
pass reaches the malloc.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.allocations import allocation_bytes
from irgrad.ad.core.diagnostics import mixed_activity_store_message
from irgrad.ad.core.shadow_globals import shadow_globals_of, unshadowed_memory
from irgrad.ad.reverse.adjoints import add_values, adjoint_zero, zero_of
from irgrad.analysis.activity import alloca_may_hold, has_float
from irgrad.analysis.known_functions import allocator, callee_name, is_free
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.underlying_objects import underlying_object, underlying_objects
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
    if op == "alloca":
        assert isinstance(inst, ir.AllocaInst)
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
    raise gu.error(f"cannot create a shadow for `{op}`", inst)


def _shadow_allocation(gu: GradientUtils, call: ir.CallInst, b: IRBuilder,
                       name: str) -> ir.Value:
    alloc = allocator(callee_name(call))
    assert alloc is not None
    args = [gu.primal(a) for a in call.args]
    if alloc.reallocates is not None:  # a fresh zeroed shadow; the old one keeps its adjoints
        calloc = gu.libc("calloc", ir.FunctionType(ir.ptr, [_I64, _I64]))
        size = allocation_bytes(b, alloc, args)
        return b.call(calloc, [size, ir.ConstantInt(_I64, 1)], name=name)
    s = b.call(call.callee, args, call.function_type, name=name)
    if not alloc.zeroed:
        b.memset(s, 0, allocation_bytes(b, alloc, args))
    return s


def forward_store_shadow(gu: GradientUtils, store: ir.StoreInst) -> None:
    """A pointer stored into shadowed memory: store its shadow into the shadow memory."""
    v = store.value
    if not v.type.is_pointer or not gu.is_shadowed(store.pointer):
        # (varied, useful or not: the store would be what makes it useful)
        if (has_float(v.type) and v in gu.activity.varied
                and not gu.is_shadowed(store.pointer)):
            raise gu.error(unshadowed_memory(store.pointer, "active value stored"), store)
        _check_bytewise_copy(gu, store)
        return
    if not (gu.is_shadowed(v) or isinstance(v, ir.ConstantPointerNull)):
        # (a local that only ever receives inactive values, like unoptimized IR's
        # %k.addr of an enzyme_const pointer, hands out no shadow: harmless)
        if not isinstance(v, ir.Constant) and alloca_may_hold(store.pointer,
                                                              gu.activity.varied):
            raise gu.error(mixed_activity_store_message(v), store)
        return
    new_store = gu.vmap[store]
    assert isinstance(new_store, ir.Instruction)
    b = IRBuilder(position=new_store)
    b.position_after(new_store)
    b.store(gu.invert_pointer(v, store), gu.invert_pointer(store.pointer, store), store.align)


def _check_bytewise_copy(gu: GradientUtils, store: ir.StoreInst) -> None:
    v = store.value
    if (
        isinstance(v.type, ir.IntType) and v.type.width == 8
        and isinstance(v, ir.LoadInst) and gu.is_shadowed(v.pointer)
        and gu.is_shadowed(store.pointer)
    ):
        raise gu.error(
            "Cannot deduce type of memory copied byte by byte between active buffers "
            "(the floating-point type of the data is lost)", store)


def should_drop_forward_free(gu: GradientUtils, call: ir.CallInst) -> bool:
    """``free(p)`` of memory allocated in this function moves to the reverse pass."""
    if not is_free(callee_name(call)) or not call.args:
        return False
    base = underlying_object(call.args[0])
    if isinstance(base, ir.CallInst) and base in gu.activity.shadowed and base.parent:
        gu.freed_allocations.add(base)
        return True
    return False


def reverse_realloc(gu: GradientUtils, call: ir.CallInst, b: IRBuilder) -> None:
    """``q = realloc(p, n)`` copied p's data into q: ``dp[0:k] += dq[0:k]``; free dq."""
    bb = call.parent
    assert bb is not None
    old = gu.lookup_shadow(call.args[0], bb, call)
    new = gu.lookup_shadow(call, bb, call)
    n = gu.lookup_primal(call.args[1], bb)
    usable = gu.libc("malloc_usable_size", ir.FunctionType(_I64, [ir.ptr]))
    k = b.call(usable, [old])
    umin = gu.module.get_or_insert_function("llvm.umin.i64", ir.FunctionType(_I64, [_I64, _I64]))
    count = b.call(umin, [k, n if n.type == _I64 else b.zext(n, _I64)])
    et = _element_type(gu, call, [call]) or ir.double
    b.call(_memcpy_adjoint_helper(gu, et if isinstance(et, ir.FloatType) else ir.double),
           [old, new, count])
    b.call(gu.libc("free", ir.FunctionType(ir.void, [ir.ptr])), [new])


def reverse_allocation(gu: GradientUtils, call: ir.CallInst, b: IRBuilder) -> None:
    """Reverse of a malloc whose free was deferred: free the memory and its shadow."""
    alloc = allocator(callee_name(call))
    if alloc is not None and alloc.reallocates is not None and gu.is_shadowed(call):
        reverse_realloc(gu, call, b)
        return
    if call not in gu.freed_allocations:
        return
    bb = call.parent
    assert bb is not None
    free = gu.libc("free", ir.FunctionType(ir.void, [ir.ptr]))
    p = gu.lookup_primal(call, bb)
    s = gu.lookup_shadow(call, bb, call)
    b.call(free, [p])
    b.call(free, [s])


def reverse_load(gu: GradientUtils, load: ir.LoadInst, b: IRBuilder) -> None:
    if not gu.is_varied(load) or not has_float(load.type):
        return
    bb = load.parent
    assert bb is not None
    d = gu.diffe(load, b)
    sp = gu.lookup_shadow(load.pointer, bb, load)
    old = b.load(load.type, sp, load.align)

    b.store(add_values(b, old, d), sp, load.align)


def reverse_store(gu: GradientUtils, store: ir.StoreInst, b: IRBuilder) -> None:
    v = store.value
    if not gu.is_shadowed(store.pointer) or not has_float(v.type):
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
    zero = adjoint_zero(v.type) if local else zero_of(v.type)
    if gu.is_varied(v):
        d = b.load(v.type, sp, store.align)
        b.store(zero, sp, store.align)
        gu.add_to_diffe(v, d, b)
    else:
        b.store(zero, sp, store.align)


# -- memory intrinsics ------------------------------------------------------------------------
def _element_type(gu: GradientUtils, call: ir.CallBase, ptrs: list[ir.Value]) -> ir.Type | None:
    """The floating-point type of the data a memcpy moves (from the loads/stores around)."""

    bases = {_copy_base(p) for p in ptrs} - {None}
    _add_copy_partners(gu, bases)
    found: set[ir.Type] = set()
    pointers = False
    for inst in gu.orig.instructions():
        # through phis and selects too (a copied array reassigned in a loop, as numba's
        # ``y = y0.copy(); for ...: y = y + dt * k``)
        if (isinstance(inst, ir.LoadInst | ir.StoreInst)
                and not bases.isdisjoint({_copy_base(o) for o in
                                          underlying_objects(inst.pointer)})):
            t = inst.type if isinstance(inst, ir.LoadInst) else inst.value.type
            while isinstance(t, ir.VectorType | ir.ArrayType):
                t = t.element
            if isinstance(t, ir.FloatType):
                found.add(t)
            elif t.is_pointer:
                pointers = True
    if not found and not pointers:  # the buffers are only accessed by callees
        found, pointers = _callee_access_types(gu, bases)
    if len(found) == 1:
        return next(iter(found))
    if pointers and not found:
        return ir.ptr
    for p in ptrs:  # a pointer argument of a function with a known float element type
        if isinstance(p, ir.Argument):
            for u in p.users:
                if isinstance(u, ir.GetElementPtrInst) and isinstance(u.source_type,
                                                                      ir.FloatType):
                    return u.source_type
    return None


def _copy_base(p: ir.Value) -> ir.Value | None:
    """The underlying object of ``p``, seeing through the reload of a pointer from a
    local that holds a single stored value (unoptimized IR's ``%b.addr``), so every
    ``load ptr, ptr %b.addr`` names the same buffer."""
    base = underlying_object(p)
    while isinstance(base, ir.LoadInst) and isinstance(base.pointer, ir.AllocaInst):
        stores = [u for u in base.pointer.users if isinstance(u, ir.StoreInst)]
        if len(stores) != 1 or stores[0].pointer is not base.pointer:
            break
        base = underlying_object(stores[0].value)
    return base


def _access_types(fn: ir.Function, bases: set[ir.Value | None]
                  ) -> tuple[set[ir.Type], bool]:
    """The floating-point types loaded/stored through ``bases`` in ``fn`` (and whether
    pointers are)."""

    found: set[ir.Type] = set()
    pointers = False
    for inst in fn.instructions():
        if (isinstance(inst, ir.LoadInst | ir.StoreInst)
                and not bases.isdisjoint({_copy_base(o) for o in
                                          underlying_objects(inst.pointer)})):
            t = inst.type if isinstance(inst, ir.LoadInst) else inst.value.type
            while isinstance(t, ir.VectorType | ir.ArrayType):
                t = t.element
            if isinstance(t, ir.FloatType):
                found.add(t)
            elif t.is_pointer:
                pointers = True
    return found, pointers


def _callee_access_types(gu: GradientUtils, bases: set[ir.Value | None]
                         ) -> tuple[set[ir.Type], bool]:
    """How the defined functions this one passes ``bases`` to access them (unoptimized
    IR: ``memcpy(&absolutes[16 * b], rel, ...)`` where only ``mat4_mul`` reads them)."""
    found: set[ir.Type] = set()
    pointers = False
    for inst in gu.orig.instructions():
        fn = inst.called_function if isinstance(inst, ir.CallBase) else None
        if fn is None or fn.is_declaration or fn is gu.orig:
            continue
        args = {fn.args[k] for k, a in enumerate(inst.args)  # type: ignore[union-attr]
                if k < len(fn.args) and a.type.is_pointer and _copy_base(a) in bases}
        if args:
            f, p = _access_types(fn, args)  # type: ignore[arg-type]
            found |= f
            pointers |= p
    return found, pointers


def _add_copy_partners(gu: GradientUtils, bases: set[ir.Value | None]) -> None:
    """Grow ``bases`` with the buffers that memcpy/memmove copy to or from them: copied
    data has one type (``Body copy = *b; memcpy(&again, &copy, ...)``)."""
    pairs = []
    for inst in gu.orig.instructions():
        if isinstance(inst, ir.CallBase) and (callee_name(inst) or "").startswith(
                ("llvm.memcpy", "llvm.memmove")):
            pairs.append({_copy_base(inst.args[0]), _copy_base(inst.args[1])} - {None})
    grown = True
    while grown:
        grown = False
        for pair in pairs:
            if not pair.isdisjoint(bases) and not pair <= bases:
                bases |= pair
                grown = True


def reverse_memtransfer(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    """memcpy/memmove: ``dsrc += ddst; ddst = 0`` (elementwise in the data's float type)."""
    dst, src, n = call.args[0], call.args[1], call.args[2]
    if not gu.is_shadowed(dst):
        return
    bb = call.parent
    assert bb is not None
    if not gu.is_shadowed(src):  # constant source: the destination's adjoint is dropped
        sdst = gu.lookup_shadow(dst, bb, call)
        nn = gu.lookup_primal(n, bb)
        b.memset(sdst, 0, nn if nn.type == _I64 else b.zext(nn, _I64))
        return
    et = _element_type(gu, call, [dst, src])
    if et is None:
        raise gu.error("Cannot deduce type of the data copied by memcpy/memmove", call)
    if et.is_pointer:
        return
    sdst = gu.lookup_shadow(dst, bb, call)
    nn = gu.lookup_primal(n, bb)
    if nn.type != _I64:
        nn = b.zext(nn, _I64)
    if gu.is_shadowed(src):
        ssrc = gu.lookup_shadow(src, bb, call)
        helper = _memcpy_adjoint_helper(gu, et)  # type: ignore[arg-type]
        b.call(helper, [ssrc, sdst, nn])
    else:
        b.memset(sdst, 0, nn)


def forward_memtransfer(gu: GradientUtils, call: ir.CallBase) -> None:
    """A memcpy of pointers between shadowed buffers also copies the shadows; a copy of
    active floating-point data into memory without a shadow is an error."""
    dst, src = call.args[0], call.args[1]
    if gu.is_shadowed(src) and not gu.is_shadowed(dst):
        et = _element_type(gu, call, [dst, src])
        if isinstance(et, ir.FloatType):
            raise gu.error(unshadowed_memory(dst, "active data copied"), call)
    if not (gu.is_shadowed(dst) and gu.is_shadowed(src)):
        return
    if _element_type(gu, call, [dst, src]) != ir.ptr:
        return
    new = gu.vmap[call]
    assert isinstance(new, ir.Instruction)
    b = IRBuilder()
    b.position_after(new)
    b.call(call.callee, [gu.invert_pointer(dst, call), gu.invert_pointer(src, call),
                         gu.primal(call.args[2]), gu.primal(call.args[3])],
           call.function_type)


def reverse_memset(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    dst = call.args[0]
    if not gu.is_shadowed(dst):
        return
    bb = call.parent
    assert bb is not None
    nn = gu.lookup_primal(call.args[2], bb)
    b.memset(gu.lookup_shadow(dst, bb, call), 0, nn if nn.type == _I64 else b.zext(nn, _I64))


def _memcpy_adjoint_helper(gu: GradientUtils, et: ir.FloatType) -> ir.Function:
    """``void @__irgrad_memcpy_adjoint_<t>(ptr dsrc, ptr ddst, i64 bytes)``."""
    name = f"__irgrad_memcpy_adjoint_{et}"
    fn = gu.module.get_function(name)
    if fn is not None:
        return fn
    fn = gu.module.get_or_insert_function(
        name, ir.FunctionType(ir.void, [ir.ptr, ir.ptr, _I64]))
    fn.linkage = "internal"
    fn.fn_attrs = ["nounwind"]
    dsrc, ddst, nbytes = fn.args
    dsrc.name, ddst.name, nbytes.name = "dsrc", "ddst", "bytes"
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = IRBuilder(entry)
    size = alloc_size(et)
    n = b.udiv(nbytes, ir.ConstantInt(_I64, size), name="n")
    empty = b.icmp("eq", n, ir.ConstantInt(_I64, 0), name="empty")
    b.cond_br(empty, done, loop)
    b.position_at_end(loop)
    i = b.phi(_I64, [(ir.ConstantInt(_I64, 0), entry)], name="i")
    ps = b.gep(et, dsrc, [i], name="ps")
    pd = b.gep(et, ddst, [i], name="pd")
    vd = b.load(et, pd, name="vd")
    b.store(ir.ConstantFP(et, 0.0), pd)
    vs = b.load(et, ps, name="vs")
    b.store(b.fadd(vs, vd, name="sum"), ps)
    nxt = b.add(i, ir.ConstantInt(_I64, 1), name="next")
    i.add_incoming(nxt, loop)
    more = b.icmp("ult", nxt, n, name="more")
    b.cond_br(more, loop, done)
    b.position_at_end(done)
    b.ret()
    return fn
