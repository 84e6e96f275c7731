"""glibc's fortified memory calls become LLVM's memory intrinsics (a pre-AD step).

With ``-D_FORTIFY_SOURCE`` (the default of Debian's and Ubuntu's packaging flags, and of
many projects' Makefiles) and optimization on, glibc's headers route ``memcpy``,
``memmove``, ``mempcpy`` and ``memset`` through ``__memcpy_chk`` and its siblings,
which take the destination object's size as a fourth argument and stop the program with
``*** buffer overflow detected ***`` when the length exceeds it. LLVM folds such a call
back into the intrinsic only when it can prove the length fits; a copy of ``n`` doubles
into a struct's fixed array stays a call of ``__memcpy_chk``, which the AD engine would
treat as an unknown function.

Each such call becomes the check (an internal function of integers: a call of
``__chk_fail``, glibc's own report, when ``n`` exceeds the size) followed by the
intrinsic, so the program keeps its protection and the derivative sees an ordinary
copy. A size of ``-1`` (unknown to the compiler) needs no check.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ir.builder import IRBuilder

#: fortified function -> (what it does, its result: the destination or its end)
FORTIFIED = {
    "__memcpy_chk": "memcpy",
    "__memmove_chk": "memmove",
    "__mempcpy_chk": "mempcpy",
    "__memset_chk": "memset",
}
CHECK = "__irgrad_object_size_check"
_UNKNOWN_SIZE = (1 << 64) - 1


def lower_fortified_calls(module: ir.Module) -> int:
    """Rewrite every call of a fortified memory function in ``module``; how many."""
    done = 0
    for name in FORTIFIED:
        fn = module.get_function(name)
        if fn is None:
            continue
        for user in list(fn.users):
            if (isinstance(user, ir.CallInst) and user.called_function is fn
                    and len(user.args) == 4):
                _lower(module, user, FORTIFIED[name])
                done += 1
    return done


def _lower(module: ir.Module, call: ir.CallInst, kind: str) -> None:
    dst, arg, length, size = call.args
    b = IRBuilder(position=call)
    b.debug_loc = call.get_metadata("dbg")
    n = length if length.type == ir.i64 else b.zext(length, ir.i64)
    if not (isinstance(size, ir.ConstantInt) and size.unsigned_value == _UNKNOWN_SIZE):
        b.call(size_check(module), [n, size])
    if kind == "memset":
        if isinstance(arg, ir.ConstantInt):
            byte: ir.Value = ir.ConstantInt(ir.i8, arg.unsigned_value & 0xFF)
        else:
            byte = b.trunc(arg, ir.i8) if arg.type != ir.i8 else arg
        b.memset(dst, byte, n)
    elif kind == "memmove":
        move = b.declare_intrinsic("llvm.memmove.p0.p0.i64",
                                   ir.FunctionType(ir.void, [ir.ptr, ir.ptr, ir.i64, ir.i1]))
        b.call(move, [dst, arg, n, ir.ConstantInt(ir.i1, 0)])
    else:
        b.memcpy(dst, arg, n)
    result = b.gep(ir.i8, dst, [n]) if kind == "mempcpy" else dst
    call.replace_all_uses_with(result)
    call.erase_from_parent()


def size_check(module: ir.Module) -> ir.Function:
    """``void __irgrad_object_size_check(i64 n, i64 size)``: ``__chk_fail()`` when the
    ``n`` bytes a fortified call moves exceed the ``size`` of its destination."""
    got = module.get_function(CHECK)
    if got is not None:
        return got
    fn = ir.Function(CHECK, ir.FunctionType(ir.void, [ir.i64, ir.i64]), "internal",
                     ["n", "size"])
    module.add_function(fn)
    n, size = fn.args
    entry, bad, ok = (fn.append_basic_block(x) for x in ("entry", "overflow", "ok"))
    b = IRBuilder(entry)
    b.cond_br(b.icmp("ugt", n, size), bad, ok)
    b.position_at_end(bad)
    fail = module.get_function("__chk_fail") or module.get_or_insert_function(
        "__chk_fail", ir.FunctionType(ir.void, []))
    b.call(fail, [])
    b.unreachable()
    b.position_at_end(ok)
    b.ret_void()
    return fn


__all__ = ["CHECK", "FORTIFIED", "lower_fortified_calls", "size_check"]
