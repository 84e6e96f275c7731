"""Calls through trampolines become direct calls (a pre-AD step).

A Fortran internal procedure passed as an actual argument (``call rk4(rhs, ...)`` with
``rhs`` contained in the caller, reading the caller's variables) is, in flang's IR, a
*trampoline*: ``llvm.init.trampoline(T, @rhs, N)`` writes code into ``T`` that calls
``@rhs`` with the host's frame ``N`` as its ``nest`` parameter, and
``llvm.adjust.trampoline(T)`` is the function pointer passed on. No derivative can go
through code written at run time, so each use of that pointer is rewritten where the
target is known:

* a call through it becomes a direct call of the procedure with ``N`` as the last
  argument;
* passing it to a defined function ``G`` becomes a call of a copy of ``G`` that receives
  ``N`` in that parameter's place and calls the procedure directly wherever ``G`` called
  through the parameter (passing it on to another function copies that one too).

The direct calls go to a copy of the procedure without the ``nest`` attribute (an
ordinary parameter: a derivative adds shadow parameters after it). A use of the pointer
that is none of these (stored into memory, compared) is left alone: the derivative then
stops at the trampoline with a located error.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import clone_function

_INIT = "llvm.init.trampoline"
_ADJUST = "llvm.adjust.trampoline"
_MAX_DEPTH = 8


def resolve_trampolines(module: ir.Module) -> int:
    """Rewrite the uses of the trampolines of ``module`` whose targets are known (see the
    module docstring); how many uses."""
    adjust = module.get_function(_ADJUST)
    if adjust is None:
        return 0
    state = _State(module)
    done = 0
    for call in [u for u in list(adjust.users) if isinstance(u, ir.CallInst)]:
        target = _target(call)
        if target is None:
            continue
        fn, nest = target
        for use in list(call.uses):
            done += state.rewrite_use(use.user, call, fn, nest)
        if not call.uses:
            init = _init_of(call)
            call.erase_from_parent()
            if init is not None and _only_user(init.args[0], init):
                init.erase_from_parent()
    return done


def _init_of(adjust: ir.CallInst) -> ir.CallInst | None:
    """The one ``init.trampoline`` of ``adjust``'s memory, in the same block before it."""
    mem = adjust.args[0]
    inits = [u.user for u in mem.uses if isinstance(u.user, ir.CallInst)
             and u.user.called_function is not None
             and u.user.called_function.name == _INIT]
    if len(inits) != 1 or inits[0].parent is not adjust.parent:
        return None
    block = adjust.parent
    assert block is not None
    order = block.instructions
    init = inits[0]
    return init if order.index(init) < order.index(adjust) else None


def _only_user(mem: ir.Value, init: ir.Instruction) -> bool:
    return all(u.user is init for u in mem.uses)


def _target(adjust: ir.CallInst) -> tuple[ir.Function, ir.Value] | None:
    """The procedure and host frame of a trampoline (None: unknown)."""
    init = _init_of(adjust)
    if init is None:
        return None
    fn = init.args[1]
    if not isinstance(fn, ir.Function) or fn.is_declaration:
        return None
    nest = [a for a in fn.args if "nest" in a.attrs]
    if len(nest) != 1 or nest[0] is not fn.args[-1]:
        return None
    return fn, init.args[2]


class _State:
    """The copies made so far: of the procedures (without ``nest``) and of the functions
    that receive a trampoline (by function, parameter and procedure)."""

    def __init__(self, module: ir.Module) -> None:
        self.module = module
        self.direct: dict[ir.Function, ir.Function] = {}
        self.copies: dict[tuple[ir.Function, int, ir.Function], ir.Function] = {}

    def procedure(self, fn: ir.Function) -> ir.Function:
        """``fn`` called directly: a copy whose frame parameter is an ordinary one."""
        if fn not in self.direct:
            copy, _ = clone_function(fn, self.module.unique_name(fn.name + ".direct"))
            copy.linkage = "internal"
            for a in copy.args:
                a.attrs = [t for t in a.attrs if t != "nest"]
            self.direct[fn] = copy
        return self.direct[fn]

    def rewrite_use(self, user: ir.Value, ptr: ir.Value, fn: ir.Function,
                    frame: ir.Value) -> int:
        """Rewrite one use of ``ptr`` (the procedure ``fn`` with host ``frame``): 1 when
        rewritten, 0 when left alone."""
        if not isinstance(user, ir.CallInst):
            return 0
        if user.callee is ptr:
            if ptr in user.args or not _calls_like(user, fn):
                return 0
            self._call_directly(user, fn, frame)
            return 1
        g = user.called_function
        positions = [k for k, a in enumerate(user.args) if a is ptr]
        if g is None or len(positions) != 1 or not self.receives(g, positions[0], fn, ()):
            return 0
        user.callee = self.receiving(g, positions[0], fn)
        user.set_arg(positions[0], frame)
        user.arg_attrs[positions[0]] = []
        return 1

    def _call_directly(self, call: ir.CallInst, fn: ir.Function, frame: ir.Value) -> None:
        b = IRBuilder(position=call)
        b.debug_loc = call.get_metadata("dbg")
        new = b.call(self.procedure(fn), [*call.args, frame])
        if not call.type.is_void:
            call.replace_all_uses_with(new)
            new.name = call.name
        call.erase_from_parent()

    def receives(self, g: ir.Function, k: int, fn: ir.Function,
                 seen: tuple[tuple[ir.Function, int], ...]) -> bool:
        """Does ``g`` only call its parameter ``k`` (with ``fn``'s arguments but the
        frame) or pass it once to a function that does (recursively)?"""
        if (g, k) in seen:
            return True
        if g.is_declaration or len(seen) > _MAX_DEPTH or k >= len(g.args):
            return False
        param = g.args[k]
        for use in param.uses:
            user = use.user
            if not isinstance(user, ir.CallInst):
                return False
            if user.callee is param:
                if param in user.args or not _calls_like(user, fn):
                    return False
                continue
            inner = user.called_function
            args = list(user.args)
            if inner is None or args.count(param) != 1 or not self.receives(
                    inner, args.index(param), fn, (*seen, (g, k))):
                return False
        return True

    def receiving(self, g: ir.Function, k: int, fn: ir.Function) -> ir.Function:
        """A copy of ``g`` taking the host frame of ``fn`` in parameter ``k`` (checked by
        :meth:`receives`)."""
        key = (g, k, fn)
        if key in self.copies:
            return self.copies[key]
        copy, vm = clone_function(g, self.module.unique_name(f"{g.name}.{fn.name}"))
        copy.linkage = "internal"
        self.copies[key] = copy
        frame = vm[g.args[k]]
        copy.args[k].attrs = []
        for use in list(frame.uses):
            user = use.user
            assert isinstance(user, ir.CallInst)
            if user.callee is frame:
                self._call_directly(user, fn, frame)
                continue
            inner = user.called_function
            assert inner is not None
            j = list(user.args).index(frame)
            user.callee = self.receiving(inner, j, fn)
            user.arg_attrs[j] = []
        return copy


def _calls_like(call: ir.CallInst, fn: ir.Function) -> bool:
    """``call`` passes ``fn``'s arguments but its last (the frame) and expects its result."""
    ft = fn.function_type
    return (list(ft.params) == [*call.function_type.params, ir.ptr]
            and ft.return_type == call.function_type.return_type)


__all__ = ["resolve_trampolines"]
