"""Fortran differentiated through ``irgrad cc``, called from Fortran through ``bind(C)``
interfaces to ``__enzyme_autodiff``/``__enzyme_fwddiff``: a module with a derived type
holding allocatable components (flang's ``_FortranADestroy`` releases them, and their
shadows), a module variable, arrays allocated and freed inside the differentiated
function, ``matmul``, ``dot_product`` and ``sum``. The program checks its gradient
against central differences and forward against reverse mode, and prints OK.

flang-22 inlines ``matmul``/``dot_product``/``sum`` at -O1..-O3 (checked below); at -O0
it calls its runtime (``_FortranAMatmulReal8Real8``, ``_FortranASumReal8``, ...), which
has no derivative rules yet: irgrad reports that, located at the Fortran line.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from irgrad.frontends.fortran import compile_fortran

HERE = Path(__file__).resolve().parent / "fortran"
PROGRAM = HERE / "allocatable_matmul.f90"
INTRINSICS = ("_FortranAMatmulReal8Real8", "_FortranADotProductReal8", "_FortranASumReal8")


def _cc(src: Path, level: str, exe: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "irgrad", "cc", level, str(src), "-o", str(exe)],
                          capture_output=True, text=True, check=False, timeout=600,
                          cwd=exe.parent)


@pytest.mark.parametrize("level", ["-O1", "-O2", "-O3"])
def test_fortran_program(level: str, tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    proc = _cc(PROGRAM, level, exe)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), run.stdout + run.stderr


def test_fortran_O0_runtime_intrinsic_is_a_located_error(tmp_path: Path) -> None:
    proc = _cc(PROGRAM, "-O0", tmp_path / "prog")
    assert proc.returncode == 2, proc.stderr[-4000:]
    m = re.search(r"allocatable_matmul\.f90:(\d+):\d+: error: No derivative found for "
                  r"(_Fortran\w+) in function loss", proc.stderr)
    assert m is not None, proc.stderr[-4000:]
    assert m.group(2) in INTRINSICS
    line = PROGRAM.read_text().splitlines()[int(m.group(1)) - 1]
    assert any(word in line for word in ("matmul", "dot_product", "sum")), line
    assert "Traceback" not in proc.stderr


def test_flang_inlines_the_array_intrinsics_from_O1(tmp_path: Path) -> None:
    """The levels the program is differentiated at see loops, not runtime calls; the
    derived type's release stays a runtime call at every level."""
    for level in (0, 1, 2, 3):
        text = compile_fortran(PROGRAM, opt_level=level, module_dir=tmp_path).decode()
        calls = {name for name in INTRINSICS if f"@{name}(" in text}
        assert calls == (set(INTRINSICS) if level == 0 else set()), (level, calls)
        assert "call void @_FortranADestroy(" in text


def test_readme_fortran_section(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = text.index("\n## Fortran\n")
    section = text[start:text.find("\n## ", start + 1)]
    blocks = re.findall(r"^```fortran\n(.*?)^```", section, flags=re.S | re.M)
    assert len(blocks) == 1
    src = tmp_path / "energy.f90"
    src.write_text(blocks[0])
    proc = _cc(src, "-O2", tmp_path / "energy")
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = subprocess.run([str(tmp_path / "energy")], capture_output=True, text=True,
                         check=False, timeout=60)
    assert run.returncode == 0 and run.stdout.split() == ["5.00", "16.00", "33.00"], run.stdout


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
  e = sum(a * a)
  deallocate(a, stat=ierr)
end function
"""


def test_runtime_allocation_is_a_located_error(tmp_path: Path) -> None:
    """allocate/deallocate with stat= call flang's runtime, which irgrad does not
    differentiate yet: an error at the Fortran line, not a wrong derivative."""
    import numpy as np

    import irgrad
    from irgrad.errors import DifferentiationError

    src = tmp_path / "stat.f90"
    src.write_text(STAT_ALLOCATE)
    lib = irgrad.compile(src, opt_level=2, cache_dir=tmp_path / "cache")
    with pytest.raises(DifferentiationError,
                       match=r"stat\.f90:13:\d+: error: No derivative found for "
                             r"_FortranAAllocatableDeallocate"):
        lib.gradient("g")(np.ones(3), 3)
