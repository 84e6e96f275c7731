"""The registry API: lookups by opcode, intrinsic base name and C name; required coverage."""

from __future__ import annotations

import pytest

from irgrad.ad.rules import (
    all_rules,
    intrinsic_base_name,
    lookup_call,
    lookup_instruction,
    lookup_intrinsic,
)
from irgrad.ad.rules.expr import DRET, RESULT, X, Y
from irgrad.ad.rules.rule import REGISTRY, def_call, def_intrinsic

INSTRUCTIONS = "fadd fsub fmul fdiv frem fneg fpext fptrunc sitofp uitofp fptosi fptoui"
INTRINSICS = (
    "sqrt sin cos tan exp exp2 exp10 log log2 log10 pow powi fabs copysign fma fmuladd "
    "minnum maxnum minimum maximum minimumnum maximumnum floor ceil trunc round roundeven "
    "rint nearbyint lround llround lrint llrint asin acos atan atan2 sinh cosh tanh ldexp frexp"
)
LIBM = (
    "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 log "
    "log1p log2 log10 pow sqrt cbrt hypot fabs fmax fmin fmod erf erfc tgamma lgamma frexp "
    "ldexp floor ceil trunc round rint nearbyint lround llround lrint llrint copysign fma"
)


@pytest.mark.parametrize("opcode", INSTRUCTIONS.split())
def test_instruction_rules_exist(opcode: str) -> None:
    rule = lookup_instruction(opcode)
    assert rule is not None and opcode in rule.names and rule.kind == "instruction"


@pytest.mark.parametrize("base", INTRINSICS.split())
def test_intrinsic_rules_exist_for_every_overload(base: str) -> None:
    for suffix in (".f64", ".f32", ".v4f64", ".nxv2f32", ".f64.i32", ".i64.f64", ".f80"):
        rule = lookup_intrinsic(f"llvm.{base}{suffix}")
        assert rule is not None, f"llvm.{base}{suffix}"
        assert f"llvm.{base}" in rule.names


@pytest.mark.parametrize("base", LIBM.split())
def test_libm_rules_exist_with_float_and_long_double_variants(base: str) -> None:
    rules = [lookup_call(n) for n in (base, base + "f", base + "l")]
    assert rules[0] is not None
    assert rules[0] is rules[1] is rules[2]


def test_unknown_names() -> None:
    assert lookup_call("my_function") is None
    assert lookup_intrinsic("llvm.memcpy.p0.p0.i64") is None
    assert lookup_instruction("add") is None
    assert lookup_call("llvm.sin.f64") is None  # intrinsics are not calls


def test_intrinsic_base_name() -> None:
    assert intrinsic_base_name("llvm.sin.f64") == "llvm.sin"
    assert intrinsic_base_name("llvm.sin.v4f64") == "llvm.sin"
    assert intrinsic_base_name("llvm.powi.f64.i32") == "llvm.powi"
    assert intrinsic_base_name("llvm.lround.i64.f64") == "llvm.lround"
    assert intrinsic_base_name("llvm.fmuladd.nxv4f32") == "llvm.fmuladd"
    assert intrinsic_base_name("llvm.maximumnum.bf16") == "llvm.maximumnum"
    assert intrinsic_base_name("llvm.exp2") == "llvm.exp2"  # not a type suffix
    assert intrinsic_base_name("llvm.log10.f128") == "llvm.log10"


def test_specific_partials() -> None:
    atan = lookup_call("atanf")
    assert atan is not None
    assert str(atan.partials[0]) == "1 / (1 + X * X)"
    assert str(atan.adjoint(0)) == "DRET * (1 / (1 + X * X))"
    exp_rule = lookup_intrinsic("llvm.exp.f32")
    assert exp_rule is not None and exp_rule.partials == (RESULT,) and exp_rule.uses_result
    fmul = lookup_instruction("fmul")
    assert fmul is not None and fmul.partials == (Y, X) and not fmul.uses_result
    assert str(fmul.tangent()) == "Y * DX + X * DY"


def test_inactive_operands_and_result_kinds() -> None:
    powi = lookup_intrinsic("llvm.powi.f64.i32")
    ldexp = lookup_call("ldexp")
    frexp = lookup_call("frexpf")
    frexp_intr = lookup_intrinsic("llvm.frexp.f64.i32")
    lround = lookup_call("lround")
    assert powi is not None and powi.active_operands == (0,)
    assert ldexp is not None and ldexp.active_operands == (0,)
    assert frexp is not None and frexp.operand_kinds == ("float", "ptr")
    assert frexp_intr is not None
    assert frexp_intr.result_kind == "struct" and frexp_intr.result_index == 0
    assert lround is not None and lround.result_kind == "int" and lround.is_zero_derivative
    floor = lookup_intrinsic("llvm.floor.f64")
    assert floor is not None and floor.is_zero_derivative
    sin = lookup_call("sin")
    assert sin is not None and not sin.is_zero_derivative


def test_helpers_are_declared() -> None:
    lgamma = lookup_call("lgamma")
    tgamma = lookup_call("tgammaf")
    assert lgamma is not None and lgamma.helpers == ("__irgrad_digamma",)
    assert tgamma is not None and tgamma.helpers == ("__irgrad_digamma",)


def test_registration_errors() -> None:
    before = len(all_rules())
    with pytest.raises(ValueError, match="registered twice"):
        def_call(["sin"], partials=[X], domain=[(0, 1)], primal=lambda x: x)
    with pytest.raises(ValueError, match="base name"):
        def_intrinsic(["llvm.foo.f64"], partials=[X], domain=[(0, 1)], primal=lambda x: x)
    with pytest.raises(ValueError, match="nonzero partial"):
        def_call(
            ["__t1"], partials=[X, X], domain=[(0, 1), (0, 1)], primal=lambda x, n: x,
            operand_kinds=["float", "int"],
        )
    with pytest.raises(ValueError, match="differ in length"):
        def_call(["__t2"], partials=[X], domain=[], primal=lambda x: x)
    with pytest.raises(ValueError, match="uses"):
        def_call(["__t3"], partials=[X * DRET], domain=[(0, 1)], primal=lambda x: x)
    assert len(all_rules()) == before
    assert REGISTRY.get("call", "__t1") is None

