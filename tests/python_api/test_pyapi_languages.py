"""irgrad.compile on C++, Fortran, Rust and hand-written LLVM IR (derivatives checked
against finite differences; -O0 and -O2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pyapi_helpers import fd_gradient

import irgrad
from irgrad import Active, Const, Duplicated
from irgrad.errors import UsageError

RNG = np.random.default_rng(11)
LEVELS = pytest.mark.parametrize("opt", [0, 2], ids=["O0", "O2"])

CXX = r"""
#include <cmath>
template <class T> static T sq(T v) { return v * v; }
struct Acc {
  double total = 0;
  void add(double v) { total += sq(std::sin(v)); }
};
extern "C" double cxx_norm(const double *x, int n) {
  Acc acc;
  for (int i = 0; i < n; i++) acc.add(x[i]);
  return acc.total;
}
double cube(double a) { return a * a * a; }  // C++ linkage: found by its source name
"""

FORTRAN = """
subroutine sumsq(n, x, y)
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y
  integer :: i
  y = 0
  do i = 1, n
    y = y + x(i)**2 * exp(0.1d0 * x(i))
  end do
end subroutine

function poly(x) result(r)
  real(8), intent(in) :: x
  real(8) :: r
  r = 3*x**3 - x
end function
"""

RUST = """
#[no_mangle]
pub extern "C" fn rs_energy(x: *const f64, n: usize, k: f64) -> f64 {
    let xs = unsafe { std::slice::from_raw_parts(x, n) };
    xs.iter().map(|v| k * v.sin() * v.sin()).sum()
}
"""

LLVM_IR = """
define double @ll_dot(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %px = getelementptr double, ptr %x, i64 %i
  %py = getelementptr double, ptr %y, i64 %i
  %vx = load double, ptr %px
  %vy = load double, ptr %py
  %m = fmul double %vx, %vy
  %acc.next = fadd double %acc, %m
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %acc.next
}
"""


@LEVELS
def test_cplusplus_extern_c_and_mangled(opt: int, tmp_path: Path) -> None:
    lib = irgrad.compile(source=CXX, language="c++", opt_level=opt, cache_dir=tmp_path)
    x = RNG.normal(size=5)
    assert lib["cxx_norm"](x, 5) == pytest.approx(float(np.sum(np.sin(x) ** 2)))
    np.testing.assert_allclose(lib.gradient("cxx_norm")(x, 5), np.sin(2 * x), rtol=1e-12)
    assert "cube" in lib and lib["cube"].signature.symbol.startswith("_Z")
    assert lib.autodiff("cube", 2.0) == (pytest.approx(12.0),)


@LEVELS
def test_fortran_by_reference(opt: int, tmp_path: Path) -> None:
    src = tmp_path / "k.f90"
    src.write_text(FORTRAN)
    lib = irgrad.compile(src, opt_level=opt, cache_dir=tmp_path / "cache")
    assert lib.language == "fortran"
    sig = lib["sumsq"].signature
    assert [a.name for a in sig.args] == ["n", "x", "y"]
    assert [a.dtype for a in sig.args] == ["int32", "float64", "float64"]
    x = RNG.normal(size=4)
    y = np.zeros(1)

    def f(v: np.ndarray) -> float:
        return float(np.sum(v**2 * np.exp(0.1 * v)))

    lib["sumsq"](4, x, y)  # the integer is boxed (passed by reference)
    assert y[0] == pytest.approx(f(x))
    dx = np.zeros(4)
    lib.autodiff("sumsq", Const(4), Duplicated(x, dx), Duplicated(y, np.ones(1)))
    np.testing.assert_allclose(dx, fd_gradient(f, x), rtol=1e-6)
    gx = lib.vjp("sumsq", wrt="x", outputs="y")(4, x, y, np.ones(1))
    np.testing.assert_allclose(gx, dx, rtol=1e-13)
    # a scalar passed by reference: Active boxes it, forward mode takes a number tangent
    assert lib.autodiff("poly", Active(2.0)) == (pytest.approx(35.0),)
    assert lib.fwddiff("poly", Duplicated(2.0, 1.0)) == pytest.approx(35.0)
    assert lib["poly"](2.0) == pytest.approx(22.0)
    with pytest.raises(UsageError, match="adds into the shadow, so it must be an array"):
        lib.autodiff("poly", Duplicated(2.0, 0.0))  # the derivative would be lost


@LEVELS
def test_rust_no_mangle(opt: int, tmp_path: Path) -> None:
    lib = irgrad.compile(source=RUST, language="rust", opt_level=opt, cache_dir=tmp_path)
    x = RNG.normal(size=7)
    assert lib["rs_energy"].signature.args[1].dtype == "uint64"  # usize
    assert lib["rs_energy"](x, 7, 2.0) == pytest.approx(float(np.sum(2.0 * np.sin(x) ** 2)))
    gx, gk = lib.gradient("rs_energy", wrt=("x", "k"))(x, 7, 2.0)
    np.testing.assert_allclose(gx, 2.0 * np.sin(2 * x), rtol=1e-12)
    assert gk == pytest.approx(float(np.sum(np.sin(x) ** 2)))
    t = RNG.normal(size=7)
    assert lib.jvp("rs_energy")(x, 7, 2.0, t) == pytest.approx(float(gx @ t), rel=1e-12)


@LEVELS
def test_llvm_ir_without_debug_info(opt: int, tmp_path: Path) -> None:
    lib = irgrad.compile(source=LLVM_IR, language="ll", opt_level=opt, cache_dir=tmp_path)
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    sig = lib["ll_dot"].signature
    assert [a.dtype for a in sig.args] == [None, None, "int64"]  # no debug info: pointee unknown
    assert lib["ll_dot"](x, y, 3) == pytest.approx(float(x @ y))
    gx, gy = lib.gradient("ll_dot", wrt=(0, 1))(x, y, 3)
    np.testing.assert_allclose(gx, y, rtol=1e-15)
    np.testing.assert_allclose(gy, x, rtol=1e-15)
    # an explicit signature makes the pointee checked
    f = lib.function("ll_dot", argtypes=["const double*", "double*", "long"])
    assert f.signature.args[0].dtype == "float64"
    with pytest.raises(UsageError, match="expected a float64 array"):
        f(x.astype(np.float32), y, 3)
    with pytest.raises(UsageError, match="float64 array"):
        lib.gradient("ll_dot")(x.astype(np.float32), y, 3)


def test_several_files_one_module_and_enzyme_calls_in_the_source(tmp_path: Path) -> None:
    (tmp_path / "model.c").write_text(
        "double model(const double *x, int n) { double s = 0;\n"
        "  for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i]; return s; }\n"
    )
    (tmp_path / "use.c").write_text(
        "#include <enzyme/enzyme.h>\n"
        "double model(const double *x, int n);\n"
        "double objective(const double *x, int n) { return 2.0 * model(x, n); }\n"
        "void c_gradient(const double *x, double *dx, int n) {\n"
        "  __enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_const, n); }\n"
    )
    lib = irgrad.compile([tmp_path / "model.c", tmp_path / "use.c"], cache_dir=tmp_path / "c")
    x = RNG.normal(size=5)
    np.testing.assert_allclose(lib.gradient("objective")(x, 5), 6 * x**2, rtol=1e-14)
    dx = np.zeros(5)
    lib["c_gradient"](x, dx, 5)  # Enzyme's C API inside the source works unchanged
    np.testing.assert_allclose(dx, 6 * x**2, rtol=1e-14)


def test_fortran_module_procedure_and_module_variable(tmp_path: Path) -> None:
    lib = irgrad.compile(source="""
module physics
  implicit none
  real(8) :: k = 2.0d0
contains
  function energy(x, n) result(e)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8) :: e
    e = k * sum(x**2)
  end function
  subroutine set_k(v) bind(c, name="set_k")
    real(8), value :: v
    k = v
  end subroutine
end module
""", language="fortran", cache_dir=tmp_path)  # fmt: skip
    assert lib["energy"].signature.symbol == "_QMphysicsPenergy"  # found by its source name
    x = RNG.normal(size=3)
    np.testing.assert_allclose(lib.gradient("energy")(x, 3), 4 * x, rtol=1e-14)
    lib["set_k"](3.0)  # bind(c) with VALUE: a plain double
    assert lib["energy"](x, 3) == pytest.approx(3 * float(x @ x))
    np.testing.assert_allclose(lib.gradient("energy")(x, 3), 6 * x, rtol=1e-14)


def test_c_calling_fortran_in_one_module(tmp_path: Path) -> None:
    (tmp_path / "k.f90").write_text(
        'function fsq(x) result(r) bind(c, name="fsq")\n  use iso_c_binding\n'
        "  real(c_double), value :: x\n  real(c_double) :: r\n  r = x*x*sin(x)\nend function\n"
    )
    (tmp_path / "m.c").write_text(
        "double fsq(double);\n"
        "double total(const double *x, int n) {\n"
        "  double s = 0; for (int i = 0; i < n; i++) s += fsq(x[i]); return s; }\n"
    )
    lib = irgrad.compile([tmp_path / "m.c", tmp_path / "k.f90"], cache_dir=tmp_path / "c")
    assert lib.language == "c/fortran"
    x = RNG.normal(size=4)
    expected = 2 * x * np.sin(x) + x * x * np.cos(x)  # differentiated across languages
    np.testing.assert_allclose(lib.gradient("total")(x, 4), expected, rtol=1e-13)
