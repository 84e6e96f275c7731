"""OpenMP programs (``-fopenmp``) differentiate: parallel regions run serially inside the
derivative (:mod:`irgrad.ad.core.openmp_serial`) while the user's own functions keep
their parallel regions; atomic updates of floating-point accumulators (``omp atomic``,
C11 ``_Atomic double``, ``std::atomic<double>``) differentiate in both modes. Each program checks its reverse and forward derivatives against
finite differences itself and prints OK; it runs with three OpenMP threads, at -O0..-O3.
Constructs irgrad does not run serially (tasks, ordered regions) stop with a located
error naming the construct."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from warm_cli import irgrad_command

HERE = Path(__file__).resolve().parent
LEVELS = ("O0", "O1", "O2", "O3")
PROGRAMS = {  # name: the sources of one program (and its flags)
    "heat_reductions": ["heat_reductions.c"],
    "histogram_schedules": ["histogram_schedules.c"],
    "particles_parallel": ["particles_parallel.cpp"],
    "energy_parallel_do": ["energy_parallel_do.f90", "energy_parallel_do_main.c"],
    "c11_atomic_energy": ["c11_atomic_energy.c"],
    "atomic_accumulators": ["atomic_accumulators.cpp", "-std=c++20"],
    "firstprivate_scaling": ["firstprivate_scaling.c"],
}
ERRORS = sorted((HERE / "errors").glob("*.c"))


def _build(sources: list[str], level: str, out: Path, *extra: str
           ) -> subprocess.CompletedProcess[str]:
    files = [str(HERE / s) if not s.startswith("-") else s for s in sources]
    return subprocess.run([*irgrad_command(), "cc", f"-{level}", "-fopenmp", *files, *extra,
                           "-o", str(out), "-lm"],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_openmp_program(name: str, level: str, tmp_path: Path) -> None:
    exe = tmp_path / name
    cc = _build(PROGRAMS[name], level, exe)
    assert cc.returncode == 0, cc.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OMP_NUM_THREADS": "3"})
    assert run.returncode == 0 and "OK" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]


def test_primal_stays_parallel(tmp_path: Path) -> None:
    """Only the derivative runs serially: the user's function keeps its forks (-O0: the
    derivatives stay functions of their own)."""
    out = tmp_path / "heat.ll"
    cc = _build(["heat_reductions.c"], "O0", out, "-S", "-emit-llvm")
    assert cc.returncode == 0, cc.stderr[-3000:]
    text = out.read_text()
    body = re.search(r"^define [^\n]*@simulate\(.*?^}", text, re.S | re.M)
    assert body is not None
    assert body.group(0).count("@__kmpc_fork_call(") == 3  # step, weighted_norm, energy
    derivatives = re.findall(r"^define [^\n]*@(?:diffe|fwddiffe|augmented|reverse)_[^\n]*\n.*?^}", text,
                             re.S | re.M)
    assert len(derivatives) >= 8 and not any("__kmpc_fork_call" in d for d in derivatives)


@pytest.mark.parametrize("prog", ERRORS, ids=[p.stem for p in ERRORS])
def test_unsupported_construct(prog: Path, tmp_path: Path) -> None:
    expected = re.search(r"// EXPECT-ERROR: (.*)", prog.read_text())
    assert expected is not None
    cc = subprocess.run([*irgrad_command(), "cc", "-O2", "-fopenmp", str(prog), "-o",
                         str(tmp_path / "exe"), "-lm"], capture_output=True, text=True,
                        timeout=600)
    assert cc.returncode != 0
    assert expected.group(1).strip() in cc.stderr, cc.stderr
    assert re.search(rf"{re.escape(prog.name)}:\d+:\d+: error: __kmpc_", cc.stderr), cc.stderr
    assert "Traceback" not in cc.stderr and "no input of this link defines" not in cc.stderr
