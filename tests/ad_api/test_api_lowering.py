"""Lowering of __enzyme_* calls on hand-written IR: markers (loads, references, metadata
strings), defaults, result adaptation, and that no marker reference survives."""

from __future__ import annotations

import pytest

from irgrad import ir
from irgrad.ad.api import lower_enzyme_calls, marker_name
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.errors import DifferentiationError

HEADER = """
@enzyme_dup = external global i32
@enzyme_const = external global i32
@enzyme_width = external global i32
@enzyme_primal_return = external global i32

define double @f(double %x, ptr %p, i32 %n) {
entry:
  %v = load double, ptr %p
  %m = fmul double %x, %v
  %c = sitofp i32 %n to double
  %r = fmul double %m, %c
  ret double %r
}
"""


def lower(body: str) -> str:
    module = ir.parse_module(HEADER + body)
    lower_enzyme_calls(module)
    text = ir.print_module(module)
    ir.parse_module(text)  # what we print parses again
    return text


def test_load_markers_are_removed() -> None:
    text = lower("""
declare double @__enzyme_fwddiff(ptr, ...)
define double @main_(ptr %p, ptr %dp) {
entry:
  %d = load i32, ptr @enzyme_dup
  %k = load i32, ptr @enzyme_const
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %d, double 2.0, double 1.0, ptr %p, ptr %dp, i32 %k, i32 3)
  ret double %t
}
""")
    assert "enzyme_" not in text.replace("fwddiffe_", "")
    assert "__enzyme" not in text
    assert "call double @fwddiffe_f(double 2.0, double 1.0, ptr %p, ptr %dp, i32 3)" in text


def test_reference_and_metadata_markers() -> None:
    text = lower("""
declare double @__enzyme_fwddiff_md(ptr, ...)
define double @main_(ptr %p, ptr %dp) {
entry:
  %t = call double (ptr, ...) @__enzyme_fwddiff_md(ptr @f, metadata !"enzyme_const", double 2.0, ptr @enzyme_dup, ptr %p, ptr %dp, i32 3)
  ret double %t
}
""")
    assert "@enzyme" not in text and "__enzyme" not in text
    assert "call double @fwddiffe_f(double 2.0, ptr %p, ptr %dp, i32 3)" in text


def test_width_and_primal_return_struct() -> None:
    text = lower("""
declare { double, [2 x double] } @__enzyme_fwddiff(ptr, ...)
define { double, [2 x double] } @main_(ptr %p, ptr %d0, ptr %d1) {
entry:
  %w = load i32, ptr @enzyme_width
  %pr = load i32, ptr @enzyme_primal_return
  %t = call { double, [2 x double] } (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %w, i32 2, i32 %pr, double 2.0, double 1.0, double 0.0, ptr %p, ptr %d0, ptr %d1, i32 3)
  ret { double, [2 x double] } %t
}
""")
    assert "define internal { double, [2 x double] } @fwddiffe2_f(double" in text
    assert "@enzyme" not in text


def test_marker_name() -> None:
    g = ir.GlobalVariable("enzyme_dup", ir.i32)
    assert marker_name(g) == "enzyme_dup"
    assert marker_name(ir.LoadInst(ir.i32, g)) == "enzyme_dup"
    assert marker_name(ir.MetadataAsValue('!"enzyme_out"')) == "enzyme_out"
    assert marker_name(ir.GlobalVariable("other", ir.i32)) is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("double 2.0, double 1.0", "too few arguments"),
        ("double 2.0, double 1.0, ptr %p", "missing shadow for argument 2 of f"),
        ("double 2.0, double 1.0, ptr %p, double 1.0, i32 3", "the shadow of argument 2"),
        ("double 2.0, double 1.0, ptr %p, ptr %p, i32 3, i32 4", "too many arguments"),
        ("i32 %k", "the marker enzyme_const is followed by nothing"),
    ],
)
def test_errors(args: str, message: str) -> None:
    with pytest.raises(DifferentiationError, match=message):
        lower(f"""
declare double @__enzyme_fwddiff(ptr, ...)
define double @main_(ptr %p) {{
entry:
  %k = load i32, ptr @enzyme_const
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, {args})
  ret double %t
}}
""")


def test_merged_calls_of_a_select_of_functions() -> None:
    """IR optimized before irgrad (clang -O2) may merge the calls of two switch arms into
    one call of a ``select`` of functions: a located error naming both, and what to do.
    (irgrad's own pipeline gives the entry points ``nomerge``: see
    tests/ad_api/programs/entry_calls_in_switch.c.)"""
    with pytest.raises(DifferentiationError,
                       match=r"one of @f, @g, chosen at run time.*keep one call per function"):
        lower("""
define double @g(double %x, ptr %p, i32 %n) {
entry:
  ret double %x
}
declare double @__enzyme_fwddiff(ptr, ...)
define double @main_(ptr %p, i1 %which) {
entry:
  %fn = select i1 %which, ptr @f, ptr @g
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr %fn, double 2.0, double 1.0, ptr %p, ptr %p, i32 3)
  ret double %t
}
""")


def test_source_location_from_dbg() -> None:
    module = ir.parse_module("""
define void @g() !dbg !3 {
entry:
  ret void, !dbg !5
}
!llvm.module.flags = !{!0}
!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = distinct !DICompileUnit(language: DW_LANG_C11, file: !2, isOptimized: true, emissionKind: FullDebug)
!2 = !DIFile(filename: "prog.c", directory: "/src")
!3 = distinct !DISubprogram(name: "g", scope: !2, file: !2, line: 7, unit: !1)
!4 = distinct !DILexicalBlock(scope: !3, file: !2, line: 8, column: 3)
!5 = !DILocation(line: 9, column: 14, scope: !4)
""")
    inst = module.get_function("g").blocks[0].instructions[0]  # type: ignore[union-attr]
    loc = source_location_of(inst, module)
    assert (loc.filename, loc.line, loc.column) == ("/src/prog.c", 9, 14)


def test_allocated_size_from_augmentsize_in_any_order() -> None:
    """``enzyme_allocated, N`` with N from ``__enzyme_augmentsize`` (here through a cast
    to i64): every augmentsize is resolved before the split calls, though the pair's
    entry points are declared, and a pair of the same function called, first."""
    text = lower("""
@enzyme_tape = external global i32
@enzyme_allocated = external global i32
@enzyme_out = external global i32
declare ptr @__enzyme_augmentfwd(ptr, ...)
declare double @__enzyme_reverse(ptr, ...)
declare i32 @__enzyme_augmentsize(ptr, ...)
define double @main_(ptr %p, ptr %dp, ptr %buf) {
entry:
  %t = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @f, ptr @enzyme_out, double 2.0, ptr @enzyme_dup, ptr %p, ptr %dp, ptr @enzyme_const, i32 3)
  %a = call double (ptr, ...) @__enzyme_reverse(ptr @f, ptr @enzyme_out, double 2.0, ptr @enzyme_dup, ptr %p, ptr %dp, ptr @enzyme_const, i32 3, double 1.0, ptr %t)
  %n = call i32 (ptr, ...) @__enzyme_augmentsize(ptr @f, ptr @enzyme_out, ptr @enzyme_dup, ptr @enzyme_const)
  %n64 = sext i32 %n to i64
  %u = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @f, ptr @enzyme_allocated, i64 %n64, ptr @enzyme_tape, ptr %buf, ptr @enzyme_out, double 2.0, ptr @enzyme_dup, ptr %p, ptr %dp, ptr @enzyme_const, i32 3)
  %b = call double (ptr, ...) @__enzyme_reverse(ptr @f, ptr @enzyme_allocated, i32 %n, ptr @enzyme_tape, ptr %buf, ptr @enzyme_out, double 2.0, ptr @enzyme_dup, ptr %p, ptr %dp, ptr @enzyme_const, i32 3, double 1.0)
  %s = fadd double %a, %b
  ret double %s
}
""")
    assert "__enzyme" not in text
    assert "enzyme_allocated" not in text
