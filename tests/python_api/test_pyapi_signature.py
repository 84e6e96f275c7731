"""Signatures from debug info: element types of pointers, names, typedefs, references,
unsigned types; the override; unsupported parameters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgrad
from irgrad import Const, Duplicated
from irgrad.errors import UsageError
from irgrad.python.signature import DebugInfo, parse_argtype

CXX = r"""
#include <cstdint>
#include <cstddef>
typedef const double creal;
extern "C" {
double refs(double &acc, creal *x, const float &s, std::size_t n, std::int64_t *idx,
            unsigned char flag, bool on) {
  for (std::size_t i = 0; i < n; i++) acc += x[idx[i]] * s;
  return on && flag ? acc : -acc;
}
void outs(float *__restrict out, short k, double **rows) { out[0] = k + rows[0][0]; }
}
"""


def test_cplusplus_types_from_debug_info(tmp_path: Path) -> None:
    lib = irgrad.compile(source=CXX, language="c++", cache_dir=tmp_path)
    sig = lib["refs"].signature
    assert [(a.name, a.kind, a.dtype) for a in sig.args] == [
        ("acc", "pointer", "float64"),  # double & is a pointer in the ABI
        ("x", "pointer", "float64"),  # through a const typedef
        ("s", "pointer", "float32"),
        ("n", "int", "uint64"),
        ("idx", "pointer", "int64"),
        ("flag", "int", "uint8"),
        ("on", "int", "bool"),
    ]
    assert sig.ret_dtype == "float64"
    acc, idx = np.array([1.0]), np.array([2, 0], dtype=np.int64)
    x = np.array([1.0, 2.0, 3.0])
    assert lib["refs"](acc, x, 2.0, 2, idx, 1, True) == pytest.approx(9.0)
    assert acc[0] == pytest.approx(9.0)  # written through the reference
    dx = np.zeros(3)
    lib.autodiff("refs", Duplicated(np.array([0.0]), np.zeros(1)), Duplicated(x, dx),
                 Const(2.0), 2, idx, 1, True)  # fmt: skip
    np.testing.assert_array_equal(dx, [2.0, 0.0, 2.0])
    outs = lib.signatures["outs"]
    assert outs.args[0].dtype == "float32" and outs.args[1].dtype == "int16"
    assert outs.args[2].kind == "unsupported"
    with pytest.raises(UsageError, match=r"parameter 3 \('rows'\) of outs: pointers to pointers"):
        lib["outs"]


def test_debug_info_reader_on_text() -> None:
    text = """
define void @f(ptr %0, i32 %1) !dbg !3 {
  ret void
}
!3 = distinct !DISubprogram(name: "f", type: !4, unit: !0)
!4 = !DISubroutineType(types: !5)
!5 = !{null, !6, !8}
!6 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !7, size: 64)
!7 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
!8 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!9 = !DILocalVariable(name: "data", arg: 1, scope: !3, type: !6)
"""
    info = DebugInfo(text)
    types = info.types("f")
    assert types is not None and types[0] is None
    assert types[1] is not None and types[1].pointer and types[1].dtype == "uint32"
    assert types[2] is not None and not types[2].pointer and types[2].dtype == "int32"
    assert info.param_names("f") == {1: "data"}
    assert info.source_name("f") == "f"
    assert info.types("g") is None


def test_argtype_spellings() -> None:
    assert parse_argtype("const double *", 0) == ("ptr", "pointer", "float64")
    assert parse_argtype("float", 0) == ("float", "float", "float32")
    assert parse_argtype("int64*", 0) == ("ptr", "pointer", "int64")
    assert parse_argtype("long", 0) == ("i64", "int", "int64")
    assert parse_argtype(np.float32, 0) == ("float", "float", "float32")
    with pytest.raises(UsageError, match=r"argtypes\[2\]: cannot read 'matrix'"):
        parse_argtype("matrix", 2)


def test_override_must_match_the_ir(tmp_path: Path) -> None:
    lib = irgrad.compile(source="double f(double *x, int n) { return x[0] * n; }",
                         language="c", cache_dir=tmp_path)  # fmt: skip
    with pytest.raises(UsageError, match=r"argtypes\[1\] of f: 'double' is double in LLVM IR"):
        lib.function("f", argtypes=["double*", "double"])
    with pytest.raises(UsageError, match=r"1 given, the function has 2"):
        lib.function("f", argtypes=["double*"])
    f = lib.function("f", argtypes=["int64*", "int"])  # a deliberate reinterpretation
    assert f.signature.args[0].dtype == "int64"
    bits = np.array([2.5]).view(np.int64)
    assert f(bits, 3) == 7.5
    with pytest.raises(UsageError, match="expected a int64 array"):
        f(np.array([2.5]), 3)


def test_restype_override(tmp_path: Path) -> None:
    lib = irgrad.compile(source="long big(void) { return -1; }", language="c", cache_dir=tmp_path)
    assert lib["big"]() == -1
    assert lib.function("big", restype="size_t")() == 2**64 - 1
    with pytest.raises(UsageError, match="restype of big: 'int' is i32 in LLVM IR, but the function returns i64"):
        lib.function("big", restype="int")


def test_structs_by_value_and_abi_rewrites_are_not_guessed(tmp_path: Path) -> None:
    lib = irgrad.compile(source="""
struct big { double a, b, c; };
struct two { double v, w; };
struct big make(double x) { struct big r = {x, x, x}; return r; }
double use(struct big b, double y) { return b.a * y; }
double pair(struct two t, const double *x) { return t.v * x[0]; }
double fine(const double *x) { return x[0]; }
""", language="c", cache_dir=tmp_path)  # fmt: skip
    sret = lib.signatures["make"]  # void (ptr sret, double): debug info no longer lines up
    assert [a.kind for a in sret.args] == ["unsupported", "float"]
    assert lib.signatures["use"].args[0].kind == "unsupported"  # byval
    # struct {double, double} is split into two doubles: debug info is not used
    assert [a.dtype for a in lib.signatures["pair"].args] == ["float64", "float64", None]
    for name in ("make", "use"):
        with pytest.raises(UsageError, match="cannot be passed from Python"):
            lib[name]
    assert lib["fine"](np.array([4.0])) == 4.0
