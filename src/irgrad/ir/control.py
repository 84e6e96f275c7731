"""Calls, terminators and exception-handling instructions (call, invoke, callbr, ret, br,
switch, indirectbr, unreachable, landingpad, resume and the funclet pads)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .instructions import Instruction
from .types import FunctionType, Type, void
from .values import Value

if TYPE_CHECKING:
    from .constants import ConstantInt
    from .function import BasicBlock, Function


class CallBase(Instruction):
    """Common part of call, invoke and callbr. Operand layout: ``args``, bundle operands,
    extra destinations (invoke/callbr), callee last."""

    __slots__ = (
        "_bundle_tags",
        "_nargs",
        "_ndests",
        "arg_attrs",
        "calling_conv",
        "fn_attrs",
        "function_type",
        "return_attrs",
    )

    def __init__(self, opcode: str, function_type: FunctionType, callee: Value,
                 args: Sequence[Value], dests: Sequence[Value] = (), name: str | None = None,
                 *, bundles: Sequence[tuple[str, Sequence[Value]]] = (),
                 calling_conv: str = "", return_attrs: Sequence[str] = (),
                 arg_attrs: Sequence[Sequence[str]] | None = None,
                 fn_attrs: Sequence[str] = (), flags: Sequence[str] = ()) -> None:
        ops: list[Value] = list(args)
        tags: list[tuple[str, int]] = []
        for tag, vals in bundles:
            ops.extend(vals)
            tags.append((tag, len(vals)))
        ops.extend(dests)
        ops.append(callee)
        Instruction.__init__(self, opcode, function_type.return_type, ops, name, flags)
        self.function_type = function_type
        self._nargs = len(args)
        self._bundle_tags = tags
        self._ndests = len(dests)
        self.calling_conv = calling_conv
        self.return_attrs: list[str] = list(return_attrs)
        self.arg_attrs: list[list[str]] = (
            [list(a) for a in arg_attrs] if arg_attrs is not None else [[] for _ in args]
        )
        self.fn_attrs: list[str] = list(fn_attrs)

    @property
    def callee(self) -> Value:
        return self._operands[-1]

    @callee.setter
    def callee(self, value: Value) -> None:
        self.set_operand(len(self._operands) - 1, value)

    @property
    def called_function(self) -> Function | None:
        from .function import Function

        c = self._operands[-1]
        return c if isinstance(c, Function) else None

    @property
    def args(self) -> tuple[Value, ...]:
        return tuple(self._operands[: self._nargs])

    @property
    def num_args(self) -> int:
        return self._nargs

    def arg(self, index: int) -> Value:
        return self._operands[index]

    def set_arg(self, index: int, value: Value) -> None:
        self.set_operand(index, value)

    @property
    def bundles(self) -> list[tuple[str, list[Value]]]:
        out: list[tuple[str, list[Value]]] = []
        k = self._nargs
        for tag, n in self._bundle_tags:
            out.append((tag, list(self._operands[k : k + n])))
            k += n
        return out

    def _dest(self, index: int) -> BasicBlock:
        start = len(self._operands) - 1 - self._ndests
        return self._operands[start + index]  # type: ignore[return-value]

    @property
    def _dests(self) -> list[Value]:
        start = len(self._operands) - 1 - self._ndests
        return self._operands[start:-1]


class CallInst(CallBase):
    __slots__ = ("tail",)

    def __init__(self, function_type: FunctionType, callee: Value, args: Sequence[Value],
                 name: str | None = None, *, tail: str = "", **kw) -> None:  # type: ignore[no-untyped-def]
        CallBase.__init__(self, "call", function_type, callee, args, (), name, **kw)
        self.tail = tail  # '' / 'tail' / 'musttail' / 'notail'


class InvokeInst(CallBase):
    __slots__ = ()
    is_terminator = True

    def __init__(self, function_type: FunctionType, callee: Value, args: Sequence[Value],
                 normal_dest: BasicBlock, unwind_dest: BasicBlock, name: str | None = None,
                 **kw) -> None:  # type: ignore[no-untyped-def]
        CallBase.__init__(self, "invoke", function_type, callee, args,
                          (normal_dest, unwind_dest), name, **kw)

    normal_dest = property(lambda self: self._dest(0))
    unwind_dest = property(lambda self: self._dest(1))


class CallBrInst(CallBase):
    __slots__ = ()
    is_terminator = True

    def __init__(self, function_type: FunctionType, callee: Value, args: Sequence[Value],
                 default_dest: BasicBlock, indirect_dests: Sequence[BasicBlock],
                 name: str | None = None, **kw) -> None:  # type: ignore[no-untyped-def]
        CallBase.__init__(self, "callbr", function_type, callee, args,
                          (default_dest, *indirect_dests), name, **kw)

    default_dest = property(lambda self: self._dest(0))

    @property
    def indirect_dests(self) -> list[BasicBlock]:
        return self._dests[1:]  # type: ignore[return-value]


class ReturnInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, value: Value | None = None) -> None:
        Instruction.__init__(self, "ret", void, (value,) if value is not None else ())

    @property
    def value(self) -> Value | None:
        return self._operands[0] if self._operands else None


class BranchInst(Instruction):
    """``br label %t`` (operands ``[t]``) or ``br i1 %c, label %t, label %f``."""

    __slots__ = ()
    is_terminator = True

    def __init__(self, true_dest: BasicBlock, condition: Value | None = None,
                 false_dest: BasicBlock | None = None) -> None:
        ops = (true_dest,) if condition is None else (condition, true_dest, false_dest)
        Instruction.__init__(self, "br", void, ops)  # type: ignore[arg-type]

    @property
    def is_conditional(self) -> bool:
        return len(self._operands) == 3

    @property
    def condition(self) -> Value | None:
        return self._operands[0] if len(self._operands) == 3 else None

    @property
    def true_dest(self) -> BasicBlock:
        return self._operands[1 if len(self._operands) == 3 else 0]  # type: ignore[return-value]

    @property
    def false_dest(self) -> BasicBlock | None:
        return self._operands[2] if len(self._operands) == 3 else None  # type: ignore[return-value]


class SwitchInst(Instruction):
    """Operands ``[condition, default, c0, b0, c1, b1, ...]``."""

    __slots__ = ()
    is_terminator = True

    def __init__(self, condition: Value, default_dest: BasicBlock,
                 cases: Sequence[tuple[ConstantInt, BasicBlock]] = ()) -> None:
        ops: list[Value] = [condition, default_dest]
        for c, b in cases:
            ops += (c, b)
        Instruction.__init__(self, "switch", void, ops)

    condition = property(lambda self: self._operands[0])
    default_dest = property(lambda self: self._operands[1])

    @property
    def cases(self) -> list[tuple[ConstantInt, BasicBlock]]:
        ops = self._operands
        return [(ops[k], ops[k + 1]) for k in range(2, len(ops), 2)]  # type: ignore[misc]

    def add_case(self, value: ConstantInt, dest: BasicBlock) -> None:
        self.append_operand(value)
        self.append_operand(dest)


class IndirectBrInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, address: Value, destinations: Sequence[BasicBlock]) -> None:
        Instruction.__init__(self, "indirectbr", void, (address, *destinations))

    address = property(lambda self: self._operands[0])

    @property
    def destinations(self) -> list[BasicBlock]:
        return self._operands[1:]  # type: ignore[return-value]


class UnreachableInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self) -> None:
        Instruction.__init__(self, "unreachable", void)


class LandingPadInst(Instruction):
    __slots__ = ("clause_kinds", "cleanup")

    def __init__(self, type: Type, cleanup: bool = False,
                 clauses: Sequence[tuple[str, Value]] = (), name: str | None = None) -> None:
        Instruction.__init__(self, "landingpad", type, [v for _, v in clauses], name)
        self.cleanup = cleanup
        self.clause_kinds = [k for k, _ in clauses]

    @property
    def clauses(self) -> list[tuple[str, Value]]:
        return list(zip(self.clause_kinds, self._operands, strict=True))

    def add_clause(self, kind: str, value: Value) -> None:
        self.clause_kinds.append(kind)
        self.append_operand(value)


class ResumeInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, value: Value) -> None:
        Instruction.__init__(self, "resume", void, (value,))

    value = property(lambda self: self._operands[0])


class FuncletPadInst(Instruction):
    """``cleanuppad within %parent [args]`` / ``catchpad within %cs [args]``;
    operands ``[parent_pad, *args]``."""

    __slots__ = ()

    def __init__(self, opcode: str, parent_pad: Value, args: Sequence[Value],
                 name: str | None = None) -> None:
        from .types import token

        Instruction.__init__(self, opcode, token, (parent_pad, *args), name)

    parent_pad = property(lambda self: self._operands[0])

    @property
    def args(self) -> tuple[Value, ...]:
        return tuple(self._operands[1:])


class CleanupPadInst(FuncletPadInst):
    __slots__ = ()

    def __init__(self, parent_pad: Value, args: Sequence[Value] = (),
                 name: str | None = None) -> None:
        FuncletPadInst.__init__(self, "cleanuppad", parent_pad, args, name)


class CatchPadInst(FuncletPadInst):
    __slots__ = ()

    def __init__(self, catch_switch: Value, args: Sequence[Value] = (),
                 name: str | None = None) -> None:
        FuncletPadInst.__init__(self, "catchpad", catch_switch, args, name)

    catch_switch = property(lambda self: self._operands[0])


class CatchSwitchInst(Instruction):
    """Operands ``[parent_pad, *handlers]`` plus ``unwind_dest`` last when present."""

    __slots__ = ("has_unwind_dest",)
    is_terminator = True

    def __init__(self, parent_pad: Value, handlers: Sequence[BasicBlock],
                 unwind_dest: BasicBlock | None = None, name: str | None = None) -> None:
        from .types import token

        ops: list[Value] = [parent_pad, *handlers]
        if unwind_dest is not None:
            ops.append(unwind_dest)
        Instruction.__init__(self, "catchswitch", token, ops, name)
        self.has_unwind_dest = unwind_dest is not None

    parent_pad = property(lambda self: self._operands[0])

    @property
    def handlers(self) -> list[BasicBlock]:
        end = -1 if self.has_unwind_dest else len(self._operands)
        return self._operands[1:end]  # type: ignore[return-value]

    @property
    def unwind_dest(self) -> BasicBlock | None:
        return self._operands[-1] if self.has_unwind_dest else None  # type: ignore[return-value]


class CatchReturnInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, catch_pad: Value, dest: BasicBlock) -> None:
        Instruction.__init__(self, "catchret", void, (catch_pad, dest))

    catch_pad = property(lambda self: self._operands[0])
    dest = property(lambda self: self._operands[1])


class CleanupReturnInst(Instruction):
    __slots__ = ()
    is_terminator = True

    def __init__(self, cleanup_pad: Value, unwind_dest: BasicBlock | None = None) -> None:
        ops = (cleanup_pad,) if unwind_dest is None else (cleanup_pad, unwind_dest)
        Instruction.__init__(self, "cleanupret", void, ops)

    cleanup_pad = property(lambda self: self._operands[0])

    @property
    def unwind_dest(self) -> BasicBlock | None:
        return self._operands[1] if len(self._operands) > 1 else None  # type: ignore[return-value]


__all__ = [
    "BranchInst",
    "CallBase",
    "CallBrInst",
    "CallInst",
    "CatchPadInst",
    "CatchReturnInst",
    "CatchSwitchInst",
    "CleanupPadInst",
    "CleanupReturnInst",
    "FuncletPadInst",
    "IndirectBrInst",
    "InvokeInst",
    "LandingPadInst",
    "ResumeInst",
    "ReturnInst",
    "SwitchInst",
    "UnreachableInst",
]
