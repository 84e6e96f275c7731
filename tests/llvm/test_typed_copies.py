"""irgrad.llvm.typed_copies: small copies of floating-point objects keep their type through
the pre-AD pipeline (instcombine would make them integer loads and stores)."""

from __future__ import annotations

import re

import pytest

from irgrad import ir
from irgrad.frontends import compile_to_ir
from irgrad.llvm.canonicalize import canonicalize
from irgrad.llvm.load import parse_llvm
from irgrad.llvm.typed_copies import type_small_copies
from irgrad.pipeline import typed_small_copies

HEADER = """
%struct.arr1 = type { [1 x double] }
%struct.stage = type { double, %struct.arr1 }
%struct.cplx = type { float, float }
%struct.mixed = type { float, i32 }
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"""


def _rewritten(body: str) -> tuple[int, str]:
    m = ir.parse_module(HEADER + body, "t.ll")
    n = type_small_copies(m)
    return n, ir.print_module(m)


def test_copy_into_a_field_of_one_double_becomes_a_double_copy() -> None:
    n, text = _rewritten("""
define void @f(ptr %s, ptr %src) {
  %a = getelementptr inbounds %struct.stage, ptr %s, i32 0, i32 1
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %a, ptr align 4 %src, i64 8, i1 false), !dbg !1
  ret void
}
!1 = !{}
""")
    assert n == 1
    assert re.search(r"load double, ptr %src, align 4", text)
    assert re.search(r"store double %\S+, ptr %a, align 8, !dbg !1", text)
    assert "llvm.memcpy.p0.p0.i64(" not in text.split("define void @f")[1]


@pytest.mark.parametrize(("alloc", "size", "want"), [
    ("%struct.arr1", 8, "double"),
    ("%struct.cplx", 8, "<2 x float>"),
    ("[2 x float]", 8, "<2 x float>"),
    ("float", 4, "float"),
])
def test_locals_of_floats_of_one_kind(alloc: str, size: int, want: str) -> None:
    n, text = _rewritten(f"""
define void @f(ptr %dst) {{
  %t = alloca {alloc}, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %t, i64 {size}, i1 false)
  ret void
}}
""")
    assert n == 1 and f"load {want}, ptr %t, align 1" in text


@pytest.mark.parametrize(("dst", "src", "size", "volatile"), [
    ("i64", "%struct.arr1", 8, "false"),     # a uint64_t punned into a double
    ("%struct.mixed", "%struct.mixed", 8, "false"),  # a float and an int
    ("[2 x double]", "[2 x double]", 16, "false"),   # not a size instcombine splits
    ("double", "double", 4, "false"),        # part of an object
    ("double", "double", 8, "true"),         # volatile
])
def test_other_copies_stay(dst: str, src: str, size: int, volatile: str) -> None:
    n, _ = _rewritten(f"""
define void @f() {{
  %d = alloca {dst}, align 8
  %s = alloca {src}, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 {size}, i1 {volatile})
  ret void
}}
""")
    assert n == 0


def test_copy_between_untyped_pointers_stays() -> None:
    n, _ = _rewritten("""
define void @f(ptr %d, ptr %s) {
  %b = getelementptr inbounds i8, ptr %d, i64 8
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %s, i64 8, i1 false)
  ret void
}
""")
    assert n == 0


# Boost.Odeint's shape: a one-element coefficient array built by a constructor and copied
# into a stage table by a function that stays out of line
CXX = """
template <class T, int N> struct array { T elems[N]; };
struct coefficients : array<double, 1> { coefficients() { elems[0] = 1.0 / 5.0; } };
struct stage { double c; array<double, 1> a; };
__attribute__((noinline)) void insert(stage* s, const array<double, 1>& a) { s->a = a; }
void build(stage* s) { coefficients k; insert(s, k); }
"""


@pytest.mark.parametrize("opt_level", [0, 2])
def test_the_float_type_survives_the_pre_ad_pipeline(tmp_path, opt_level: int) -> None:
    src = tmp_path / "stages.cpp"
    src.write_text(CXX)
    module = parse_llvm(compile_to_ir([src], opt_level=opt_level), "stages.ll")
    before = str(canonicalize(parse_llvm(str(module), "stages.ll")))
    after = str(canonicalize(typed_small_copies(module, "stages.ll")))

    def insert(text: str) -> str:
        return text.split("@_Z6insertP5stageRK5arrayIdLi1EE(")[1].split("\n}\n")[0]

    # without the step, the copy is an i64 one (and at -O0 the coefficient an i64 constant)
    assert "load i64" in insert(before)
    assert "load double" in insert(after) and "load i64" not in insert(after)
    assert "4596373779694328218" not in after
