"""Programs written the way public numerical code is written (solvers, C++ classes, the
standard library, Boost.Odeint, Eigen, VLAs, heap buffers freed mid-computation), each
checking its derivatives against central differences and forward mode and printing OK.

Every ``*.c`` / ``*.cpp`` here is built with ``python -m irgrad cc`` at -O0, -O1, -O2,
-O3 and -O3 -march=native, then run. A program's leading comment may say

* ``// FLAGS: ...``: extra compiler flags (include directories);
* ``// SANITIZE: address,undefined``: also build it with those sanitizers
  (``-fsanitize=...``, ``-fno-sanitize-recover=all``, leak detection on) and run it clean;

and every C program is also differentiated as *vectorized* IR: ``clang-22 -O3
-march=native -ffast-math -S -emit-llvm | irgrad opt - | lli-22`` (the vector reductions,
gathers and scatters that vectorization emits, as a front end hands them to irgrad).
All builds run once per session on a thread pool.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROGRAMS = sorted([*HERE.glob("*.c"), *HERE.glob("*.cpp")])
CONFIGS: dict[str, list[str]] = {
    "O0": ["-O0"],
    "O1": ["-O1"],
    "O2": ["-O2"],
    "O3": ["-O3"],
    "O3-native": ["-O3", "-march=native"],
}
PY = sys.executable
RUN_ENV = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}


def _directive(prog: Path, key: str) -> str | None:
    for line in prog.read_text().splitlines()[:30]:
        if line.startswith(f"// {key}:"):
            return line.split(":", 1)[1].strip()
    return None


def _flags(prog: Path) -> list[str]:
    return shlex.split(_directive(prog, "FLAGS") or "")


def _run(cmd: list[str] | str, timeout: int, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env=RUN_ENV, **kw)  # type: ignore[call-overload]


def _build_and_run(prog: Path, flags: list[str], exe: str) -> str:
    """'' when the program built and printed OK, else what went wrong."""
    libs = ["-lm"] if prog.suffix == ".c" else []
    cc = _run([PY, "-m", "irgrad", "cc", *_flags(prog), *flags, str(prog), "-o", exe, *libs],
              timeout=1500)
    if cc.returncode != 0:
        return f"irgrad cc failed ({cc.returncode}): {cc.stderr[-3000:]}"
    run = _run([exe], timeout=300)
    if run.returncode != 0 or "OK" not in run.stdout:
        return f"exit {run.returncode}: {run.stdout[-1000:]}{run.stderr[-3000:]}"
    return ""


def _vectorized(prog: Path) -> str:
    pipe = (f"clang-22 -S -emit-llvm -O3 -march=native -ffast-math -w {prog} -o - "
            f"| {PY} -m irgrad opt - -S | lli-22")
    run = _run(["bash", "-o", "pipefail", "-c", pipe], timeout=900)
    if run.returncode != 0 or "OK" not in run.stdout:
        return f"exit {run.returncode}: {run.stdout[-1000:]}{run.stderr[-3000:]}"
    return ""


def _cases(tmp: str) -> dict[tuple[str, str], object]:
    cases: dict[tuple[str, str], object] = {}
    for prog in PROGRAMS:
        for name, flags in CONFIGS.items():
            exe = os.path.join(tmp, f"{prog.stem}.{name}")
            cases[(prog.name, name)] = (_build_and_run, prog, flags, exe)
        sanitizers = _directive(prog, "SANITIZE")
        if sanitizers:
            flags = ["-O1", "-g", f"-fsanitize={sanitizers}", "-fno-sanitize-recover=all"]
            exe = os.path.join(tmp, f"{prog.stem}.san")
            cases[(prog.name, "sanitize")] = (_build_and_run, prog, flags, exe)
        if prog.suffix == ".c":
            cases[(prog.name, "vectorized")] = (_vectorized, prog)
    return cases


_RESULTS: dict[tuple[str, str], str] = {}


@pytest.fixture(scope="session")
def realworld_results() -> dict[tuple[str, str], str]:
    if not _RESULTS:
        with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=3) as pool:
            futures = {key: pool.submit(*case) for key, case in _cases(tmp).items()}  # type: ignore[misc]
            for key, fut in futures.items():
                try:
                    _RESULTS[key] = fut.result()
                except subprocess.TimeoutExpired:
                    _RESULTS[key] = "timed out"
    return _RESULTS


def test_programs_exist() -> None:
    names = {p.name for p in PROGRAMS}
    assert {"lulesh_mini.cpp", "odeint_lorenz.cpp", "eigen_least_squares.cpp",
            "cout_logging.cpp", "spectral_norm_vla.c", "rkf45_adaptive.c",
            "uint64_roundtrip.c", "simd_kernels.c"} <= names
    assert any(_directive(p, "SANITIZE") for p in PROGRAMS)


def _all_cases() -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        return list(_cases(tmp))


@pytest.mark.parametrize(("prog", "config"), _all_cases(), ids=lambda v: str(v))
def test_realworld_program(prog: str, config: str,
                           realworld_results: dict[tuple[str, str], str]) -> None:
    failure = realworld_results[(prog, config)]
    assert failure == "", f"{prog} [{config}]: {failure}"
