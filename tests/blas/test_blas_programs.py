"""The BLAS/LAPACK programs in tests/blas, built by ``irgrad cc`` against Debian's
OpenBLAS (CBLAS, Fortran BLAS and LAPACK in one library) at -O0..-O3, each checking its
own derivatives (dot-product test, forward against reverse, central differences) and
printing OK:

* ``cblas_rules.c``: every level-1/2/3 rule through CBLAS, both layouts, every
  transposition, double and float, active and inactive operands;
* ``fortran_rules.c``: the same through the Fortran interface, plus potrf/potrs;
* ``flang_rules.c`` + ``flang_kernel.f90``: BLAS called from Fortran source (flang passes
  hidden string lengths);
* ``lapacke_rules.c``: LAPACKE's potrf/potrs, row- and column-major;
* ``lu_rules.c``: getrf of rectangular matrices (m > n and m < n; Fortran and LAPACKE,
  both layouts) and gesv (Fortran and LAPACKE), active and inactive operands;
* ``modes.c``: vector forward mode (width 2) against width 1, split reverse mode with the
  inputs overwritten between the passes against the combined mode;
* ``getri_rules.c``: getrf then getri (the inverse; Fortran with its workspace query,
  LAPACKE in both layouts, double and float), the inverse used by dgemm, active and
  inactive operands;
* ``gauss_newton.c``: a Gauss-Newton fit with dgemm/dpotrf/dpotrs differentiated end to
  end with respect to the data;
* ``gp_loglik.c``: a Gaussian process's negative log likelihood through getrf (log
  determinant) and getri (the inverse covariance), Fortran and LAPACKE, against central
  differences and the textbook derivative;
* ``index_routines.c``: i?amax/i?amin (CBLAS and Fortran, real and complex) inside
  differentiated code: no derivative of their own, the picked element's flows.

Each program is compiled once per level (a session-wide pool of two workers); a missing
compiler or library fails the build, it is never skipped."""

from __future__ import annotations

import subprocess
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from warm_cli import irgrad_command

HERE = Path(__file__).resolve().parent
# program -> (Fortran sources and libraries built with it, how many rule checks it
# prints at least)
PROGRAMS = {"cblas_rules": ((), 50), "fortran_rules": ((), 34),
            "flang_rules": (("flang_kernel.f90",), 4), "gauss_newton": ((), 0),
            "modes": ((), 0), "lapacke_rules": (("-llapacke",), 4),
            "lu_rules": (("-llapacke",), 11), "getri_rules": (("-llapacke",), 11),
            "gp_loglik": (("-llapacke",), 2), "index_routines": ((), 0)}
LEVELS = ["O0", "O1", "O2", "O3"]
_BUILD = Path(tempfile.mkdtemp(prefix="irgrad-blas-"))
_POOL = ThreadPoolExecutor(max_workers=2)
_BUILDS: dict[tuple[str, str], Future[subprocess.CompletedProcess[str]]] = {}


def _compile(prog: str, level: str) -> subprocess.CompletedProcess[str]:
    exe = _BUILD / f"{prog}.{level}"
    return subprocess.run(
        [*irgrad_command(), "cc", f"-{level}", "-Wall", "-Werror",
         str(HERE / f"{prog}.c"),
         *(f if f.startswith("-l") else str(HERE / f) for f in PROGRAMS[prog][0]), "-o",
         str(exe), "-lopenblas", "-lm"],
        capture_output=True, text=True, timeout=900)


def build(prog: str, level: str) -> Path:
    """The program built at ``level`` (every build is started on first use)."""
    if not _BUILDS:
        for p in PROGRAMS:
            for lv in LEVELS:
                _BUILDS[p, lv] = _POOL.submit(_compile, p, lv)
    cc = _BUILDS[prog, level].result()
    assert cc.returncode == 0, f"irgrad cc failed:\n{cc.stderr[-3000:]}"
    return _BUILD / f"{prog}.{level}"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("prog", PROGRAMS)
def test_blas_program(prog: str, level: str) -> None:
    run = subprocess.run([str(build(prog, level))], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), \
        f"exit {run.returncode}\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
    checks = [ln for ln in run.stdout.splitlines() if " reverse " in ln]
    assert len(checks) >= PROGRAMS[prog][1], run.stdout  # every rule check ran
    assert not any("MISMATCH" in ln for ln in checks)
