"""The C library's memory calls become LLVM's memory intrinsics (a pre-AD step).

1. **Fortified calls.** With ``-D_FORTIFY_SOURCE`` (the default of Debian's and Ubuntu's
   packaging flags, and of many projects' Makefiles) and optimization on, glibc's headers
   route ``memcpy``, ``memmove``, ``mempcpy`` and ``memset`` through ``__memcpy_chk`` and
   its siblings, which take the destination object's size as a fourth argument and stop
   the program with ``*** buffer overflow detected ***`` when the length exceeds it. LLVM
   folds such a call back into the intrinsic only when it can prove the length fits; a
   copy of ``n`` doubles into a struct's fixed array stays a call of ``__memcpy_chk``.
   Each becomes the check (an internal function of integers: a call of ``__chk_fail``,
   glibc's own report, when ``n`` exceeds the size) followed by the intrinsic, so the
   program keeps its protection. A size of ``-1`` (unknown to the compiler) needs none.
2. **Plain calls.** Under ``-fno-builtin`` or ``-ffreestanding`` the front end keeps
   ``memcpy(d, s, n)`` a call of the library function; it becomes the intrinsic, which
   means the same.

The derivative then sees an ordinary copy, whatever flags built the program.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ir.builder import IRBuilder

#: library function -> what it does (its result: the destination, or its end for mempcpy)
FORTIFIED = {
    "__memcpy_chk": "memcpy",
    "__memmove_chk": "memmove",
    "__mempcpy_chk": "mempcpy",
    "__memset_chk": "memset",
}
PLAIN = {kind: kind for kind in FORTIFIED.values()}
CHECK = "__irgrad_object_size_check"
_UNKNOWN_SIZE = (1 << 64) - 1


def lower_memory_libcalls(module: ir.Module) -> int:
    """Rewrite every call of a library memory function in ``module``; how many."""
    done = 0
    for table, arity in ((FORTIFIED, 4), (PLAIN, 3)):
        for name, kind in table.items():
            fn = module.get_function(name)
            if fn is None or not fn.is_declaration or len(fn.args) != arity:
                continue  # (a module's own function of that name is left alone)
            for user in list(fn.users):
                if isinstance(user, ir.CallInst) and user.called_function is fn:
                    _lower(module, user, kind)
                    done += 1
    return done


def _lower(module: ir.Module, call: ir.CallInst, kind: str) -> None:
    dst, arg, length = call.args[:3]
    b = IRBuilder(position=call)
    b.debug_loc = call.get_metadata("dbg")
    n = length if length.type == ir.i64 else b.zext(length, ir.i64)
    size = call.args[3] if len(call.args) > 3 else None
    if size is not None and not (isinstance(size, ir.ConstantInt)
                                 and size.unsigned_value == _UNKNOWN_SIZE):
        b.call(size_check(module), [n, size])
    if kind == "memset":
        if isinstance(arg, ir.ConstantInt):
            byte: ir.Value = ir.ConstantInt(ir.i8, arg.unsigned_value & 0xFF)
        else:
            byte = b.trunc(arg, ir.i8) if arg.type != ir.i8 else arg
        b.memset(dst, byte, n)
    elif kind == "memmove":
        b.memmove(dst, arg, n)
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
    fail = module.get_or_insert_function("__chk_fail", ir.FunctionType(ir.void, []))
    b.call(fail, [])
    b.unreachable()
    b.position_at_end(ok)
    b.ret_void()
    return fn


__all__ = ["CHECK", "FORTIFIED", "PLAIN", "lower_memory_libcalls", "size_check"]
