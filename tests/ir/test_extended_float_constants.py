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
