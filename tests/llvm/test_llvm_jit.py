"""LLJIT through irgrad.llvm.jit: real numbers out of compiled C, clean errors."""

from __future__ import annotations

import ctypes
import math

import pytest

from irgrad.errors import LLVMError
from irgrad.frontends import compile_to_ir
from irgrad.llvm import JITModule

C_SRC = """
#include <math.h>
double norm_sin(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s) + sin(x[0]);
}
"""


def test_jit_calls_c_function(tmp_path) -> None:
    src = tmp_path / "f.c"
    src.write_text(C_SRC)
    jit = JITModule(compile_to_ir([src]))
    f = jit.get("norm_sin", ctypes.c_double, [ctypes.POINTER(ctypes.c_double), ctypes.c_int])
    arr = (ctypes.c_double * 3)(1.0, 2.0, 2.0)
    assert f(arr, 3) == pytest.approx(3.0 + math.sin(1.0), rel=1e-15)


def test_jit_cplusplus_stl(tmp_path) -> None:
    src = tmp_path / "v.cpp"
    src.write_text(
        "#include <vector>\n#include <numeric>\n"
        'extern "C" double total(int n) { std::vector<double> v(n);'
        " std::iota(v.begin(), v.end(), 1.0);"
        " return std::accumulate(v.begin(), v.end(), 0.0); }\n"
    )
    jit = JITModule(compile_to_ir([src]))
    assert jit.get("total", ctypes.c_double, [ctypes.c_int])(10) == 55.0


def test_unresolved_symbol_is_llvm_error() -> None:
    text = (
        "declare double @irgrad_no_such_fn(double)\n"
        "define double @g(double %x) {\n"
        "  %y = call double @irgrad_no_such_fn(double %x)\n"
        "  ret double %y\n"
        "}\n"
    )
    with pytest.raises(LLVMError, match="irgrad_no_such_fn"):
        JITModule(text, filename="g.ll")


def test_unknown_function_name() -> None:
    jit = JITModule("define i32 @one() {\n  ret i32 1\n}\n")
    assert jit.get("one", ctypes.c_int, [])() == 1
    with pytest.raises(LLVMError, match="no function or global named 'two'"):
        jit.get("two", ctypes.c_int, [])


def test_unused_missing_declaration_is_fine() -> None:
    text = (
        "declare double @irgrad_never_called(double)\n"
        "define double @h(double %x) {\n"
        "  ret double %x\n"
        "}\n"
    )
    assert JITModule(text).get("h", ctypes.c_double, [ctypes.c_double])(2.5) == 2.5


def test_jit_links_compiler_runtime_helpers() -> None:
    """llvm.powi lowers to a call of __powidf2 (libgcc_s): the JIT must resolve it."""
    import ctypes

    from irgrad.llvm.jit import JITModule

    text = (
        "define double @f(double %x, i32 %n) {\n"
        "  %r = call double @llvm.powi.f64.i32(double %x, i32 %n)\n"
        "  ret double %r\n}\n"
        "declare double @llvm.powi.f64.i32(double, i32)\n"
    )
    f = JITModule(text, opt_level=0).get("f", ctypes.c_double, [ctypes.c_double, ctypes.c_int])
    assert f(2.0, 3) == 8.0
    assert f(2.0, -2) == 0.25
