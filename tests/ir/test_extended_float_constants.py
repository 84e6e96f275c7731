"""x86_fp80, fp128 and ppc_fp128 constants carry their numeric value (rules fold on it)."""

from __future__ import annotations

import math

import pytest

from irgrad import ir


@pytest.mark.parametrize(
    ("ty", "text", "value"),
    [
        ("x86_fp80", "0xK4000A000000000000000", 2.5),
        ("x86_fp80", "0xK3FFF8000000000000000", 1.0),
        ("x86_fp80", "0xKBFFFC000000000000000", -1.5),
        ("x86_fp80", "0xK7FFF8000000000000000", math.inf),
        ("fp128", "0xL00000000000000004000400000000000", 2.5),
        ("fp128", "0xL0000000000000000BFFF000000000000", -1.0),
        ("ppc_fp128", "0xM3FF00000000000000000000000000000", 1.0),
    ],
)
def test_extended_constant_value(ty: str, text: str, value: float) -> None:
    m = ir.parse_module(f"define {ty} @f() {{\n  ret {ty} {text}\n}}\n", lazy=False)
    ret = m.get_function("f").blocks[0].instructions[-1]
    c = ret.operands[0]
    assert isinstance(c, ir.ConstantFP)
    assert c.value == value
    assert text in ir.print_module(m)


@pytest.mark.parametrize("ty", ["x86_fp80", "fp128", "ppc_fp128"])
@pytest.mark.parametrize("value", [2.5, -1.0, 0.0, 1e-300, math.pi, 1e300, math.inf])
def test_extended_constant_made_in_python_prints_and_reads_back(ty: str, value: float) -> None:
    import llvmlite.binding as llvm

    m = ir.parse_module(_ret_module(ty), lazy=False)
    ret = m.get_function("f").blocks[0].instructions[-1]
    ret.set_operand(0, ir.ConstantFP(ret.operands[0].type, value))
    text = ir.print_module(m)
    back = ir.parse_module(text, lazy=False).get_function("f").blocks[0].instructions[-1]
    assert back.operands[0].value == value
    llvm.parse_assembly(text).verify()


def _ret_module(ty: str) -> str:
    zero = {
        "x86_fp80": "0xK00000000000000000000",
        "fp128": "0xL00000000000000000000000000000000",
        "ppc_fp128": "0xM00000000000000000000000000000000",
    }
    return f"define {ty} @f() {{\n  ret {ty} {zero[ty]}\n}}\n"
