"""Control flow of :class:`~irgrad.ir.builder.IRBuilder`: phis, calls and invokes (with the
declaration of their callees and intrinsics), branches, returns and exception handling.
"""

from __future__ import annotations

from collections.abc import Sequence

from irgrad.errors import UsageError

from .builder_base import IRBuilderBase, Operand, constant_of
from .constants import ConstantInt
from .control import (
    BranchInst,
    CallInst,
    InvokeInst,
    LandingPadInst,
    ResumeInst,
    ReturnInst,
    SwitchInst,
    UnreachableInst,
)
from .function import BasicBlock, Function
from .instructions import Instruction, PHINode
from .types import FunctionType, Type, i1
from .values import Value


class ControlFlowBuilder(IRBuilderBase):
    """Emitters of phis, calls, invokes and terminators."""

    # -- phi -----------------------------------------------------------------------------
    def phi(self, type: Type, incoming: Sequence[tuple[Value, BasicBlock]] = (),
            name: str | None = None, flags: Sequence[str] = ()) -> PHINode:
        inst = PHINode(type, incoming, None, flags)
        self.insert(inst, name)
        return inst

    # -- calls ---------------------------------------------------------------------------
    def call(self, callee: Value, args: Sequence[Operand] = (),
             function_type: FunctionType | None = None, name: str | None = None, *,
             tail: str = "", calling_conv: str | None = None, flags: Sequence[str] = (),
             return_attrs: Sequence[str] = (), arg_attrs: Sequence[Sequence[str]] | None = None,
             fn_attrs: Sequence[str] = (),
             bundles: Sequence[tuple[str, Sequence[Value]]] = ()) -> CallInst:
        """Call a Function (its type is used) or any pointer value (give ``function_type``)."""
        ft = self._callee_type(callee, function_type)
        values = self._call_args(ft, args)
        cc = calling_conv if calling_conv is not None else getattr(callee, "calling_conv", "")
        if not isinstance(callee, Function):
            cc = calling_conv or ""
        inst = CallInst(ft, callee, values, None, tail=tail, calling_conv=cc, flags=flags,
                        return_attrs=return_attrs, arg_attrs=arg_attrs, fn_attrs=fn_attrs,
                        bundles=bundles)
        self.insert(inst, name)
        return inst

    def invoke(self, callee: Value, args: Sequence[Operand], normal_dest: BasicBlock,
               unwind_dest: BasicBlock, function_type: FunctionType | None = None,
               name: str | None = None, **kw: object) -> InvokeInst:
        ft = self._callee_type(callee, function_type)
        inst = InvokeInst(ft, callee, self._call_args(ft, args), normal_dest, unwind_dest,
                          None, **kw)
        self.insert(inst, name)
        return inst

    @staticmethod
    def _callee_type(callee: Value, function_type: FunctionType | None) -> FunctionType:
        if function_type is not None:
            return function_type
        if isinstance(callee, Function):
            return callee.function_type
        raise UsageError("call through a pointer needs function_type=")

    def _call_args(self, ft: FunctionType, args: Sequence[Operand]) -> list[Value]:
        if len(args) < len(ft.params) or (len(args) > len(ft.params) and not ft.var_arg):
            raise UsageError(
                f"call: function type {ft} takes {len(ft.params)} argument(s), "
                f"{len(args)} given")
        out: list[Value] = []
        for k, a in enumerate(args):
            if isinstance(a, Value):
                out.append(a)
            elif k < len(ft.params):
                out.append(constant_of(ft.params[k], a))
            else:
                raise UsageError("call: Python numbers cannot be passed as varargs")
        return out

    def get_or_insert_function(self, name: str, function_type: FunctionType) -> Function:
        """The module's function ``name``, declared with ``function_type`` if missing."""
        module = self.module
        if module is None:
            raise UsageError("IRBuilder: no module (position the builder in a function)")
        fn = module.get_or_insert_function(name, function_type)
        if fn.function_type != function_type:
            raise UsageError(
                f"function '{name}' exists with type {fn.function_type}, not {function_type}")
        return fn

    def declare_intrinsic(self, name: str, function_type: FunctionType) -> Function:
        return self.get_or_insert_function(name, function_type)

    def call_intrinsic(self, name: str, return_type: Type, args: Sequence[Value],
                       name_result: str | None = None, flags: Sequence[str] = ()) -> CallInst:
        """Declare ``name`` with type ``return_type (arg types)`` if needed and call it."""
        ft = FunctionType(return_type, [a.type for a in args])
        return self.call(self.declare_intrinsic(name, ft), args, name=name_result, flags=flags)

    # -- terminators ---------------------------------------------------------------------
    def br(self, dest: BasicBlock) -> Instruction:
        return self.insert(BranchInst(dest))

    def cond_br(self, condition: Value, true_dest: BasicBlock,
                false_dest: BasicBlock) -> Instruction:
        if condition.type != i1:
            raise UsageError(f"cond_br: condition must be i1, got {condition.type}")
        return self.insert(BranchInst(true_dest, condition, false_dest))

    def switch(self, condition: Value, default_dest: BasicBlock,
               cases: Sequence[tuple[int | ConstantInt, BasicBlock]] = ()) -> SwitchInst:
        cs = [(c if isinstance(c, ConstantInt) else ConstantInt(condition.type, c), b)
              for c, b in cases]
        inst = SwitchInst(condition, default_dest, cs)  # type: ignore[arg-type]
        self.insert(inst)
        return inst

    def ret(self, value: Operand | None = None) -> Instruction:
        if value is not None and not isinstance(value, Value):
            fn = self.function
            if fn is None:
                raise UsageError("ret: a Python number needs the function's return type")
            value = constant_of(fn.return_type, value)
        return self.insert(ReturnInst(value))

    def ret_void(self) -> Instruction:
        return self.insert(ReturnInst())

    def unreachable(self) -> Instruction:
        return self.insert(UnreachableInst())

    def resume(self, value: Value) -> Instruction:
        return self.insert(ResumeInst(value))

    def landingpad(self, type: Type, cleanup: bool = False,
                   clauses: Sequence[tuple[str, Value]] = (),
                   name: str | None = None) -> Instruction:
        return self.insert(LandingPadInst(type, cleanup, clauses), name)


__all__ = ["ControlFlowBuilder"]
