"""Code that fails at run time with a message: what a derivative does where irgrad could
not know at compile time that it would be needed (a function pointer that reaches a
function without a derivative, derivatives that reach a copy of untyped bytes)."""

from __future__ import annotations

from irgrad import ir


def message_global(module: ir.Module, message: str) -> tuple[ir.GlobalVariable, int]:
    """A private constant holding ``message`` and a newline, and its length in bytes."""
    text = (message.rstrip("\n") + "\n").encode()
    data = ir.GlobalVariable(module.unique_name("__irgrad_msg"),
                             ir.ArrayType(len(text), ir.i8),
                             ir.ConstantDataString(ir.ArrayType(len(text), ir.i8), text),
                             True, "private")
    data.unnamed_addr = "unnamed_addr"
    module.add_global(data)
    return data, len(text)


def _fail_with(b: ir.IRBuilder, module: ir.Module, data: ir.Value, size: ir.Value) -> None:
    write = module.get_function("write") or module.get_or_insert_function(
        "write", ir.FunctionType(ir.i64, [ir.i32, ir.ptr, ir.i64]))
    abort = module.get_function("abort") or module.get_or_insert_function(
        "abort", ir.FunctionType(ir.void, []))
    b.call(write, [ir.ConstantInt(ir.i32, 2), data, size])
    b.call(abort, [])
    b.unreachable()


def emit_failure(b: ir.IRBuilder, module: ir.Module, message: str) -> None:
    """``write(2, message); abort()`` and ``unreachable`` at the builder's position."""
    data, size = message_global(module, message)
    _fail_with(b, module, data, ir.ConstantInt(ir.i64, size))


def zero_bytes_check(module: ir.Module) -> ir.Function:
    """``void __irgrad_expect_zero(ptr p, i64 n, ptr msg, i64 len)``: aborts with the
    message unless the ``n`` bytes at ``p`` are all zero (no derivative reached them)."""
    name = "__irgrad_expect_zero"
    got = module.get_function(name)
    if got is not None:
        return got
    fn = ir.Function(name, ir.FunctionType(ir.void, [ir.ptr, ir.i64, ir.ptr, ir.i64]),
                     "internal", ["p", "n", "msg", "len"])
    module.add_function(fn)
    p, n, msg, size = fn.args
    entry, loop = fn.append_basic_block("entry"), fn.append_basic_block("loop")
    bad, ok = fn.append_basic_block("bad"), fn.append_basic_block("ok")
    b = ir.IRBuilder(entry)
    zero = ir.ConstantInt(ir.i64, 0)
    b.cond_br(b.icmp("eq", n, zero), ok, loop)
    b.position_at_end(loop)
    i = b.phi(ir.i64, [(zero, entry)], name="i")
    byte = b.load(ir.i8, b.gep(ir.i8, p, [i]))
    nxt = b.add(i, ir.ConstantInt(ir.i64, 1))
    cont = fn.append_basic_block("next")
    i.add_incoming(nxt, cont)
    b.cond_br(b.icmp("ne", byte, ir.ConstantInt(ir.i8, 0)), bad, cont)
    b.position_at_end(cont)
    b.cond_br(b.icmp("ult", nxt, n), loop, ok)
    b.position_at_end(ok)
    b.ret_void()
    b.position_at_end(bad)
    _fail_with(b, module, msg, size)
    return fn


def table_check(module: ir.Module) -> ir.Function:
    """``void __irgrad_check_shadow(ptr fp, ptr shadow)``: aborts with a message unless the
    shadow of function pointer ``fp`` can be a table of derivatives (not null, not ``fp``
    itself, which is what a shadow copied from the primal holds)."""
    name = "__irgrad_check_shadow"
    got = module.get_function(name)
    if got is not None:
        return got
    fn = ir.Function(name, ir.FunctionType(ir.void, [ir.ptr, ir.ptr]), "internal",
                     ["fp", "shadow"])
    module.add_function(fn)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    bad = fn.append_basic_block("bad")
    ok = fn.append_basic_block("ok")
    fp, shadow = fn.args
    is_null = b.icmp("eq", shadow, ir.ConstantPointerNull(ir.ptr))
    is_primal = b.icmp("eq", shadow, fp)
    b.cond_br(b.or_(is_null, is_primal), bad, ok)
    b.position_at_end(ok)
    b.ret_void()
    b.position_at_end(bad)
    emit_failure(b, module, "irgrad: a function pointer reached in a derivative is not a "
                 "function of this module, and its shadow does not hold its derivatives "
                 "(pass __enzyme_virtualreverse(f) as the shadow of such a function f)")
    return fn


def bound_check(module: ir.Module) -> ir.Function:
    """``void __irgrad_expect_at_most(i64 n, i64 bound, ptr dst, ptr sdst, ptr src,
    ptr ssrc, ptr msg, i64 len)``: aborts with the message when a copy of ``n > bound``
    bytes (unsigned) runs between buffers one of which has a shadow of its own (a buffer
    that is its own shadow is memory no derivative reaches)."""
    name = "__irgrad_expect_at_most"
    got = module.get_function(name)
    if got is not None:
        return got
    p = ir.ptr
    fn = ir.Function(name, ir.FunctionType(ir.void, [ir.i64, ir.i64, p, p, p, p, p, ir.i64]),
                     "internal", ["n", "bound", "dst", "sdst", "src", "ssrc", "msg", "len"])
    module.add_function(fn)
    n, bound, dst, sdst, src, ssrc, msg, size = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    bad, ok = fn.append_basic_block("bad"), fn.append_basic_block("ok")
    inactive = b.and_(b.icmp("eq", dst, sdst), b.icmp("eq", src, ssrc))
    b.cond_br(b.and_(b.icmp("ugt", n, bound), b.not_(inactive)), bad, ok)
    b.position_at_end(ok)
    b.ret_void()
    b.position_at_end(bad)
    _fail_with(b, module, msg, size)
    return fn


__all__ = ["bound_check", "emit_failure", "message_global", "table_check",
           "zero_bytes_check"]
