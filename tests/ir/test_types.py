from __future__ import annotations

import pytest

from irgrad import ir
from irgrad.errors import IRParseError


@pytest.mark.parametrize(
    "text",
    [
        "i1", "i8", "i32", "i64", "i128", "i7", "half", "bfloat", "float", "double",
        "x86_fp80", "fp128", "ppc_fp128", "ptr", "ptr addrspace(3)", "void", "label",
        "metadata", "token", "[3 x i32]", "[0 x double]", "<4 x float>",
        "<vscale x 2 x i64>", "<2 x ptr>", "{ i32, ptr }", "{}", "<{ i8, i32 }>",
        "{ [2 x { double, i1 }], <8 x i16> }", "i32 (ptr, ...)", "void ()",
        "double (double, double)", 'target("spirv.Image", i32, 1, 0)',
    ],
)
def test_parse_print_type(text: str) -> None:
    t = ir.parse_type(text)
    assert str(t) == text
    assert ir.parse_type(str(t)) == t
    assert hash(ir.parse_type(str(t))) == hash(t)


def test_type_fields_and_predicates() -> None:
    assert ir.IntType(32) == ir.i32 and ir.i32.width == 32
    assert ir.double.bits == 64 and ir.half.bits == 16 and ir.x86_fp80.bits == 80
    assert ir.ptr.is_pointer and not ir.ptr.is_integer
    v = ir.VectorType(4, ir.double)
    assert v.is_vector and v.is_fp_or_fp_vector and v.scalar_type == ir.double
    assert ir.VectorType(4, ir.i32).is_fp_or_fp_vector is False
    assert ir.ArrayType(3, ir.i8).is_aggregate and ir.StructType([ir.i8]).is_aggregate
    assert ir.FunctionType(ir.void, [ir.ptr], var_arg=True).var_arg
    assert ir.PointerType(1) != ir.ptr and str(ir.PointerType(1)) == "ptr addrspace(1)"
    assert ir.StructType([ir.i8], packed=True) != ir.StructType([ir.i8])


def test_identified_struct_by_name() -> None:
    a = ir.IdentifiedStructType("struct.S")
    assert a.opaque and a.definition() == "opaque"
    a.set_body([ir.i32, ir.double])
    b = ir.IdentifiedStructType("struct.S", [ir.i64])
    assert a == b and hash(a) == hash(b)
    assert str(a) == "%struct.S" and a.definition() == "{ i32, double }"
    assert str(ir.IdentifiedStructType("odd name")) == '%"odd name"'


@pytest.mark.parametrize(
    ("text", "message"),
    [("i32*", r"ptr\* is invalid"), ("[3 x ]", "expected type"), ("{ i32", "expected '}'"),
     ("<4 x float", "expected '>'"), ("frob", "expected type")],
)
def test_bad_types(text: str, message: str) -> None:
    with pytest.raises(IRParseError, match=message):
        ir.parse_type(text)
