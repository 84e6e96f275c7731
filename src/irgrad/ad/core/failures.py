"""Code that fails at run time with a message: what a derivative does where irgrad could
not know at compile time that it would be needed (a function pointer that reaches a
function without a derivative)."""

from __future__ import annotations

from irgrad import ir


def emit_failure(b: ir.IRBuilder, module: ir.Module, message: str) -> None:
    """``write(2, message); abort()`` and ``unreachable`` at the builder's position."""
    text = (message.rstrip("\n") + "\n").encode()
    data = ir.GlobalVariable(module.unique_name("__irgrad_msg"),
                             ir.ArrayType(len(text), ir.i8),
                             ir.ConstantDataString(ir.ArrayType(len(text), ir.i8), text),
                             True, "private")
    data.unnamed_addr = "unnamed_addr"
    module.add_global(data)
    write = module.get_function("write") or module.get_or_insert_function(
        "write", ir.FunctionType(ir.i64, [ir.i32, ir.ptr, ir.i64]))
    abort = module.get_function("abort") or module.get_or_insert_function(
        "abort", ir.FunctionType(ir.void, []))
    b.call(write, [ir.ConstantInt(ir.i32, 2), data, ir.ConstantInt(ir.i64, len(text))])
    b.call(abort, [])
    b.unreachable()


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


__all__ = ["emit_failure", "table_check"]
