"""compile_to_ir for C, C++, Fortran and Rust: real IR, checked by running it."""

from __future__ import annotations

import ctypes

import pytest

from irgrad.errors import ToolchainError, UsageError
from irgrad.frontends import compile_to_ir, detect_language
from irgrad.llvm import JITModule, parse_llvm
from irgrad.llvm.canonicalize import strip_optnone_text

C_SRC = """
double poly(double x, int n) {
  double acc = 0.0;
  for (int i = 0; i < n; i++) acc = acc * x + (double)(i + 1);
  return acc;
}
"""


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_detect_language() -> None:
    assert [detect_language(n) for n in ("a.c", "b.cpp", "c.F90", "d.f", "e.rs", "f.bc")] == [
        "c", "c++", "fortran", "fortran", "rust", "ir",
    ]
    assert detect_language("x.txt") is None


def test_c_for_ad_vs_optimized(tmp_path) -> None:
    src = _write(tmp_path, "poly.c", C_SRC)
    for_ad = compile_to_ir([src], opt_level=2, for_ad=True)
    optimized = compile_to_ir([src], opt_level=2, for_ad=False)
    # for AD: no LLVM passes ran (allocas, named values kept), no optnone
    assert "alloca" in for_ad and "%acc" in for_ad and "optnone" not in for_ad
    # clang's real -O2: SROA ran, the loop is in SSA form
    assert "alloca" not in optimized and "phi double" in optimized
    for text in (for_ad, optimized):
        f = JITModule(text).get("poly", ctypes.c_double, [ctypes.c_double, ctypes.c_int])
        assert f(2.0, 3) == 1 * 4 + 2 * 2 + 3  # ((0*2+1)*2+2)*2+3 = 11


def test_c_O0_for_ad_is_what_users_pipe(tmp_path) -> None:
    """-O0 for AD is plain clang -O0 (the `irgrad opt` route sees the same IR): every
    function is `optnone noinline`, and the pre-AD step strips the pair, leaving neither."""
    src = _write(tmp_path, "poly.c", C_SRC)
    text = compile_to_ir([src], opt_level=0)
    attrs = [ln for ln in text.splitlines() if ln.startswith("attributes")]
    assert any("optnone" in ln and "noinline" in ln for ln in attrs)
    stripped = [ln for ln in strip_optnone_text(text).splitlines() if ln.startswith("attributes")]
    assert not any("optnone" in ln or "noinline" in ln for ln in stripped)


def test_cplusplus_stl(tmp_path) -> None:
    src = _write(
        tmp_path,
        "stl.cpp",
        "#include <vector>\n#include <algorithm>\n"
        'extern "C" double biggest(const double *x, int n) {\n'
        "  std::vector<double> v(x, x + n);\n"
        "  std::sort(v.begin(), v.end());\n"
        "  return v.back() - v.front();\n}\n",
    )
    text = compile_to_ir([src])
    assert "_ZNSt6vector" in text
    f = JITModule(text).get(
        "biggest", ctypes.c_double, [ctypes.POINTER(ctypes.c_double), ctypes.c_int]
    )
    assert f((ctypes.c_double * 4)(3.0, -1.5, 7.25, 0.0), 4) == 8.75


FORTRAN_SRC = """
function wsum(x, n) result(s) bind(c, name="wsum")
  use iso_c_binding
  implicit none
  integer(c_int), value :: n
  real(c_double), intent(in) :: x(n)
  real(c_double) :: s
  integer :: i
  s = 0
  do i = 1, n
    s = s + i * x(i)
  end do
end function
"""


def test_fortran(tmp_path) -> None:
    src = _write(tmp_path, "wsum.f90", FORTRAN_SRC)
    text = compile_to_ir([src])
    assert "define" in text and "@wsum(" in text
    assert "<2 x double>" not in text and "<4 x double>" not in text  # for AD: not vectorized
    f = JITModule(text).get("wsum", ctypes.c_double, [ctypes.POINTER(ctypes.c_double), ctypes.c_int])
    assert f((ctypes.c_double * 3)(1.0, 10.0, 100.0), 3) == 321.0


RUST_SRC = """
#[no_mangle]
pub extern "C" fn rs_norm2(x: *const f64, n: usize) -> f64 {
    let v = unsafe { std::slice::from_raw_parts(x, n) };
    v.iter().map(|a| a * a).sum()
}
"""


def test_rust_library_and_linking_with_c(tmp_path) -> None:
    rs = _write(tmp_path, "norm.rs", RUST_SRC)
    c = _write(tmp_path, "poly.c", C_SRC)
    text = compile_to_ir([rs, c])
    parse_llvm(text, "linked.ll")  # one valid module
    jit = JITModule(text)
    norm = jit.get("rs_norm2", ctypes.c_double, [ctypes.POINTER(ctypes.c_double), ctypes.c_size_t])
    assert norm((ctypes.c_double * 2)(3.0, 4.0), 2) == 25.0
    assert jit.get("poly", ctypes.c_double, [ctypes.c_double, ctypes.c_int])(1.0, 2) == 3.0


def test_rust_for_ad_vs_optimized(tmp_path) -> None:
    rs = _write(tmp_path, "norm.rs", RUST_SRC)
    for_ad = compile_to_ir([rs], for_ad=True)
    optimized = compile_to_ir([rs], for_ad=False)
    # rustc's own pipeline inlines the iterator machinery away
    assert for_ad.count("define ") > optimized.count("define ")


def test_missing_rustc_is_toolchain_error(tmp_path, monkeypatch) -> None:
    rs = _write(tmp_path, "norm.rs", RUST_SRC)
    monkeypatch.setenv("IRGRAD_RUSTC", str(tmp_path / "no-such-rustc"))
    with pytest.raises(ToolchainError, match="IRGRAD_RUSTC"):
        compile_to_ir([rs])


def test_compile_error_is_toolchain_error(tmp_path) -> None:
    src = _write(tmp_path, "bad.c", "double f(double x) { return x +; }\n")
    with pytest.raises(ToolchainError) as info:
        compile_to_ir([src])
    assert "bad.c:1:" in info.value.message and "expected expression" in info.value.message


def test_unknown_suffix(tmp_path) -> None:
    src = _write(tmp_path, "notes.txt", "hello")
    with pytest.raises(UsageError, match="cannot tell the language"):
        compile_to_ir([src])


def test_fortran_with_runtime_calls_in_jit(tmp_path, capfd) -> None:
    src = _write(
        tmp_path,
        "fnorm.f90",
        'function fnorm(x, n) result(s) bind(c, name="fnorm")\n'
        "  use iso_c_binding\n"
        "  implicit none\n"
        "  integer(c_int), value :: n\n"
        "  real(c_double), intent(in) :: x(n)\n"
        "  real(c_double) :: s\n"
        "  real(c_double), allocatable :: y(:)\n"
        "  allocate(y(n))\n"
        "  y = x * 2\n"
        "  s = norm2(y)\n"
        "  write(*, '(A,I0)') 'n=', n\n"
        "  flush(6)\n"
        "end function\n",
    )
    text = compile_to_ir([src])
    assert "@_FortranANorm2_8(" in text  # the runtime is really needed
    f = JITModule(text).get("fnorm", ctypes.c_double, [ctypes.POINTER(ctypes.c_double), ctypes.c_int])
    assert f((ctypes.c_double * 2)(1.5, 2.0), 2) == 5.0
    assert "n=2" in capfd.readouterr().out
