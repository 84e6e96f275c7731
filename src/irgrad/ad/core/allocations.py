"""Byte counts of heap allocations and how their blocks are released, from the
allocator's record in the table of known functions (shared by forward and reverse mode
when they allocate and free shadows)."""

from __future__ import annotations

from collections.abc import Sequence

from irgrad import ir
from irgrad.analysis.known_functions import Allocator
from irgrad.ir.builder import IRBuilder


def as_i64(b: IRBuilder, v: ir.Value) -> ir.Value:
    return v if v.type == ir.i64 else b.zext(v, ir.i64)


def unless_own_shadow(b: IRBuilder, shadow: ir.Value, primal: ir.Value,
                      n: ir.Value) -> ir.Value:
    """The length of a write of ``n`` bytes into ``shadow``: none when the shadow is the
    primal memory itself (library memory no derivative reaches, a long std::string's
    characters: its own shadow, :func:`irgrad.analysis.underlying_objects.
    from_inactive_library`), which derivative code must not overwrite. A constant or a
    stack slot of the derivative is never a primal block."""
    if isinstance(shadow, ir.Constant | ir.AllocaInst) or (
            isinstance(n, ir.Constant) and n.is_null_value()):
        return n
    return b.select(b.icmp("eq", shadow, primal), ir.null_value(n.type), n)


def allocation_bytes(b: IRBuilder, alloc: Allocator, args: Sequence[ir.Value]) -> ir.Value:
    """The number of bytes ``alloc(args...)`` returns (the product of its size arguments)."""
    total: ir.Value | None = None
    for k in alloc.size_args:
        v = as_i64(b, args[k])
        total = v if total is None else b.mul(total, v)
    assert total is not None, alloc.name
    return total


def release_block(b: IRBuilder, module: ir.Module, alloc: Allocator | None, block: ir.Value,
                  args: Sequence[ir.Value]) -> ir.CallInst:
    """At ``b``: free ``block``, a block ``alloc(args...)`` returned, the way its
    allocator's memory is freed: C's ``free`` unless the allocator names its deallocator
    (``operator delete[]`` for ``new[]``, with the alignment for the aligned forms; a
    registered allocator's free). ``args``: the allocator's arguments where ``b`` is.
    Returns the call it made."""
    if alloc is None or alloc.free_function is None:
        free = module.get_function("free") or module.get_or_insert_function(
            "free", ir.FunctionType(ir.void, [ir.ptr]))
        return b.call(free, [block])
    fn = module.get_function(alloc.free_function) or module.get_or_insert_function(
        alloc.free_function,
        ir.FunctionType(ir.void, [ir.ptr if i < 0 else args[i].type for i in alloc.free_args]))
    return b.call(fn, [block if i < 0 else args[i] for i in alloc.free_args])


def one_argument_release(module: ir.Module, alloc: Allocator | None,
                         args: Sequence[ir.Value]) -> ir.Function | None:
    """The function of one pointer that frees a block ``alloc(args...)`` returned (what a
    list of blocks to free calls): the deallocator itself, or an internal wrapper that
    passes the deallocator's other arguments when they are constants (the alignment of an
    aligned ``operator new``); None when they are not."""
    if alloc is None or alloc.free_function is None:
        return module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
    extra = [args[i] for i in alloc.free_args if i >= 0]
    if not extra:
        fn = module.get_function(alloc.free_function)
        return fn or module.get_or_insert_function(alloc.free_function,
                                                   ir.FunctionType(ir.void, [ir.ptr]))
    if not all(isinstance(a, ir.ConstantInt) for a in extra):
        return None
    return release_wrapper(module, alloc.free_function, extra)  # type: ignore[arg-type]


def release_wrapper(module: ir.Module, deallocator: str,
                    extra: Sequence[ir.ConstantInt]) -> ir.Function:
    """``void @__irgrad_release.<deallocator>.<extra...>(ptr block)``: calls
    ``deallocator(block, extra...)`` (``operator delete(p, std::align_val_t(64))``)."""
    name = ".".join(["__irgrad_release", deallocator, *(str(a.value) for a in extra)])
    got = module.get_function(name)
    if got is not None:
        return got
    fn = module.get_function(deallocator) or module.get_or_insert_function(
        deallocator, ir.FunctionType(ir.void, [ir.ptr, *(a.type for a in extra)]))
    wrapper = ir.Function(name, ir.FunctionType(ir.void, [ir.ptr]), "internal", ["block"])
    wrapper.fn_attrs = ["nounwind"]
    module.add_function(wrapper)
    b = IRBuilder(wrapper.append_basic_block("entry"))
    b.call(fn, [wrapper.args[0], *extra])
    b.ret()
    return wrapper


__all__ = ["allocation_bytes", "as_i64", "one_argument_release", "release_block",
           "release_wrapper"]
