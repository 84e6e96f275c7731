"""Fortran differentiated through ``irgrad cc``, called from Fortran through ``bind(C)``
interfaces to ``__enzyme_autodiff``/``__enzyme_fwddiff``. Each program checks its
gradient against central differences and forward against reverse mode, and prints OK:

* ``allocatable_matmul.f90``: a derived type with allocatable components (flang's
  ``_FortranADestroy`` releases them, and their shadows), a module variable, arrays
  allocated and freed inside the differentiated function, ``matmul``, ``dot_product``,
  ``sum``;
* ``regression.f90``: a regression model in a module -- module data, parameters unpacked
  with ``reshape`` into allocatables (``allocate(..., stat=)``), ``matmul`` + ``tanh`` in
  a loop over samples on work arrays that reallocate on assignment, a derived type,
  ``maxval(abs(matmul(transpose(w), v)))``;
* ``bead_chain.f90``: arrays of derived types allocated through the runtime,
  ``cshift``, ``spread``, ``sum(dim=)``, ``norm2``, windows reallocated in a loop,
  ``allocate(source=)``, ``minval``, a masked ``sum``, and ``real(4)`` routines;
* ``complex_impedance.f90``: an equivalent-circuit fit in ``complex(8)`` (complex
  division through ``__divdc3``, ``exp``/``log``/``sqrt``/``abs`` of complex values, and
  ``z**k`` through ``_FortranAzpowi``, also at ``z = 0``) and ``complex(4)``
  (``_FortranAcpowi``);
* ``heat_rod.f90``: module parameters and module allocatables filled by an init routine, a
  derived type with allocatable components and type-bound procedures updating them in
  place over time steps;
* ``array_language.f90``: explicit- and assumed-shape dummies, sections, ``where``/
  ``elsewhere``, ``merge``, ``maxloc`` (an integer result assigned through the runtime at
  -O0), ``transpose``, ``spread``, ``reshape`` and ``pack`` (``_FortranAPack`` at every
  level: its adjoint is the runtime's ``Unpack`` of the result's);
* ``rk4_procedure_argument.f90``: RK4 with a ``procedure(rhs_iface)`` dummy, automatic
  stage arrays, a procedure pointer, and an internal procedure reading its host's
  variables (a trampoline at every level, which :mod:`irgrad.llvm.trampolines` turns into
  direct calls);
* ``elemental_kernels.f90``: ``elemental`` and ``pure`` procedures, ``do concurrent``,
  ``forall`` and the intrinsic math (``atan2``, ``hypot``, ``sign``, real powers,
  ``mod``/``modulo`` of reals through ``_FortranAModReal8``/``_FortranAModuloReal8``), a
  ``select case (trim(name))`` (``_FortranATrim``, a character comparison at -O0: no
  derivatives);
* ``least_squares_work.f90``: automatic arrays, ``allocate``/``deallocate`` inside the
  function, ``move_alloc`` into an allocated array (``_FortranAMoveAlloc`` at every level:
  the shadow block moves too, the old one is released), an ``intent(inout)`` accumulator
  and ``optional`` arguments;
* ``rkf45_class_dispatch.f90``: adaptive RKF45 over a ``class(ode_system)`` dummy whose
  deferred type-bound right-hand side is dispatched through flang's type description
  (its own shadow), ``do while`` with ``exit``.

At ``-O0`` flang calls its runtime for the array intrinsics (``_FortranASumReal8``,
``_FortranAMatmulReal8Real8``...), at every level for ``spread``, ``norm2``,
assignments that may reallocate (``_FortranAAssign``) and allocations with ``stat=`` or of
derived types: each level exercises irgrad's rules for the runtime
(:mod:`irgrad.ad.rules.fortran`). The programs run with glibc's heap checks on, so a
shadow block freed twice or written after its release aborts them.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from irgrad.frontends.fortran import compile_fortran
from warm_cli import irgrad_command

HERE = Path(__file__).resolve().parent / "fortran"
PROGRAMS = ("allocatable_matmul.f90", "regression.f90", "bead_chain.f90",
            "complex_impedance.f90", "heat_rod.f90", "array_language.f90",
            "rk4_procedure_argument.f90", "elemental_kernels.f90", "least_squares_work.f90",
            "rkf45_class_dispatch.f90")
INTRINSICS = ("_FortranAMatmulReal8Real8", "_FortranADotProductReal8", "_FortranASumReal8")
# runtime routines (and intrinsics) each program calls at every level (so -O1..-O3
# exercise rules too)
RUNTIME_AT_EVERY_LEVEL = {
    "allocatable_matmul.f90": ("_FortranADestroy",),
    "regression.f90": ("_FortranAAssign", "_FortranAAllocatableAllocate",
                       "_FortranAAllocatableDeallocate", "_FortranADestroy"),
    "bead_chain.f90": ("_FortranASpread", "_FortranANorm2_8", "_FortranANorm2_4",
                       "_FortranAAssign", "_FortranAAllocatableAllocate",
                       "_FortranAAllocatableAllocateSource"),
    "complex_impedance.f90": ("_FortranAzpowi", "_FortranAcpowi", "__divdc3", "cexp",
                              "clog", "csqrt", "cabs"),
    "array_language.f90": ("_FortranAPack",),
    "rk4_procedure_argument.f90": ("llvm.init.trampoline", "llvm.adjust.trampoline"),
    "least_squares_work.f90": ("_FortranAMoveAlloc",),
    "elemental_kernels.f90": ("_FortranAModReal8", "_FortranAModuloReal8", "_FortranATrim"),
}
HEAP_CHECKS = {**os.environ, "MALLOC_CHECK_": "3", "MALLOC_PERTURB_": "165"}


def _cc(src: Path, level: str, exe: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*irgrad_command(), "cc", level, str(src), "-o", str(exe)],
                          capture_output=True, text=True, check=False, timeout=600,
                          cwd=exe.parent)


def _run(exe: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60,
                          env=HEAP_CHECKS)


LEVELS = ("-O0", "-O1", "-O2", "-O3")
# allocatable_matmul.f90's features (a derived type's release, a module variable, matmul)
# are regression.f90's too: two of its levels are enough
RUNS = [(p, level) for p in PROGRAMS for level in LEVELS
        if p != "allocatable_matmul.f90" or level in ("-O0", "-O2")]


@pytest.mark.parametrize(("program", "level"), RUNS)
def test_fortran_program(program: str, level: str, tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    proc = _cc(HERE / program, level, exe)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = _run(exe)
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), run.stdout + run.stderr


def test_the_programs_call_the_runtime(tmp_path: Path) -> None:
    """The levels the programs run at see the runtime calls the rules are for: the array
    intrinsics at -O0 (flang inlines them from -O1), allocation, assignment, spread and
    norm2 at every level (the lowest and the highest checked here)."""
    for level in (0, 3):
        for program, names in RUNTIME_AT_EVERY_LEVEL.items():
            text = compile_fortran(HERE / program, opt_level=level,
                                   module_dir=tmp_path).decode()
            missing = [n for n in names if f"@{n}(" not in text]
            assert not missing, (program, level, missing)
            if program == "allocatable_matmul.f90":
                calls = {name for name in INTRINSICS if f"@{name}(" in text}
                assert calls == (set(INTRINSICS) if level == 0 else set()), (level, calls)


EOSHIFT = """
function g(x, n) result(e) bind(c, name="g")
  use iso_c_binding
  implicit none
  integer(c_int), value :: n
  real(c_double), intent(in) :: x(n)
  real(c_double) :: e
  e = sum(x) + sum(x * eoshift(x, 1))
end function
"""


def test_runtime_routine_without_a_rule_is_a_located_error(tmp_path: Path) -> None:
    """A runtime routine irgrad has no rule for is refused at the Fortran line, not
    differentiated wrongly."""
    import numpy as np

    import irgrad
    from irgrad.errors import DifferentiationError

    src = tmp_path / "eoshift.f90"
    src.write_text(EOSHIFT)
    lib = irgrad.compile(src, opt_level=0, cache_dir=tmp_path / "cache")
    with pytest.raises(DifferentiationError,
                       match=r"eoshift\.f90:8:\d+: error: No derivative found for "
                             r"_FortranAEoshiftVector"):
        lib.gradient("g")(np.ones(3), 3)


GLOBAL_PROCEDURE_POINTER = """
module callbacks
  use iso_c_binding
  implicit none
  abstract interface
    function fn_iface(y) result(r)
      import :: c_double
      real(c_double), intent(in) :: y
      real(c_double) :: r
    end function
  end interface
  procedure(fn_iface), pointer :: active_model => null()
contains
  function apply(y) result(r)
    real(c_double), intent(in) :: y
    real(c_double) :: r
    r = active_model(y) + active_model(2 * y)
  end function
  function g(x, n) result(l) bind(c, name="g")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: l, a
    a = x(2)
    active_model => scaled
    l = apply(x(1))
  contains
    function scaled(y) result(r)
      real(c_double), intent(in) :: y
      real(c_double) :: r
      r = a * y**2
    end function
  end function
end module
"""


def test_internal_procedure_in_a_global_pointer_is_a_located_error(tmp_path: Path) -> None:
    """An internal procedure passed as an argument is called directly (a trampoline no
    more); one stored into a module's procedure pointer stays a trampoline, refused at
    the pointer assignment."""
    import numpy as np

    import irgrad
    from irgrad.errors import DifferentiationError

    src = tmp_path / "callbacks.f90"
    src.write_text(GLOBAL_PROCEDURE_POINTER)
    lib = irgrad.compile(src, opt_level=0, cache_dir=tmp_path / "cache")
    with pytest.raises(DifferentiationError,
                       match=r"callbacks\.f90:24:\d+: error: No derivative found for "
                             r"llvm\.adjust\.trampoline"):
        lib.gradient("g")(np.ones(2), 2)


STAT_ALLOCATE = """
function g(x, n) result(e) bind(c, name="g")
  use iso_c_binding
  implicit none
  integer(c_int), value :: n
  real(c_double), intent(in) :: x(n)
  real(c_double) :: e
  real(c_double), allocatable :: a(:)
  integer :: ierr
  allocate(a(n), stat=ierr)
  a(:) = x * 2
  e = sum(a * a) + maxval(a)
  deallocate(a, stat=ierr)
end function
"""


@pytest.mark.parametrize("level", [0, 2])
def test_python_api_runtime_allocation(level: int, tmp_path: Path) -> None:
    """allocate/deallocate with stat= (flang's runtime at every level) through the Python
    API: the gradient of sum((2x)^2) + max(2x) is 8x + 2 e_argmax."""
    import numpy as np

    import irgrad

    src = tmp_path / "stat.f90"
    src.write_text(STAT_ALLOCATE)
    lib = irgrad.compile(src, opt_level=level, cache_dir=tmp_path / "cache")
    x = np.array([0.5, -1.0, 2.0, 1.5])
    expected = 8 * x
    expected[2] += 2
    np.testing.assert_allclose(lib.gradient("g")(x, 4), expected, rtol=1e-12)


def test_readme_fortran_section(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = text.index("\n## Fortran\n")
    section = text[start:text.find("\n## ", start + 1)]
    blocks = re.findall(r"^```fortran\n(.*?)^```", section, flags=re.S | re.M)
    assert len(blocks) == 1
    src = tmp_path / "energy.f90"
    src.write_text(blocks[0])
    command = re.search(r"^irgrad cc (-O\d) energy\.f90 -o energy && \./energy +# (.*)$",
                        section, flags=re.M)
    assert command is not None
    proc = _cc(src, command.group(1), tmp_path / "energy")
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = _run(tmp_path / "energy")
    assert run.returncode == 0 and run.stdout.split() == command.group(2).split(), run.stdout
