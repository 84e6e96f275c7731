"""flang's runtime calls besides the array intrinsics, differentiated through ``irgrad
cc`` (``fortran/runtime_calls.f90``, at -O0..-O3; the program checks its gradient against
central differences and forward against reverse mode, and prints OK):

* routines whose results are integers or logicals (``minloc(dim=)``, ``maxloc`` of reals,
  ``count``, ``any``, ``maxval`` of integers: flang calls its runtime for them at -O0)
  carry no derivative, whatever real data they read;
* ``_FortranACopyInAssign``/``_FortranACopyOutAssign`` (a strided section of an
  assumed-shape array passed to an F77-style routine, at every level): the shadow
  temporary is a copy of the shadow section (forward mode) or zeroed (reverse mode), and
  the adjoints flow back through it;
* ``_FortranAInitialize`` (a local array of a derived type with an allocatable component
  and default-initialized ``real`` components): the shadow object is initialized too,
  its real data zeroed (a default value is a constant);
* ``allocate(p, source=quadratic(...))`` of a polymorphic scalar: the adjoint of the
  derived-type source, component by component from flang's type description, and
  ``_FortranAAllocatableDeallocatePolymorphic``;
* the reverse mode of a derived-type array assignment (``_FortranAAssign``; Python API,
  -O0..-O3), and the located run-time error for one whose type has allocatable
  components (its shadow would need components of its own).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from irgrad.analysis.fortran_runtime import (
    fortran_routine,
    is_fortran_inactive,
    is_fortran_integer_result,
    reads_descriptor,
)
from irgrad.analysis.known_functions import is_inactive_call
from irgrad.frontends.fortran import compile_fortran
from warm_cli import irgrad_command

PROGRAM = Path(__file__).resolve().parent / "fortran" / "runtime_calls.f90"
LEVELS = ("-O0", "-O1", "-O2", "-O3")
HEAP_CHECKS = {**os.environ, "MALLOC_CHECK_": "3", "MALLOC_PERTURB_": "165"}
EVERY_LEVEL = ("_FortranACopyInAssign", "_FortranACopyOutAssign", "_FortranAInitialize",
               "_FortranAAllocatableDeallocatePolymorphic", "_FortranAAllocatableAllocateSource")
AT_O0 = ("_FortranAMinlocDim", "_FortranAMaxlocReal8", "_FortranAMaxvalInteger4",
         "_FortranACount", "_FortranAAny")


@pytest.mark.parametrize("level", LEVELS)
def test_runtime_calls_program(level: str, tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    proc = subprocess.run([*irgrad_command(), "cc", level, str(PROGRAM), "-o", str(exe)],
                          capture_output=True, text=True, check=False, timeout=600,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60,
                         env=HEAP_CHECKS)
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), run.stdout + run.stderr


def test_the_program_calls_the_runtime(tmp_path: Path) -> None:
    """The levels the program runs at see the calls this file is about."""
    for level in (0, 3):
        text = compile_fortran(PROGRAM, opt_level=level, module_dir=tmp_path).decode()
        wanted = EVERY_LEVEL + (AT_O0 if level == 0 else ())
        missing = [n for n in wanted if f"@{n}(" not in text]
        assert not missing, (level, missing)


@pytest.mark.parametrize("name", [
    "_FortranACount", "_FortranAAny", "_FortranAAll", "_FortranAParity",
    "_FortranAMaxvalInteger4", "_FortranAMinvalInteger8", "_FortranASumInteger4",
    "_FortranAProductUnsigned2", "_FortranAIAll4", "_FortranAIParity16",
    "_FortranADotProductInteger4", "_FortranADotProductLogical", "_FortranASize",
    "_FortranASizeDim", "_FortranALboundDim", "_FortranAIsContiguous",
    "_FortranAExponent8_4", "_FortranANint8_4", "_FortranASelectedRealKind",
])
def test_integer_valued_routines_are_inactive(name: str) -> None:
    """Routines that return an integer or logical write nothing and carry nothing."""
    assert is_fortran_inactive(name) and is_inactive_call(name), name
    assert not is_fortran_integer_result(name)
    assert reads_descriptor(name, 0)


@pytest.mark.parametrize("name", [
    "_FortranAMinlocDim", "_FortranAMaxlocDim", "_FortranAMinlocReal8",
    "_FortranAMaxlocInteger4", "_FortranAMaxlocCharacter", "_FortranAFindloc",
    "_FortranAFindlocDim", "_FortranACountDim", "_FortranAAnyDim", "_FortranAIAnyDim",
    "_FortranAMaxvalCharacter", "_FortranALbound", "_FortranAUbound", "_FortranAShape",
])
def test_integer_result_routines_are_inactive(name: str) -> None:
    """Routines that write an integer (logical, character) result through their first
    argument carry nothing; the memory analysis sees that write."""
    assert is_fortran_integer_result(name) and is_inactive_call(name), name
    assert not is_fortran_inactive(name)  # (they write memory)
    assert reads_descriptor(name, 1)


@pytest.mark.parametrize("name", [
    "_FortranAMinvalReal8", "_FortranAMaxvalReal4", "_FortranASumReal8", "_FortranASumDim",
    "_FortranAMaxvalDim", "_FortranAMinvalDim", "_FortranAProductDim",
    "_FortranAProductReal8", "_FortranADotProductReal8", "_FortranANorm2_8",
    "_FortranACppSumComplex8", "_FortranAMinvalReal10",
])
def test_real_valued_routines_stay_active(name: str) -> None:
    """A reduction of reals (or a generic one: ``SumDim``, ``MaxvalDim``) is no integer
    routine: it has a rule or is refused."""
    assert not is_fortran_inactive(name) and not is_fortran_integer_result(name), name
    assert not is_inactive_call(name)


def test_copy_and_initialize_routines_have_rules() -> None:
    for name, family in (("_FortranACopyInAssign", "copy_in"),
                         ("_FortranACopyOutAssign", "copy_out"),
                         ("_FortranAInitialize", "initialize"),
                         ("_FortranAAllocatableDeallocatePolymorphic", "deallocate")):
        routine = fortran_routine(name)
        assert routine is not None and routine.family == family, name


DERIVED_ARRAY_ASSIGN = """
module points
  use iso_c_binding
  implicit none
  type :: pt
    real(c_double) :: p(2)
    integer :: tag
    real(c_double) :: w
  end type
contains
  function g(x, n) result(e) bind(c, name="g")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    type(pt), allocatable :: a(:), b(:)
    integer :: i
    allocate(a(n))
    do i = 1, n
      a(i)%p = [x(i), x(i) * x(i)]
      a(i)%w = 3 * x(i)
      a(i)%tag = i
    end do
    b = a                     ! _FortranAAssign of a derived-type array
    a(1)%w = 0
    e = 0
    do i = 1, n
      e = e + b(i)%p(2) * b(i)%w * x(n + 1 - i) + b(i)%p(1)
    end do
  end function
end module
"""


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_derived_type_array_assignment_reverse(level: int, tmp_path: Path) -> None:
    """The adjoint of a derived-type array assignment moves component by component (the
    type's description says where the reals are; the integer ``tag`` is skipped)."""
    import numpy as np

    import irgrad

    src = tmp_path / "points.f90"
    src.write_text(DERIVED_ARRAY_ASSIGN)
    lib = irgrad.compile(src, opt_level=level, cache_dir=tmp_path / "cache")
    x = np.array([0.5, -1.2, 2.0, 0.8])

    def e(v: np.ndarray) -> float:
        return float(np.sum(3 * v**3 * v[::-1] + v))

    h = 1e-6
    fd = [(e(x + h * u) - e(x - h * u)) / (2 * h) for u in np.eye(len(x))]
    np.testing.assert_allclose(lib.gradient("g")(x, len(x)), fd, rtol=1e-7)


OWNING_ASSIGN = """
module boxes
  use iso_c_binding
  implicit none
  type :: box
    real(c_double), allocatable :: v(:)
    real(c_double) :: s
  end type
contains
  function f(x, n) result(e) bind(c, name="f")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    type(box) :: a, b
    a%v = x * x
    a%s = x(1)
    b = a
    e = sum(b%v) * b%s
  end function
end module
"""
OWNING_MAIN = """
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double f(const double *x, int n);
int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
  return 0;
}
"""


def test_owning_derived_assignment_reverse_is_a_located_error(tmp_path: Path) -> None:
    """Reverse mode of an assignment of a derived type with allocatable components stops
    at the Fortran line with a message that says so (not a wrong derivative)."""
    (tmp_path / "boxes.f90").write_text(OWNING_ASSIGN)
    (tmp_path / "main.c").write_text(OWNING_MAIN)
    exe = tmp_path / "prog"
    proc = subprocess.run([*irgrad_command(), "cc", "-O1", "boxes.f90", "main.c", "-o",
                           str(exe)], capture_output=True, text=True, check=False,
                          timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode != 0
    assert re.search(r"boxes\.f90:17\).*reverse-mode derivative of an assignment of a "
                     r"derived type with allocatable components", run.stderr), run.stderr
