"""Forward mode at allocation calls: each heap block gets a zeroed shadow block of the
same size from the same allocator (``malloc``, ``calloc``, ``new``, Rust's
``__rust_alloc``, a module's own ``__enzyme_allocation_like``), ``realloc`` reallocates
the shadow with its grown part zeroed, ``posix_memalign`` puts a shadow into the
shadow slot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.allocations import allocation_bytes, as_i64
from irgrad.ad.forward.shadow_copies import copy_shadow, shadow_name, times_width
from irgrad.analysis.known_functions import Allocator, allocator, callee_name

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def _lane(t: object, k: int) -> object:
    return t[k] if isinstance(t, list) else t


def visit_alloc(fp: ForwardPass, call: ir.CallBase, alloc: Allocator) -> None:
    """malloc/calloc/new/realloc: a shadow allocation of the same size, zeroed."""
    assert isinstance(call, ir.CallInst)
    if fp.points_into_float_free(call):
        return  # a block only a global message log reaches (its strings): no shadow, as
        # in reverse mode (a shadow would be stored nowhere and never freed)
    if call in fp.interleaved:
        fp.tangents[call] = _interleaved_alloc(fp, call, alloc)
        return
    shadows: list[ir.Value] = []
    for _ in range(fp.width):
        if alloc.reallocates is not None:
            base = fp.tangent(call.args[alloc.reallocates])
            lanes = base if isinstance(base, list) else [base]
            src = lanes[len(shadows)] if base is not None else ir.ConstantPointerNull(ir.ptr)
            sh = _realloc_shadow(fp, call, src)  # type: ignore[arg-type]
        else:  # a stack allocator's shadow frame comes out of the shadow state
            states = {call.args[k]: _lane(fp.tangent(call.args[k]), len(shadows))
                      for k in alloc.state_args}
            sh = copy_shadow(fp, call, states)  # type: ignore[arg-type]
        if not alloc.zeroed and alloc.reallocates is None:
            size = allocation_bytes(fp.b, alloc, call.args)
            if alloc.free_function is None and not alloc.state_args and \
                    fp.ctx.module.get_function("realloc") is not None:
                # a later realloc copies the whole usable block: zero all of it (not for
                # an allocator of the program's own, whose blocks realloc never sees)
                size = fp.b.call(_usable_size(fp), [sh], name="'malloc.usable")
            fp.b.memset(sh, 0, size)
        shadows.append(sh)
    fp.tangents[call] = shadows[0] if fp.width == 1 else shadows


def visit_out_alloc(fp: ForwardPass, call: ir.CallBase, alloc: Allocator) -> None:
    """``posix_memalign(&p, align, n)``: when ``p`` has a shadow slot, the same call puts
    a shadow block of the same size and alignment there, which is zeroed."""
    assert alloc.out_arg is not None
    slot = fp.tangent(call.args[alloc.out_arg])
    if slot is None:
        return
    b = fp.b
    for lane in slot if isinstance(slot, list) else [slot]:
        args = list(call.args)
        args[alloc.out_arg] = lane
        b.call(call.callee, args, call.function_type)
        shadow = b.load(ir.ptr, lane, name="'memalign")
        b.memset(shadow, 0, allocation_bytes(b, alloc, call.args))


def _interleaved_alloc(fp: ForwardPass, call: ir.CallInst, alloc: Allocator) -> ir.Value:
    """One zeroed shadow buffer ``width`` times the size of the primal allocation."""
    b = fp.b
    args = list(call.args)
    size_at = alloc.size_args[-1]
    args[size_at] = times_width(fp, args[size_at])
    shadow = b.call(call.callee, args, call.function_type, name=shadow_name(call))
    if not alloc.zeroed:
        b.memset(shadow, 0, allocation_bytes(b, alloc, args))
    return shadow


def _usable_size(fp: ForwardPass) -> ir.Function:
    return fp.b.get_or_insert_function("malloc_usable_size",
                                       ir.FunctionType(ir.i64, [ir.ptr]))


def _realloc_shadow(fp: ForwardPass, call: ir.CallInst, old: ir.Value) -> ir.Value:
    """``realloc`` of the shadow whose grown part is zeroed: realloc copies the old bytes
    and leaves the rest undefined, but a tangent must start at zero. The old and new sizes
    are the allocations' usable sizes (``malloc_usable_size``; 0 for null), so
    ``[old usable, new usable)`` is cleared after the call. Shadows irgrad allocates with
    malloc are zeroed over their usable size when the module reallocs; a shadow the user
    allocates should be zeroed the same way (calloc does in glibc)."""
    b = fp.b
    alloc = allocator(callee_name(call))
    if alloc is not None and alloc.old_size_arg is not None:  # __rust_realloc: sizes given
        sh = copy_shadow(fp, call, {call.args[0]: old})
        old_size = as_i64(b, call.args[alloc.old_size_arg])
        new_size = allocation_bytes(b, alloc, call.args)
    else:
        usable = _usable_size(fp)
        old_size = b.call(usable, [old], name="'realloc.old.size")
        sh = copy_shadow(fp, call, {call.args[0]: old})
        new_size = b.call(usable, [sh], name="'realloc.new.size")
    grown = b.icmp("ugt", new_size, old_size)
    length = b.select(grown, b.sub(new_size, old_size), ir.ConstantInt(ir.i64, 0),
                      name="'realloc.grown")
    tail = b.gep(ir.i8, sh, [old_size], name="'realloc.tail")
    b.memset(tail, 0, length)
    return sh


__all__ = ["visit_alloc", "visit_out_alloc"]
