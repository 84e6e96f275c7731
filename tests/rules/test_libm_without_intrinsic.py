"""The C library functions that have no LLVM intrinsic (``fdim``, ``remainder``, ``remquo``,
``logb``, ``nextafter``, the Bessel functions, ``lgamma_r``) and glibc's ``sincos``.

Their partials are checked numerically with every other rule (test_rule_coverage.py);
here: every C spelling is registered, the rules that call the C library back (the
Bessel functions) call the function of the operand's type, and ``sincos`` becomes a sine
and a cosine before AD. The derivatives themselves run in
tests/ad_programs/libm_special_functions2.c (both modes, -O0..-O3, three precisions).
"""

from __future__ import annotations

import pytest

from irgrad import ir
from irgrad.ad.rules import intrinsic_has_derivative, lookup_call
from irgrad.ad.rules.emit import emit_partials
from irgrad.ir.builder import IRBuilder
from irgrad.llvm.sincos_libcalls import lower_sincos_libcalls

SPELLINGS = [
    *(f"{base}{suffix}" for base in ("fdim", "remainder", "remquo", "logb", "ilogb",
                                     "nextafter", "nexttoward", "j0", "j1", "jn", "y0",
                                     "y1", "yn")
      for suffix in ("", "f", "l")),
    "lgamma_r", "lgammaf_r", "lgammal_r",
]


@pytest.mark.parametrize("name", SPELLINGS)
def test_every_spelling_has_a_rule(name: str) -> None:
    assert lookup_call(name) is not None


def test_pointer_and_integer_operands_are_never_active() -> None:
    assert lookup_call("lgammaf_r").active_operands == (0,)  # type: ignore[union-attr]
    assert lookup_call("remquol").active_operands == (0, 1)  # type: ignore[union-attr]
    assert lookup_call("jn").active_operands == (1,)  # type: ignore[union-attr]
    assert lookup_call("ilogb").result_kind == "int"  # type: ignore[union-attr]
    assert lookup_call("logbf").is_zero_derivative  # type: ignore[union-attr]


@pytest.mark.parametrize(("ty", "suffix"), [(ir.double, ""), (ir.float_, "f"),
                                            (ir.x86_fp80, "l")])
def test_bessel_partials_call_the_library_of_their_type(ty: ir.Type, suffix: str) -> None:
    m = ir.Module("t")
    fn = ir.Function("f", ir.FunctionType(ty, [ir.i32, ty]), arg_names=["n", "x"])
    m.add_function(fn)
    b = IRBuilder(fn.append_basic_block("entry"))
    n, x = fn.args
    rule = lookup_call("jn" + suffix)
    assert rule is not None
    primal = b.call(m.get_or_insert_function("jn" + suffix, ir.FunctionType(ty, [ir.i32, ty])),
                    [n, x])
    partials = emit_partials(b, rule, [n, x], primal)
    assert partials[0] is None
    d = partials[1]
    assert d is not None
    b.ret(d)
    ir.verify_module(m)
    text = ir.print_module(m)
    # jn(n - 1, x) and jn(n + 1, x): the order converted back to an int
    assert text.count(f"call {ty} @jn{suffix}(i32 ") == 3
    one = lookup_call("j1" + suffix)
    assert one is not None and "j0" in str(one) and "jn" in str(one)


ENZYME = "declare void @__enzyme_autodiff(ptr, ...)\n"
SINCOS = """
declare void @sincos(double, ptr, ptr)
declare void @sincosf(float, ptr, ptr)
declare void @sincosl(x86_fp80, ptr, ptr)
declare { <2 x double>, <2 x double> } @llvm.sincos.v2f64(<2 x double>)

define double @f(double %x, float %y, x86_fp80 %z, <2 x double> %v, ptr %s, ptr %c) {
  call void @sincos(double %x, ptr %s, ptr %c)
  call void @sincosf(float %y, ptr %s, ptr %c)
  call void @sincosl(x86_fp80 %z, ptr %s, ptr %c)
  %p = call { <2 x double>, <2 x double> } @llvm.sincos.v2f64(<2 x double> %v)
  %e = extractvalue { <2 x double>, <2 x double> } %p, 1
  %r = extractelement <2 x double> %e, i64 0
  ret double %r
}
"""


def _lower(text: str) -> tuple[int, str]:
    m = ir.parse_module(text, "t.ll")
    n = lower_sincos_libcalls(m)
    ir.verify_module(m)
    return n, ir.print_module(m)


def test_sincos_becomes_sin_and_cos_stores() -> None:
    n, text = _lower(ENZYME + SINCOS)
    assert n == 4
    body = text.split("define double @f(")[1].split("\n}\n")[0]
    assert "@sincos" not in body and "@llvm.sincos" not in body
    for ty, sfx, var in (("double", "f64", "%x"), ("float", "f32", "%y"),
                         ("x86_fp80", "f80", "%z")):
        assert f"call {ty} @llvm.sin.{sfx}({ty} {var})" in body
        assert f"call {ty} @llvm.cos.{sfx}({ty} {var})" in body
    assert body.count("store ") == 6
    assert "call <2 x double> @llvm.cos.v2f64(<2 x double> %v)" in body
    assert "insertvalue" in body


def test_a_module_without_derivatives_keeps_sincos() -> None:
    n, text = _lower(SINCOS)
    assert n == 0 and "call void @sincos(" in text


def test_llvm_sincos_counts_as_known_to_the_engine() -> None:
    assert intrinsic_has_derivative("llvm.sincos.f64")
    assert intrinsic_has_derivative("llvm.sincos.v4f32")
