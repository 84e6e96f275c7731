from __future__ import annotations

import math

import pytest
from ir_helpers import llvm_print

from irgrad import ir
from irgrad.ir.printer import Printer


def parse_global_init(ty: str, init: str) -> ir.Value:
    m = ir.parse_module(f"@g = global {ty} {init}\n@h = global i32 0\n")
    return m.globals[0].initializer


def printed(v: ir.Value) -> str:
    return Printer().ref(v)


@pytest.mark.parametrize(
    ("ty", "init", "cls"),
    [
        ("i32", "-7", ir.ConstantInt),
        ("i1", "true", ir.ConstantInt),
        ("double", "1.500000e+00", ir.ConstantFP),
        ("double", "0x7FF8000000000000", ir.ConstantFP),
        ("float", "0x3FB99999A0000000", ir.ConstantFP),
        ("half", "0xH3C00", ir.ConstantFP),
        ("bfloat", "0xR3F80", ir.ConstantFP),
        ("x86_fp80", "0xK3FFF8000000000000000", ir.ConstantFP),
        ("fp128", "0xL00000000000000003FFF000000000000", ir.ConstantFP),
        ("ppc_fp128", "0xM3FF00000000000000000000000000000", ir.ConstantFP),
        ("ptr", "null", ir.ConstantPointerNull),
        ("i32", "undef", ir.UndefValue),
        ("i32", "poison", ir.PoisonValue),
        ("[2 x i32]", "zeroinitializer", ir.ConstantAggregateZero),
        ("[2 x i32]", "[i32 1, i32 2]", ir.ConstantArray),
        ("{ i32, double }", "{ i32 1, double 2.000000e+00 }", ir.ConstantStruct),
        ("<{ i8, i8 }>", "<{ i8 1, i8 2 }>", ir.ConstantStruct),
        ("<2 x i64>", "<i64 1, i64 -1>", ir.ConstantVector),
        ("<4 x float>", "splat (float 1.000000e+00)", ir.ConstantVector),
        ("[3 x i8]", 'c"a\\00b"', ir.ConstantDataString),
        ("i64", "ptrtoint (ptr @h to i64)", ir.ConstantExpr),
        ("ptr", "getelementptr inbounds nuw (i8, ptr @h, i64 4)", ir.ConstantExpr),
        ("i64", "sub (i64 ptrtoint (ptr @h to i64), i64 8)", ir.ConstantExpr),
        ("ptr", "dso_local_equivalent @h", ir.DSOLocalEquivalent),
        ("ptr", "@h", ir.GlobalVariable),
    ],
)
def test_constant_roundtrip(ty: str, init: str, cls: type) -> None:
    c = parse_global_init(ty, init)
    assert isinstance(c, cls)
    assert printed(c) == init
    assert str(c.type) == ty


def test_constant_values() -> None:
    assert parse_global_init("i8", "255").signed_value == -1
    assert printed(parse_global_init("i8", "255")) == "-1"
    assert parse_global_init("i32", "u0xFF").value == 255
    assert parse_global_init("i8", "s0xFF").value == -1
    assert parse_global_init("half", "0xH3C00").value == 1.0
    assert parse_global_init("bfloat", "0xR3F80").value == 1.0
    assert math.isnan(parse_global_init("double", "0x7FF8000000000000").value)
    assert parse_global_init("double", "2.500000e-01").value == 0.25
    s = parse_global_init("[3 x i8]", 'c"a\\22\\00"')
    assert s.data == b'a"\x00'
    splat = parse_global_init("<4 x i32>", "splat (i32 3)")
    assert [e.value for e in splat.elements] == [3, 3, 3, 3]
    e = parse_global_init("ptr", "getelementptr inbounds (i8, ptr @h, i64 4)")
    assert e.opcode == "getelementptr" and e.flags == ["inbounds"] and e.source_type == ir.i8
    assert e.operands[0].name == "h"


def test_fp_formatting() -> None:
    assert ir.ConstantFP(ir.double, 1.0).spelling() == "1.000000e+00"
    assert ir.ConstantFP(ir.double, 0.1).spelling() == "1.000000e-01"
    assert ir.ConstantFP(ir.double, 1 / 3).spelling() == "0x3FD5555555555555"
    assert ir.ConstantFP(ir.float_, 0.1).spelling() == "0x3FB99999A0000000"
    assert ir.ConstantFP(ir.double, -0.0).spelling() == "-0.000000e+00"
    assert ir.ConstantFP(ir.double, math.inf).spelling() == "0x7FF0000000000000"
    assert ir.ConstantFP(ir.half, 1.0).spelling() == "0xH3C00"


def test_null_value() -> None:
    assert isinstance(ir.null_value(ir.i32), ir.ConstantInt)
    assert isinstance(ir.null_value(ir.double), ir.ConstantFP)
    assert isinstance(ir.null_value(ir.ptr), ir.ConstantPointerNull)
    assert isinstance(ir.null_value(ir.ArrayType(2, ir.i8)), ir.ConstantAggregateZero)
    assert all(ir.null_value(t).is_null_value() for t in (ir.i32, ir.double, ir.ptr))


@pytest.mark.parametrize("value", [0.1, 1 / 3, 1e300, 5e-324, 123456.5, -2.0, math.nan])
def test_fp_spelling_matches_llvm(value: float) -> None:
    text = f"@g = global double {ir.ConstantFP(ir.double, value).spelling()}\n"
    assert llvm_print(text).strip().endswith(text.strip())
