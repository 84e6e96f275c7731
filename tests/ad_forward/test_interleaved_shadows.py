"""Which shadows vector forward mode lays out interleaved (irgrad.ad.forward.interleaved_shadows).

Each case is a function with one allocation %m and one way of using it; the analysis
must admit exactly the uses the interleaved layout can express (scalar floating-point
loads/stores through GEPs over scalars or arrays, memset, free, lifetime markers,
comparisons, admissible callee parameters, copies between buffers decided together) and
reject the rest. The numbers of both
layouts are checked by the programs width4_interleaved_buffers.c and
width3_shadow_layout_fallback.c; the emitted IR by golden/ad/fwd_vector_interleaved_shadow.ll.
"""

from __future__ import annotations

import pytest

from irgrad import ir
from irgrad.ad.forward.interleaved_shadows import InterleavingAnalysis, interleaved_values, widened

HEADER = """
declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare void @free(ptr)
declare void @ext(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.lifetime.start.p0(ptr)

define internal void @reads(ptr %p) {
  %q = getelementptr inbounds double, ptr %p, i64 2
  %v = load double, ptr %q
  store double %v, ptr %p
  ret void
}

define internal void @leaks(ptr %p, ptr %out) {
  store ptr %p, ptr %out
  ret void
}

define internal void @floats(ptr %p) {
  store float 1.0, ptr %p
  ret void
}

define internal void @recurses(ptr %p, i64 %n) {
  %c = icmp eq i64 %n, 0
  br i1 %c, label %done, label %more
more:
  %q = getelementptr inbounds double, ptr %p, i64 1
  %m = sub i64 %n, 1
  call void @recurses(ptr %q, i64 %m)
  br label %done
done:
  store double 0.0, ptr %p
  ret void
}
"""

ADMITTED = {
    "load_store": "%g = getelementptr inbounds double, ptr %m, i64 %i\n"
                  "%v = load double, ptr %g\n store double %v, ptr %m",
    "byte_offsets": "%g = getelementptr inbounds i8, ptr %m, i64 16\n store double 1.0, ptr %g",
    "array_gep": "%g = getelementptr inbounds [4 x double], ptr %m, i64 %i, i64 3\n"
                 "store double 1.0, ptr %g",
    "memset_free": "call void @llvm.memset.p0.i64(ptr %m, i8 0, i64 64, i1 false)\n"
                   "store double 1.0, ptr %m\n call void @free(ptr %m)",
    "compare": "%c = icmp eq ptr %m, null\n store double 1.0, ptr %m",
    "callee": "call void @reads(ptr %m)",
}

REJECTED = {
    "pointer_stored": "store ptr %m, ptr %out\n store double 1.0, ptr %m",
    "memcpy": "call void @llvm.memcpy.p0.p0.i64(ptr %m, ptr %out, i64 8, i1 false)\n"
              "store double 1.0, ptr %m",
    "external_call": "call void @ext(ptr %m)\n store double 1.0, ptr %m",
    "integer_access": "store i64 1, ptr %m\n store double 1.0, ptr %m",
    "two_fp_types": "store float 1.0, ptr %m\n store double 1.0, ptr %m",
    "vector_access": "store <2 x double> zeroinitializer, ptr %m",
    "volatile": "store volatile double 1.0, ptr %m",
    "struct_gep": "%g = getelementptr inbounds {double, i32}, ptr %m, i64 0, i32 1\n"
                  "store double 1.0, ptr %m",
    "select": "%s = select i1 true, ptr %m, ptr %out\n store double 1.0, ptr %s",
    "callee_leaks_it": "call void @leaks(ptr %m, ptr %out)\n store double 1.0, ptr %m",
    "callee_other_type": "call void @floats(ptr %m)\n store double 1.0, ptr %m",
    "recursive_callee": "call void @recurses(ptr %m, i64 3)",  # conservatively
    "byval_argument": "call void @reads(ptr byval([8 x double]) %m)",
    "no_access": "call void @free(ptr %m)",  # nothing to gain
}


def _decide(body: str, alloc: str = "%m = call ptr @malloc(i64 64)") -> bool:
    text = HEADER + (
        "define void @f(ptr %out, i64 %i) {\n"
        f"  {alloc}\n  {body}\n  ret void\n}}\n"
    )
    module = ir.parse_module(text)
    fn = module.get_function("f")
    assert fn is not None
    root = fn.blocks[0].instructions[0]
    chosen = interleaved_values(InterleavingAnalysis(4), fn.blocks)
    return root in chosen


@pytest.mark.parametrize("case", sorted(ADMITTED))
def test_admitted(case: str) -> None:
    assert _decide(ADMITTED[case])


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_rejected(case: str) -> None:
    assert not _decide(REJECTED[case])


@pytest.mark.parametrize("alloc", [
    "%m = call ptr @calloc(i64 8, i64 8)",
    "%m = alloca [8 x double], align 16",
    "%m = alloca double, i64 %i, align 8",
])
def test_other_allocations(alloc: str) -> None:
    assert _decide("store double 1.0, ptr %m", alloc)
    assert not _decide("call void @ext(ptr %m)\n store double 1.0, ptr %m", alloc)


COPIES = """
define void @f(ptr %out, i1 %c) {
  %a = call ptr @malloc(i64 64)
  %b = alloca [8 x double]
  %e = call ptr @malloc(i64 64)
  store double 1.0, ptr %a
  %a1 = getelementptr inbounds double, ptr %a, i64 1
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %a1, i64 56, i1 false)
  %v = load double, ptr %b
  call void @llvm.memcpy.p0.p0.i64(ptr %e, ptr %b, i64 8, i1 false)
  $EXTRA
  ret void
}
"""


@pytest.mark.parametrize(
    ("extra", "admitted"),
    [
        ("", True),  # a -> b -> e: one group, all interleaved
        ("store ptr %e, ptr %out", False),  # e escapes: the whole group keeps N shadows
        ("store float 1.0, ptr %e", False),  # two element types in one group
        ("call void @llvm.memcpy.p0.p0.i64(ptr %e, ptr %out, i64 8, i1 false)", False),
    ],
)
def test_copies_decide_buffers_together(extra: str, admitted: bool) -> None:
    module = ir.parse_module(HEADER + COPIES.replace("$EXTRA", extra))
    fn = module.get_function("f")
    assert fn is not None
    chosen = {v.name for v in interleaved_values(InterleavingAnalysis(4), fn.blocks)}
    assert chosen == ({"a", "a1", "b", "e"} if admitted else set())


def test_copies_are_rejected_in_callees() -> None:
    """A parameter's memory is decided by the caller, before the callee's own buffers:
    a copy between them keeps the per-tangent layout."""
    module = ir.parse_module(HEADER + """
define internal void @copies(ptr %p) {
  %t = alloca double
  call void @llvm.memcpy.p0.p0.i64(ptr %t, ptr %p, i64 8, i1 false)
  ret void
}
define void @f() {
  %m = call ptr @malloc(i64 64)
  store double 1.0, ptr %m
  call void @copies(ptr %m)
  ret void
}
""")
    fn = module.get_function("f")
    assert fn is not None
    assert not interleaved_values(InterleavingAnalysis(4), fn.blocks)


def test_derived_pointers_are_interleaved_too() -> None:
    module = ir.parse_module(HEADER + """
define void @f(i64 %i) {
  %m = call ptr @malloc(i64 64)
  %a = getelementptr inbounds double, ptr %m, i64 %i
  %b = getelementptr inbounds i8, ptr %a, i64 8
  store double 1.0, ptr %b
  ret void
}
""")
    fn = module.get_function("f")
    assert fn is not None
    chosen = interleaved_values(InterleavingAnalysis(4), fn.blocks)
    assert {v.name for v in chosen} == {"m", "a", "b"}


def test_widened_types() -> None:
    assert str(widened(ir.double, 4)) == "[4 x double]"
    assert str(widened(ir.parse_type("[3 x [2 x i8]]"), 2)) == "[3 x [2 x [2 x i8]]]"
    assert widened(ir.parse_type("{double, double}"), 4) is None
    assert widened(ir.parse_type("<2 x double>"), 4) is None
