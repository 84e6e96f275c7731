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
  primal, i64 kind)`` appends ``{block, release, kind}`` to the state's list; without a
  list it frees the block at once when asked (a shadow whose free was due here anyway) and
  otherwise keeps it. A null block, or one that is the primal block itself (runtime
  activity), is not a shadow of its own: nothing happens.
* ``void @__irgrad_drain_frees(ptr list)`` releases every listed block once (a block can
  be listed twice: freed by the primal after a ``realloc`` whose reverse releases its
  shadow too), then the list.

An entry's ``kind`` says why it is there. :data:`FREED`: the primal freed a block of
floating-point data or pointers, whose shadow is a block of ours. :data:`ALLOCATED`: a
derivative allocated the shadow block of an allocation that outlives its function (its
reverse cannot free it; the user may own it in the end). :data:`FREED_IF_ALLOCATED`: the
primal freed a block without active data (characters, integers: type analysis cannot
say the shadow is a block -- a string changed by library code keeps a stale shadow, maybe
its stack buffer): released only when one of our shadow allocations gave that very block.
A ``std::vector<int>`` grown in a constructor and released by a destructor has its
shadows released this way; before, they leaked.

``release`` is the deallocator matching the shadow's allocator (:data:`DEALLOCATORS`:
the unsized form of the primal's), called through the list.
"""

from __future__ import annotations

import re

from irgrad import ir
from irgrad.ad.core.allocations import release_wrapper
from irgrad.ad.core.tape_runtime import STATE_TYPE, new_helper
from irgrad.analysis.known_functions import callee_name, free_pointer_arg
from irgrad.analysis.release_functions import release_argument
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import clone_blocks_into, strip_debug_locations

LIST_TYPE = ir.StructType([ir.ptr, ir.i64, ir.i64])  # {entries, count, capacity}
ENTRY_BYTES = 24  # {ptr block, ptr release, i64 kind}
# entry kinds (bits): a block is released when its entries together have both bits
ALLOCATED = 1
FREED_IF_ALLOCATED = 2
FREED = ALLOCATED | FREED_IF_ALLOCATED
LIST_FIELD = 4
DEFER_NAME = "__irgrad_defer_free"
DRAIN_NAME = "__irgrad_drain_frees"
SORT_KEY_NAME = "__irgrad_deferred_order"
# the primal's deallocator -> the one that releases its shadow (the unsized form)
DEALLOCATORS: dict[str, str] = {"free": "free", "_ZdlPv": "_ZdlPv", "_ZdlPvm": "_ZdlPv",
                                "_ZdaPv": "_ZdaPv", "_ZdaPvm": "_ZdaPv"}


def defer_free_function(module: ir.Module) -> ir.Function:
    """``void @__irgrad_defer_free(ptr state, ptr block, ptr release, i1 now_if_no_list,
    ptr primal, i64 kind)``."""
    ft = ir.FunctionType(ir.void, [ir.ptr, ir.ptr, ir.ptr, ir.i1, ir.ptr, ir.i64])
    fn = new_helper(module, DEFER_NAME, ft)
    if fn is None:
        return module.get_function(DEFER_NAME)  # type: ignore[return-value]
    st, block, release, now, primal, kind = fn.args
    st.name, block.name, release.name, now.name, primal.name, kind.name = (
        "state", "block", "release", "now", "primal", "kind")
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
    b.store(kind, b.gep(ir.i8, slot, [ir.ConstantInt(ir.i64, 16)]))
    b.store(b.add(count, ir.ConstantInt(ir.i64, 1)), count_slot)
    b.br(done)
    b.position_at_end(done)
    b.ret()
    return fn


_RELEASE_TYPE = ir.FunctionType(ir.void, [ir.ptr])


def release_function(module: ir.Module, deallocator: str) -> ir.Function:
    """The function that releases the shadow of a block ``deallocator`` frees."""
    return module.get_or_insert_function(DEALLOCATORS[deallocator], _RELEASE_TYPE)


_ALIGNED_DELETE = re.compile(r"^_Zd([la])Pvm?St11align_val_t$")


def shadow_release_for(module: ir.Module, call: ir.CallBase) -> ir.Function | None:
    """The function of one pointer that releases the shadow of the block the deallocator
    call ``call`` frees: the unsized form of ``free``/``operator delete``; aligned
    ``operator delete`` with its (constant) alignment. None for other deallocators."""
    name = callee_name(call) or ""
    if name in DEALLOCATORS:
        return release_function(module, name)
    m = _ALIGNED_DELETE.match(name)
    align = call.args[-1] if m and len(call.args) >= 2 else None
    if isinstance(align, ir.ConstantInt):
        return release_wrapper(module, f"_Zd{m.group(1)}PvSt11align_val_t", [align])  # type: ignore[union-attr]
    return None


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
    """``void @__irgrad_drain_frees(ptr list)``: sort by address; release each distinct
    block once when its entries have both kind bits (the deallocator of the last entry
    that freed it), then free the entries."""
    fn = new_helper(module, DRAIN_NAME, ir.FunctionType(ir.void, [ir.ptr]),
                    inline=False)
    if fn is None:
        return module.get_function(DRAIN_NAME)  # type: ignore[return-value]
    (lst,) = fn.args
    lst.name = "list"
    entry, sort, loop, peek, last, release_bb, nxt, done = (fn.append_basic_block(n) for n in (
        "entry", "sort", "loop", "peek", "last", "release", "next", "done"))
    b = IRBuilder(entry)
    i64 = ir.i64

    def c(v: int) -> ir.ConstantInt:
        return ir.ConstantInt(i64, v)

    entries = b.load(ir.ptr, lst, name="entries")
    count = b.load(i64, b.struct_gep(LIST_TYPE, lst, 1), name="count")
    b.cond_br(b.icmp("eq", count, c(0)), done, sort)
    b.position_at_end(sort)
    qsort = module.get_or_insert_function(
        "qsort", ir.FunctionType(ir.void, [ir.ptr, i64, i64, ir.ptr]))
    b.call(qsort, [entries, count, c(ENTRY_BYTES), _order_function(module)])
    b.br(loop)
    null = ir.ConstantPointerNull(ir.ptr)
    # one iteration per entry; `bits` and `rel` gather the run of entries of one block
    b.position_at_end(loop)
    i = b.phi(i64, [(c(0), sort)], name="i")
    prev = b.phi(ir.ptr, [(null, sort)], name="prev")
    prev_bits = b.phi(i64, [(c(0), sort)], name="prev.bits")
    prev_rel = b.phi(ir.ptr, [(null, sort)], name="prev.rel")
    slot = b.gep(ir.i8, entries, [b.mul(i, c(ENTRY_BYTES))])
    block = b.load(ir.ptr, slot, name="block")
    rel = b.load(ir.ptr, b.gep(ir.i8, slot, [c(8)]), name="rel")
    kind = b.load(i64, b.gep(ir.i8, slot, [c(16)]), name="kind")
    same = b.icmp("eq", block, prev, name="same")
    bits = b.or_(b.select(same, prev_bits, c(0)), kind, name="bits")
    frees = b.icmp("ne", b.and_(kind, c(FREED_IF_ALLOCATED)), c(0), name="frees")
    run_rel = b.select(frees, rel, b.select(same, prev_rel, null), name="run.rel")
    i1 = b.add(i, c(1), name="i.next")
    b.cond_br(b.icmp("eq", i1, count, name="end"), last, peek)
    b.position_at_end(peek)  # the run goes on when the next entry has the same block
    next_block = b.load(ir.ptr, b.gep(ir.i8, entries, [b.mul(i1, c(ENTRY_BYTES))]))
    b.cond_br(b.icmp("eq", next_block, block), nxt, last)
    b.position_at_end(last)  # the run's last entry: release when both bits are set
    both = b.icmp("eq", bits, c(FREED), name="both")
    b.cond_br(both, release_bb, nxt)
    b.position_at_end(release_bb)
    b.call(run_rel, [block], function_type=_RELEASE_TYPE)
    b.br(nxt)
    b.position_at_end(nxt)
    i.add_incoming(i1, nxt)
    prev.add_incoming(block, nxt)
    prev_bits.add_incoming(bits, nxt)
    prev_rel.add_incoming(run_rel, nxt)
    b.cond_br(b.icmp("eq", i1, count), done, loop)
    b.position_at_end(done)
    free = module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
    b.call(free, [entries])
    b.ret()
    return fn


DEFER_RELEASE_PREFIX = "__irgrad_defer_release."


def deferring_release(module: ir.Module, fn: ir.Function) -> ir.Function:
    """``void @__irgrad_defer_release.<fn>(<fn's parameters>, ptr state)``: release
    function ``fn`` (a destructor that only frees what its argument leads to,
    :mod:`irgrad.analysis.release_functions`) run on a shadow object, listing each block
    it would free (kind :data:`FREED_IF_ALLOCATED`: the shadow object's blocks are ours
    when our shadow allocations made them) instead of freeing it, so the reverse of the
    code before the release still finds them. A block freed by a deallocator without an
    unsized form to release it through the list is kept."""
    name = DEFER_RELEASE_PREFIX + fn.name
    got = module.get_function(name)
    if got is not None:
        return got
    params = list(fn.function_type.params)
    new = ir.Function(name, ir.FunctionType(ir.void, [*params, ir.ptr]), "internal",
                      [f"a{k}" for k in range(len(params))] + ["state"])
    new.fn_attrs = ["nounwind"]
    module.add_function(new)
    state = new.args[-1]
    clone_blocks_into(fn, new, dict(zip(fn.args, new.args, strict=False)))
    strip_debug_locations(new)
    for inst in list(new.instructions()):
        if not isinstance(inst, ir.CallBase):
            continue
        b = IRBuilder(position=inst)
        callee, dealloc = inst.called_function, callee_name(inst)
        k = free_pointer_arg(dealloc)
        if k is not None:
            release = shadow_release_for(module, inst)
            if release is not None:
                b.call(defer_free_function(module),
                       [state, inst.args[k], release, ir.ConstantInt(ir.i1, 0),
                        ir.ConstantPointerNull(ir.ptr),
                        ir.ConstantInt(ir.i64, FREED_IF_ALLOCATED)])
        elif callee is not None and release_argument(callee) is not None:
            b.call(deferring_release(module, callee), [*inst.args, state])
        else:
            continue  # lifetime markers, sanitizer checks
        inst.erase_from_parent()
    return new


def without_deferred_frees(fn: ir.Function) -> None:
    """Make ``fn`` (a derivative about to be differentiated again) release its shadows the
    way it did before there was a list: a free due at once is a direct call of the
    deallocator, the others and the drain go (higher-order derivatives keep those shadows;
    the list's code, with its calls through function pointers, is not differentiable)."""
    for inst in list(fn.instructions()):
        if not isinstance(inst, ir.CallBase):
            continue
        callee = inst.called_function
        if callee is not None and callee.name.startswith(DEFER_RELEASE_PREFIX):
            inst.erase_from_parent()
            continue
        if callee is None or callee.name not in (DEFER_NAME, DRAIN_NAME):
            continue
        if callee.name == DEFER_NAME:
            _, block, release, now, _, _ = inst.args
            if isinstance(now, ir.ConstantInt) and now.value:
                b = IRBuilder(position=inst)
                b.call(release, [block], function_type=_RELEASE_TYPE)
        inst.erase_from_parent()


__all__ = ["ALLOCATED", "DEALLOCATORS", "FREED", "FREED_IF_ALLOCATED", "LIST_FIELD",
           "LIST_TYPE", "defer_free_function", "deferring_release",
           "drain_frees_function", "release_function", "shadow_release_for",
           "without_deferred_frees"]
