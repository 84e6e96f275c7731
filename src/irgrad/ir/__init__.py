"""irgrad's LLVM IR model: types, values with use lists, instructions, functions, modules,
plus the text parser and printer. See docs/internals/ir-api.md for the contract."""

from __future__ import annotations

from typing import Any

from .constants import (
    BlockAddress,
    Constant,
    ConstantAggregate,
    ConstantAggregateZero,
    ConstantArray,
    ConstantDataString,
    ConstantExpr,
    ConstantFP,
    ConstantInt,
    ConstantPointerNull,
    ConstantStruct,
    ConstantTargetNone,
    ConstantTokenNone,
    ConstantVector,
    DSOLocalEquivalent,
    InlineAsm,
    NoCFIValue,
    PoisonValue,
    UndefValue,
    const_fp,
    const_int,
    null_value,
)
from .control import (
    BranchInst,
    CallBase,
    CallBrInst,
    CallInst,
    CatchPadInst,
    CatchReturnInst,
    CatchSwitchInst,
    CleanupPadInst,
    CleanupReturnInst,
    FuncletPadInst,
    IndirectBrInst,
    InvokeInst,
    LandingPadInst,
    ResumeInst,
    ReturnInst,
    SwitchInst,
    UnreachableInst,
)
from .function import Argument, BasicBlock, DebugRecord, Function
from .globals import GlobalAlias, GlobalIFunc, GlobalValue, GlobalVariable
from .instructions import (
    AllocaInst,
    AtomicCmpXchgInst,
    AtomicRMWInst,
    BinaryOperator,
    CastInst,
    CmpInst,
    ExtractElementInst,
    ExtractValueInst,
    FCmpInst,
    FenceInst,
    FreezeInst,
    GetElementPtrInst,
    ICmpInst,
    InsertElementInst,
    InsertValueInst,
    Instruction,
    LoadInst,
    PHINode,
    SelectInst,
    ShuffleVectorInst,
    StoreInst,
    UnaryOperator,
    VAArgInst,
)
from .module import Module
from .printer import print_module as _print_module  # also installs str() of IR objects
from .types import (
    ArrayType,
    FloatType,
    FunctionType,
    IdentifiedStructType,
    IntType,
    LabelType,
    MetadataType,
    PointerType,
    StructType,
    TargetExtType,
    TokenType,
    Type,
    VectorType,
    VoidType,
    X86AMXType,
    bfloat,
    double,
    float_,
    fp128,
    half,
    i1,
    i8,
    i16,
    i32,
    i64,
    i128,
    label,
    metadata,
    ptr,
    token,
    void,
    x86_fp80,
)
from .values import MetadataAsValue, Use, User, Value


def parse_module(text: str, filename: str = "<input>", *, lazy: bool = True) -> Module:
    """Parse LLVM IR text into a :class:`Module` (function bodies lazily by default)."""
    from .parser import parse_module as _parse_module

    return _parse_module(text, filename, lazy=lazy)


def parse_type(text: str) -> Type:
    """Parse one type, e.g. ``"{ i32, [4 x double] }"``."""
    from .parser import parse_type as _parse_type

    return _parse_type(text)


def print_module(module: Module) -> str:
    """LLVM IR text of ``module`` (accepted by LLVM 22's parser)."""
    return _print_module(module)


_LATE = {
    "verify_module": ("verifier", "verify_module"),
    "IRBuilder": ("builder", "IRBuilder"),
    "clone_function": ("clone", "clone_function"),
}


def __getattr__(name: str) -> Any:
    # verifier, builder and clone are separate modules written against this model.
    if name in _LATE:
        import importlib

        mod_name, attr = _LATE[name]
        mod = importlib.import_module(f"{__name__}.{mod_name}")
        return getattr(mod, attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AllocaInst",
    "Argument",
    "ArrayType",
    "AtomicCmpXchgInst",
    "AtomicRMWInst",
    "BasicBlock",
    "BinaryOperator",
    "BlockAddress",
    "BranchInst",
    "CallBase",
    "CallBrInst",
    "CallInst",
    "CastInst",
    "CatchPadInst",
    "CatchReturnInst",
    "CatchSwitchInst",
    "CleanupPadInst",
    "CleanupReturnInst",
    "CmpInst",
    "Constant",
    "ConstantAggregate",
    "ConstantAggregateZero",
    "ConstantArray",
    "ConstantDataString",
    "ConstantExpr",
    "ConstantFP",
    "ConstantInt",
    "ConstantPointerNull",
    "ConstantStruct",
    "ConstantTargetNone",
    "ConstantTokenNone",
    "ConstantVector",
    "DSOLocalEquivalent",
    "DebugRecord",
    "ExtractElementInst",
    "ExtractValueInst",
    "FCmpInst",
    "FenceInst",
    "FloatType",
    "FreezeInst",
    "FuncletPadInst",
    "Function",
    "FunctionType",
    "GetElementPtrInst",
    "GlobalAlias",
    "GlobalIFunc",
    "GlobalValue",
    "GlobalVariable",
    "ICmpInst",
    "IdentifiedStructType",
    "IndirectBrInst",
    "InlineAsm",
    "InsertElementInst",
    "InsertValueInst",
    "Instruction",
    "IntType",
    "InvokeInst",
    "LabelType",
    "LandingPadInst",
    "LoadInst",
    "MetadataAsValue",
    "MetadataType",
    "Module",
    "NoCFIValue",
    "PHINode",
    "PointerType",
    "PoisonValue",
    "ResumeInst",
    "ReturnInst",
    "SelectInst",
    "ShuffleVectorInst",
    "StoreInst",
    "StructType",
    "SwitchInst",
    "TargetExtType",
    "TokenType",
    "Type",
    "UnaryOperator",
    "UndefValue",
    "UnreachableInst",
    "Use",
    "User",
    "VAArgInst",
    "Value",
    "VectorType",
    "VoidType",
    "X86AMXType",
    "bfloat",
    "const_fp",
    "const_int",
    "double",
    "float_",
    "fp128",
    "half",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "label",
    "metadata",
    "null_value",
    "parse_module",
    "parse_type",
    "print_module",
    "ptr",
    "token",
    "void",
    "x86_fp80",
]
