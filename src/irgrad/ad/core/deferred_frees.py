"""Shadow blocks released at the end of the whole reverse pass.

A block allocated in one function and freed by another (a container grown in a callee and
released by its caller's destructor, ``std::vector::resize`` in ``_M_default_append``)
has a shadow that neither function can free on its own: the freeing function does not
know whether the shadow is still read by the reverse of code that ran before it (its
caller's stores into the block), and the allocating function's reverse runs after the
block is gone. Such shadows are released once every adjoint is computed: at the end of
the reverse pass of the derivative the user called (``__enzyme_autodiff``).

The list of those blocks belongs to the outermost derivative's tape state (field
:data:`LIST_FIELD` of :data:`~irgrad.ad.core.tape_runtime.STATE_TYPE`): callees that push
their tapes onto their caller's byte stack get the same state, so the blocks they defer
reach the owner. A state without a list (a tape the user holds in split mode: its
reverse may run while the caller still reads the block) defers nothing: such a block
keeps its shadow, as before.

* ``void @__irgrad_defer_free(ptr state, ptr block, ptr release, i1 now_if_no_list, ptr
  primal)`` appends ``{block, release}`` to the state's list; without a list it frees the
  block at once when asked (a shadow whose free was due here anyway) and otherwise keeps
  it. A null block, or one that is the primal block itself (runtime activity), is not a
  shadow of its own: nothing happens.
* ``void @__irgrad_drain_frees(ptr list)`` releases every listed block once (a block can
  be listed twice: freed by the primal after a ``realloc`` whose reverse releases its
  shadow too), then the list.

``release`` is the deallocator matching the shadow's allocator (:data:`DEALLOCATORS`:
the unsized form of the primal's), called through the list.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.tape_runtime import STATE_TYPE, new_helper
from irgrad.ir.builder import IRBuilder

LIST_TYPE = ir.StructType([ir.ptr, ir.i64, ir.i64])  # {entries, count, capacity}
ENTRY_BYTES = 16  # {ptr block, ptr release}
LIST_FIELD = 4
DEFER_NAME = "__irgrad_defer_free"
DRAIN_NAME = "__irgrad_drain_frees"
SORT_KEY_NAME = "__irgrad_deferred_order"
# the primal's deallocator -> the one that releases its shadow (the unsized form)
DEALLOCATORS: dict[str, str] = {"free": "free", "_ZdlPv": "_ZdlPv", "_ZdlPvm": "_ZdlPv",
                                "_ZdaPv": "_ZdaPv", "_ZdaPvm": "_ZdaPv"}


def defer_free_function(module: ir.Module) -> ir.Function:
    """``void @__irgrad_defer_free(ptr state, ptr block, ptr release, i1 now_if_no_list,
    ptr primal)``."""
    ft = ir.FunctionType(ir.void, [ir.ptr, ir.ptr, ir.ptr, ir.i1, ir.ptr])
    fn = new_helper(module, DEFER_NAME, ft)
    if fn is None:
        return module.get_function(DEFER_NAME)  # type: ignore[return-value]
    st, block, release, now, primal = fn.args
    st.name, block.name, release.name, now.name, primal.name = (
        "state", "block", "release", "now", "primal")
    entry, listed, none, now_bb, push, grow, store, done = (fn.append_basic_block(n) for n in (
        "entry", "listed", "no.list", "free.now", "push", "grow", "store", "done"))
    b = IRBuilder(entry)
    null = ir.ConstantPointerNull(ir.ptr)
    own = b.and_(b.icmp("ne", block, null), b.icmp("ne", block, primal), name="own")
    b.cond_br(own, listed, done)
    b.position_at_end(listed)
    lst = b.load(ir.ptr, b.struct_gep(STATE_TYPE, st, LIST_FIELD), name="list")
    b.cond_br(b.icmp("eq", lst, null, name="none"), none, push)
    b.position_at_end(none)
    b.cond_br(now, now_bb, done)
    b.position_at_end(now_bb)
    b.call(release, [block], function_type=_RELEASE_TYPE)
    b.br(done)
    b.position_at_end(push)
    count_slot = b.struct_gep(LIST_TYPE, lst, 1, name="count.slot")
    cap_slot = b.struct_gep(LIST_TYPE, lst, 2, name="cap.slot")
    count = b.load(ir.i64, count_slot, name="count")
    cap = b.load(ir.i64, cap_slot, name="cap")
    b.cond_br(b.icmp("eq", count, cap, name="full"), grow, store)
    b.position_at_end(grow)
    twice = b.shl(cap, ir.ConstantInt(ir.i64, 1), name="twice")
    umax = module.get_or_insert_function("llvm.umax.i64",
                                         ir.FunctionType(ir.i64, [ir.i64, ir.i64]))
    new_cap = b.call(umax, [twice, ir.ConstantInt(ir.i64, 16)], name="new.cap")
    realloc = module.get_or_insert_function("realloc",
                                            ir.FunctionType(ir.ptr, [ir.ptr, ir.i64]))
    old = b.load(ir.ptr, lst, name="old")
    grown = b.call(realloc, [old, b.mul(new_cap, ir.ConstantInt(ir.i64, ENTRY_BYTES))],
                   name="grown")
    b.store(grown, lst)
    b.store(new_cap, cap_slot)
    b.br(store)
    b.position_at_end(store)
    entries = b.load(ir.ptr, lst, name="entries")
    slot = b.gep(ir.i8, entries, [b.mul(count, ir.ConstantInt(ir.i64, ENTRY_BYTES))],
                 name="slot")
    b.store(block, slot)
    b.store(release, b.gep(ir.i8, slot, [ir.ConstantInt(ir.i64, 8)]))
    b.store(b.add(count, ir.ConstantInt(ir.i64, 1)), count_slot)
    b.br(done)
    b.position_at_end(done)
    b.ret()
    return fn


_RELEASE_TYPE = ir.FunctionType(ir.void, [ir.ptr])


def release_function(module: ir.Module, deallocator: str) -> ir.Function:
    """The function that releases the shadow of a block ``deallocator`` frees."""
    return module.get_or_insert_function(DEALLOCATORS[deallocator], _RELEASE_TYPE)


def _order_function(module: ir.Module) -> ir.Function:
    """``i32 (ptr a, ptr b)`` for ``qsort``: entries by block address."""
    ft = ir.FunctionType(ir.i32, [ir.ptr, ir.ptr])
    fn = new_helper(module, SORT_KEY_NAME, ft, inline=False)
    if fn is None:
        return module.get_function(SORT_KEY_NAME)  # type: ignore[return-value]
    a, c = fn.args
    b = IRBuilder(fn.append_basic_block("entry"))
    pa = b.ptrtoint(b.load(ir.ptr, a), ir.i64)
    pc = b.ptrtoint(b.load(ir.ptr, c), ir.i64)
    gt = b.zext(b.icmp("ugt", pa, pc), ir.i32)
    lt = b.zext(b.icmp("ult", pa, pc), ir.i32)
    b.ret(b.sub(gt, lt))
    return fn


def drain_frees_function(module: ir.Module) -> ir.Function:
    """``void @__irgrad_drain_frees(ptr list)``: sort by address, release each distinct
    block once, free the entries."""
    fn = new_helper(module, DRAIN_NAME, ir.FunctionType(ir.void, [ir.ptr]),
                    inline=False)
    if fn is None:
        return module.get_function(DRAIN_NAME)  # type: ignore[return-value]
    (lst,) = fn.args
    lst.name = "list"
    entry, sort, loop, fresh, nxt, done = (fn.append_basic_block(n) for n in (
        "entry", "sort", "loop", "fresh", "next", "done"))
    b = IRBuilder(entry)
    entries = b.load(ir.ptr, lst, name="entries")
    count = b.load(ir.i64, b.struct_gep(LIST_TYPE, lst, 1), name="count")
    b.cond_br(b.icmp("eq", count, ir.ConstantInt(ir.i64, 0)), done, sort)
    b.position_at_end(sort)
    qsort = module.get_or_insert_function(
        "qsort", ir.FunctionType(ir.void, [ir.ptr, ir.i64, ir.i64, ir.ptr]))
    b.call(qsort, [entries, count, ir.ConstantInt(ir.i64, ENTRY_BYTES),
                   _order_function(module)])
    b.br(loop)
    null = ir.ConstantPointerNull(ir.ptr)
    b.position_at_end(loop)
    i = b.phi(ir.i64, [(ir.ConstantInt(ir.i64, 0), sort)], name="i")
    prev = b.phi(ir.ptr, [(null, sort)], name="prev")
    slot = b.gep(ir.i8, entries, [b.mul(i, ir.ConstantInt(ir.i64, ENTRY_BYTES))])
    block = b.load(ir.ptr, slot, name="block")
    release = b.load(ir.ptr, b.gep(ir.i8, slot, [ir.ConstantInt(ir.i64, 8)]), name="release")
    b.cond_br(b.icmp("eq", block, prev, name="again"), nxt, fresh)
    b.position_at_end(fresh)
    b.call(release, [block], function_type=_RELEASE_TYPE)
    b.br(nxt)
    b.position_at_end(nxt)
    i1 = b.add(i, ir.ConstantInt(ir.i64, 1), name="i.next")
    i.add_incoming(i1, nxt)
    prev.add_incoming(block, nxt)
    b.cond_br(b.icmp("eq", i1, count), done, loop)
    b.position_at_end(done)
    free = module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
    b.call(free, [entries])
    b.ret()
    return fn


def without_deferred_frees(fn: ir.Function) -> None:
    """Make ``fn`` (a derivative about to be differentiated again) release its shadows the
    way it did before there was a list: a free due at once is a direct call of the
    deallocator, the others and the drain go (higher-order derivatives keep those shadows;
    the list's code, with its calls through function pointers, is not differentiable)."""
    for inst in list(fn.instructions()):
        if not isinstance(inst, ir.CallBase):
            continue
        callee = inst.called_function
        if callee is None or callee.name not in (DEFER_NAME, DRAIN_NAME):
            continue
        if callee.name == DEFER_NAME:
            _, block, release, now, _ = inst.args
            if isinstance(now, ir.ConstantInt) and now.value:
                b = IRBuilder(position=inst)
                b.call(release, [block], function_type=_RELEASE_TYPE)
        inst.erase_from_parent()


__all__ = ["DEALLOCATORS", "LIST_FIELD", "LIST_TYPE", "defer_free_function",
           "drain_frees_function", "release_function", "without_deferred_frees"]
