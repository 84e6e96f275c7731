"""Indirect calls that can only call one function become direct calls -- in the private
copy the AD engine differentiates (:meth:`DerivativeContext.get_or_create`), never in the
user's function.

The function comes from the IR (:func:`irgrad.analysis.function_pointers.single_callee`):
``!callees`` with one entry, a select/phi of the same function, a slot of a constant table,
or a global that the module only ever sets to one function (``static void
*(*alloc)(size_t) = malloc;``). Every analysis then sees the callee by name: ``malloc``
called through a pointer is an allocation with a shadow, a right-hand side called through
a pointer is differentiated like a direct call. When the global can be written by other
modules too, the copy checks the pointer before the call and aborts with a message if it
holds another function.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.failures import emit_failure
from irgrad.analysis.function_pointers import single_callee


def _resolvable(call: ir.CallBase) -> tuple[ir.Function, bool] | None:
    if call.called_function is not None or isinstance(call.callee, ir.InlineAsm):
        return None
    got = single_callee(call)
    if got is None or got[0].function_type != call.function_type:
        return None
    return got


def has_resolvable_calls(fn: ir.Function) -> bool:
    """Whether ``fn`` has an indirect call :func:`devirtualize` would make direct."""
    if fn.is_declaration:
        return False
    return any(isinstance(i, ir.CallBase) and _resolvable(i) is not None
               for i in fn.instructions())


def devirtualize(fn: ir.Function) -> None:
    """Make ``fn``'s indirect calls with a single known target direct (see the module
    docstring). ``fn`` is a copy that only the derivative synthesis sees."""
    for inst in list(fn.instructions()):
        if not isinstance(inst, ir.CallBase):
            continue
        got = _resolvable(inst)
        if got is None:
            continue
        target, exact = got
        if not exact:
            b = ir.IRBuilder(position=inst)
            b.call(_guard(fn, target), [inst.callee, target])
        inst.callee = target


def _guard(fn: ir.Function, target: ir.Function) -> ir.Function:
    """``void __irgrad_expect_callee.<target>(ptr fp, ptr expected)``: aborts with a
    message unless ``fp == expected``."""
    module = fn.parent
    assert module is not None
    name = f"__irgrad_expect_callee.{target.name}"
    got = module.get_function(name)
    if got is not None:
        return got
    guard = ir.Function(name, ir.FunctionType(ir.void, [ir.ptr, ir.ptr]), "internal",
                        ["fp", "expected"])
    module.add_function(guard)
    b = ir.IRBuilder(guard.append_basic_block("entry"))
    fail = guard.append_basic_block("other")
    ok = guard.append_basic_block("ok")
    b.cond_br(b.icmp("eq", guard.args[0], guard.args[1]), ok, fail)
    b.position_at_end(ok)
    b.ret_void()
    b.position_at_end(fail)
    emit_failure(b, module, f"irgrad: a function pointer in {fn.name} that irgrad "
                 f"differentiated as a call of {target.name} held another function")
    return guard


__all__ = ["devirtualize", "has_resolvable_calls"]
