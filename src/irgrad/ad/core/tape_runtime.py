"""The tape's runtime: the functions a derivative calls to grow and release its byte stack.

A tape's state is ``{ptr base, i64 sp, i64 capacity, ptr stack_buffer, ptr
deferred_frees}`` (the last: :mod:`irgrad.ad.core.deferred_frees`). It starts in a
stack buffer of the derivative (or empty) and moves to the heap when it outgrows it; a
heap tape carries its capacity in a :data:`HEADER_BYTES` header in front of its data.

* ``ptr @__irgrad_tape_push(ptr state, i64 n)`` reserves ``n`` bytes and returns the
  frame; out of the stack buffer it takes the module's cached heap tape when that is big
  enough, else mallocs one; a heap tape grows by realloc (doubling).
* ``void @__irgrad_tape_release(ptr state)`` at the end of the reverse pass puts a heap
  tape into the module's cache ``@__irgrad_tape_cache`` (an atomic swap; the tape it
  replaces is freed), so the next call reuses its pages instead of faulting in fresh
  ones: ADBench GMM's tapes of tens of megabytes spent a third of the gradient in the
  kernel's page-fault handler. Tapes over :data:`CACHE_LIMIT_BYTES` are freed.

A derivative that is differentiated again calls other variants instead
(:func:`without_tape_cache`), whose code is differentiable like any allocator's: no
atomics on a global. Both are known allocators (``analysis.known_functions``): a push's
shadow frame is a push on the shadow state.

* ``_nocache`` (forward mode over the derivative): the same layout, grown by realloc;
  tangents are read and written as the primal runs, so a frame that moved is never used.
* ``_stable`` (reverse mode over the derivative): frames never move. The reverse pass of
  the outer derivative reads and zeroes the shadow frame of every push long after later
  pushes grew the stack, through the pointer the push returned; a realloc'd stack left
  those pointers dangling (AddressSanitizer: heap-use-after-free in third-order reverse
  mode), and a copied one would split a frame's adjoint between two blocks. So the first
  push reserves :data:`STABLE_RESERVATION` bytes of address space (``mmap`` with
  ``MAP_NORESERVE``: pages cost memory once touched) and the stack stays there; a tape that
  outgrows it stops the program with a message.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.failures import emit_failure
from irgrad.ad.core.internal_shadows import reserve_address_space
from irgrad.ir.builder import IRBuilder

# {base, sp, capacity, stack buffer, list of shadow blocks to free at the end (or null):
# irgrad.ad.core.deferred_frees}
STATE_TYPE = ir.StructType([ir.ptr, ir.i64, ir.i64, ir.ptr, ir.ptr])
HEADER_BYTES = 16  # a heap tape's capacity, in front of its data (16: keeps the alignment)
CACHE_LIMIT_BYTES = 1 << 28  # released heap tapes up to 256 MiB are kept for the next call
CACHE_NAME = "__irgrad_tape_cache"
PUSH_NAME = "__irgrad_tape_push"
RELEASE_NAME = "__irgrad_tape_release"
NOCACHE = "_nocache"
STABLE = "_stable"
STABLE_RESERVATION = 1 << 34  # 16 GiB of address space per stack of a _stable variant


def _header(b: IRBuilder, data: ir.Value) -> ir.Value:
    return b.gep(ir.i8, data, [ir.ConstantInt(ir.i64, -HEADER_BYTES)])


def _swap_cache(b: IRBuilder, module: ir.Module, tape: ir.Value, name: str, *,
                if_empty: ir.BasicBlock, otherwise: ir.BasicBlock) -> ir.Value:
    """Put ``tape`` (or null) into the module's tape cache atomically and branch on
    whether the cache held one; returns what it held."""
    old = b.atomicrmw("xchg", _cache_global(module), tape, name=name)
    b.cond_br(b.icmp("eq", old, ir.ConstantPointerNull(ir.ptr)), if_empty, otherwise)
    return old


def _cache_global(module: ir.Module) -> ir.GlobalVariable:
    """``@__irgrad_tape_cache``: the module's last released heap tape (or null)."""
    for gv in module.globals:
        if gv.name == CACHE_NAME:
            return gv
    gv = ir.GlobalVariable(CACHE_NAME, ir.ptr, ir.ConstantPointerNull(ir.ptr),
                           linkage="internal")
    module.add_global(gv)
    return gv


def new_helper(module: ir.Module, name: str, ft: ir.FunctionType, *,
               inline: bool = True) -> ir.Function | None:
    """A fresh internal (always-inline unless ``inline`` is false) runtime function to
    fill in, or None when ``name`` is defined already."""
    fn = module.get_function(name)
    if fn is not None and not fn.is_declaration:
        return None
    fn = module.get_or_insert_function(name, ft)
    fn.linkage = "internal"
    fn.fn_attrs = ["alwaysinline", "nounwind"] if inline else ["nounwind"]
    return fn


def tape_release_function(module: ir.Module, cached: bool = True) -> ir.Function:
    """``void @__irgrad_tape_release(ptr state)`` (``_nocache``: always frees)."""
    name = RELEASE_NAME + ("" if cached else NOCACHE)
    fn = new_helper(module, name, ir.FunctionType(ir.void, [ir.ptr]))
    if fn is None:
        return module.get_function(name)  # type: ignore[return-value]
    st = fn.args[0]
    st.name = "state"
    entry, heap, drop, done = (fn.append_basic_block(n) for n in ("entry", "heap", "drop", "done"))
    free = module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
    b = IRBuilder(entry)
    base = b.load(ir.ptr, st, name="base")
    buf = b.load(ir.ptr, b.struct_gep(STATE_TYPE, st, 3), name="buf")
    b.cond_br(b.icmp("eq", base, buf, name="on.stack"), done, heap)
    b.position_at_end(heap)
    if cached:
        keep, drop_old = fn.append_basic_block("keep"), fn.append_basic_block("drop.old")
        cap = b.load(ir.i64, b.struct_gep(STATE_TYPE, st, 2), name="cap")
        small = b.icmp("ule", cap, ir.ConstantInt(ir.i64, CACHE_LIMIT_BYTES), name="small")
        b.cond_br(small, keep, drop)
        b.position_at_end(keep)
        old = _swap_cache(b, module, base, "old", if_empty=done, otherwise=drop_old)
        b.position_at_end(drop_old)
        b.call(free, [_header(b, old)])
        b.br(done)
    else:
        b.br(drop)
    b.position_at_end(drop)
    b.call(free, [_header(b, base)])
    b.br(done)
    b.position_at_end(done)
    b.ret()
    return fn


def tape_push_function(module: ir.Module, cached: bool = True) -> ir.Function:
    """``ptr @__irgrad_tape_push(ptr state, i64 n)``: reserve n bytes, return the frame
    (``_nocache``: never takes the cached tape)."""
    name = PUSH_NAME + ("" if cached else NOCACHE)
    fn = new_helper(module, name, ir.FunctionType(ir.ptr, [ir.ptr, ir.i64]))
    if fn is None:
        return module.get_function(name)  # type: ignore[return-value]
    st, n = fn.args
    st.name, n.name = "state", "n"
    names = ("entry", "grow", "grow.stack", "grow.fresh", "grow.copy", "grow.heap", "grown",
             "done")
    entry, grow, grow_stack, fresh_bb, copy_bb, grow_heap, grown, done = (
        fn.append_basic_block(x) for x in names)
    b = IRBuilder(entry)
    sp_slot, cap_slot, base, sp, cap = _load_state(b, st)
    need = b.add(sp, n, name="need")
    b.cond_br(b.icmp("ugt", need, cap, name="full"), grow, done)
    b.position_at_end(grow)
    twice = b.shl(cap, ir.ConstantInt(ir.i64, 1), name="twice")
    umax_fn = module.get_or_insert_function("llvm.umax.i64",
                                            ir.FunctionType(ir.i64, [ir.i64, ir.i64]))
    c1 = b.call(umax_fn, [twice, need], name="c1")
    c2 = b.call(umax_fn, [c1, ir.ConstantInt(ir.i64, 4096)], name="c2")
    buf = b.load(ir.ptr, b.struct_gep(STATE_TYPE, st, 3, name="buf.slot"), name="buf")
    b.cond_br(b.icmp("eq", base, buf, name="on.stack"), grow_stack, grow_heap)
    # out of the stack buffer (or no tape yet): the cached heap tape when it is big
    # enough, else a fresh one
    b.position_at_end(grow_stack)
    null = ir.ConstantPointerNull(ir.ptr)
    if cached:
        free = module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
        check_bb = fn.append_basic_block("grow.cached")
        drop_bb = fn.append_basic_block("grow.drop")
        cached_tape = _swap_cache(b, module, null, "cached", if_empty=fresh_bb,
                                  otherwise=check_bb)
        b.position_at_end(check_bb)
        cached_cap = b.load(ir.i64, _header(b, cached_tape), name="cached.cap")
        b.cond_br(b.icmp("uge", cached_cap, c2, name="fits"), copy_bb, drop_bb)
        b.position_at_end(drop_bb)
        b.call(free, [_header(b, cached_tape)])
        b.br(fresh_bb)
    else:
        b.br(fresh_bb)
    b.position_at_end(fresh_bb)
    malloc = module.get_or_insert_function("malloc", ir.FunctionType(ir.ptr, [ir.i64]))
    block = b.call(malloc, [b.add(c2, ir.ConstantInt(ir.i64, HEADER_BYTES))], name="block")
    b.store(c2, block)
    fresh = b.gep(ir.i8, block, [ir.ConstantInt(ir.i64, HEADER_BYTES)], name="fresh")
    b.br(copy_bb)
    b.position_at_end(copy_bb)
    if cached:
        data = b.phi(ir.ptr, [(cached_tape, check_bb), (fresh, fresh_bb)], name="data")
        data_cap = b.phi(ir.i64, [(cached_cap, check_bb), (c2, fresh_bb)], name="data.cap")
    else:
        data, data_cap = fresh, c2
    b.memcpy(data, base, sp)
    b.br(grown)
    b.position_at_end(grow_heap)
    realloc = module.get_or_insert_function("realloc", ir.FunctionType(ir.ptr, [ir.ptr, ir.i64]))
    moved_block = b.call(realloc, [_header(b, base),
                                   b.add(c2, ir.ConstantInt(ir.i64, HEADER_BYTES))],
                         name="moved.block")
    b.store(c2, moved_block)
    moved = b.gep(ir.i8, moved_block, [ir.ConstantInt(ir.i64, HEADER_BYTES)], name="moved")
    b.br(grown)
    b.position_at_end(grown)
    nb = b.phi(ir.ptr, [(data, copy_bb), (moved, grow_heap)], name="nb")
    new_cap = b.phi(ir.i64, [(data_cap, copy_bb), (c2, grow_heap)], name="new.cap")
    b.store(nb, st)
    b.store(new_cap, cap_slot)
    b.br(done)
    b.position_at_end(done)
    cur = b.phi(ir.ptr, [(base, entry), (nb, grown)], name="cur")
    b.store(need, sp_slot)
    b.ret(b.gep(ir.i8, cur, [sp], name="frame"))
    return fn


def _load_state(b: IRBuilder, st: ir.Value
                ) -> tuple[ir.Value, ir.Value, ir.Value, ir.Value, ir.Value]:
    """The stack pointer's and capacity's slots in state ``st``, and its base, stack
    pointer and capacity."""
    sp_slot = b.struct_gep(STATE_TYPE, st, 1, name="sp.slot")
    cap_slot = b.struct_gep(STATE_TYPE, st, 2, name="cap.slot")
    base = b.load(ir.ptr, st, name="base")
    return (sp_slot, cap_slot, base, b.load(ir.i64, sp_slot, name="sp"),
            b.load(ir.i64, cap_slot, name="cap"))


def pop_frame(b: IRBuilder, state: ir.Value, size: int) -> tuple[ir.Instruction, ir.Value]:
    """Pop ``size`` bytes off the byte stack ``state``: the new stack pointer (an ``i64``
    subtraction whose constant a caller may patch later) and the popped frame."""
    sp_slot = b.struct_gep(STATE_TYPE, state, 1)
    sp = b.sub(b.load(ir.i64, sp_slot), ir.ConstantInt(ir.i64, size))
    b.store(sp, sp_slot)
    frame = b.gep(ir.i8, b.load(ir.ptr, state), [sp], name="tape.frame")
    assert isinstance(sp, ir.Instruction)
    return sp, frame


def stable_push_function(module: ir.Module) -> ir.Function:
    """``ptr @__irgrad_tape_push_stable(ptr state, i64 n)``: reserve n bytes, return the
    frame; the stack lives in one address-space reservation and never moves."""
    name = PUSH_NAME + STABLE
    fn = new_helper(module, name, ir.FunctionType(ir.ptr, [ir.ptr, ir.i64]))
    if fn is None:
        return module.get_function(name)  # type: ignore[return-value]
    st, n = fn.args
    st.name, n.name = "state", "n"
    entry, grow, reserve, full, done = (fn.append_basic_block(x) for x in (
        "entry", "grow", "reserve", "full", "done"))
    b = IRBuilder(entry)
    sp_slot, cap_slot, base, sp, cap = _load_state(b, st)
    buf = b.load(ir.ptr, b.struct_gep(STATE_TYPE, st, 3), name="buf")
    need = b.add(sp, n, name="need")
    # the derivative's stack buffer (or no stack yet) is left at the first push: nothing
    # has been pushed there, every push goes through this function
    in_region = b.icmp("ne", base, buf, name="in.region")
    fits = b.icmp("ule", need, cap, name="fits")
    b.cond_br(b.and_(in_region, fits), done, grow)
    b.position_at_end(grow)
    b.cond_br(in_region, full, reserve)
    b.position_at_end(reserve)
    region = reserve_address_space(
        b, module, STABLE_RESERVATION, "irgrad: cannot reserve address space for the tape "
        "of a derivative that is differentiated again in reverse mode (mmap failed)", "region")
    moved = b.insert_block
    assert moved is not None
    b.memcpy(region, base, sp)
    b.store(region, st)
    b.store(ir.ConstantInt(ir.i64, STABLE_RESERVATION), cap_slot)
    big = b.icmp("ugt", need, ir.ConstantInt(ir.i64, STABLE_RESERVATION), name="too.big")
    b.cond_br(big, full, done)
    b.position_at_end(full)
    emit_failure(b, module, f"irgrad: the tape of a derivative that is differentiated again "
                 f"in reverse mode outgrew its {STABLE_RESERVATION >> 30} GiB reservation")
    b.position_at_end(done)
    cur = b.phi(ir.ptr, [(base, entry), (region, moved)], name="cur")
    b.store(need, sp_slot)
    b.ret(b.gep(ir.i8, cur, [sp], name="frame"))
    return fn


def stable_release_function(module: ir.Module) -> ir.Function:
    """``void @__irgrad_tape_release_stable(ptr state)``: unmap the reservation."""
    name = RELEASE_NAME + STABLE
    fn = new_helper(module, name, ir.FunctionType(ir.void, [ir.ptr]))
    if fn is None:
        return module.get_function(name)  # type: ignore[return-value]
    st = fn.args[0]
    st.name = "state"
    entry, unmap, done = (fn.append_basic_block(n) for n in ("entry", "unmap", "done"))
    b = IRBuilder(entry)
    base = b.load(ir.ptr, st, name="base")
    buf = b.load(ir.ptr, b.struct_gep(STATE_TYPE, st, 3), name="buf")
    b.cond_br(b.icmp("eq", base, buf, name="never.pushed"), done, unmap)
    b.position_at_end(unmap)
    munmap = module.get_function("munmap") or module.get_or_insert_function(
        "munmap", ir.FunctionType(ir.i32, [ir.ptr, ir.i64]))
    b.call(munmap, [base, ir.ConstantInt(ir.i64, STABLE_RESERVATION)])
    b.br(done)
    b.position_at_end(done)
    b.ret()
    return fn


def without_tape_cache(fn: ir.Function, *, stable: bool = False) -> None:
    """Make ``fn`` (about to be differentiated) call the ``_nocache`` tape helpers, or the
    ``_stable`` ones when it is differentiated in reverse mode (``_stable`` also serves a
    later forward-mode derivative, so it is never undone)."""
    module = fn.parent
    if module is None or fn.is_declaration:
        return
    pushes = {PUSH_NAME, PUSH_NAME + NOCACHE}
    replaceable = pushes | {RELEASE_NAME, RELEASE_NAME + NOCACHE}
    for inst in list(fn.instructions()):
        if not isinstance(inst, ir.CallBase):
            continue
        callee = inst.called_function
        if callee is None or callee.name not in replaceable:
            continue
        push = callee.name in pushes
        if stable:
            inst.callee = stable_push_function(module) if push else \
                stable_release_function(module)
        elif callee.name in (PUSH_NAME, RELEASE_NAME):
            make = tape_push_function if push else tape_release_function
            inst.callee = make(module, cached=False)
