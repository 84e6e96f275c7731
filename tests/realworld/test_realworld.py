"""Programs written the way public numerical code is written (see README.md), each
checking its own derivatives (central differences, forward against reverse) and printing
OK, at -O0, -O1, -O2, -O3 and -O3 -march=native, two ways:

* ``python -m irgrad cc prog -O{n} -o exe`` then ``./exe``;
* ``clang(++)-22 -S -emit-llvm -O{n} -Xclang -disable-llvm-passes prog | python -m irgrad
  opt - -S | lli-22`` (lli resolves libm and libstdc++ from its own process).

Every program in ``errors/`` is rejected by ``irgrad cc -g -O2`` with exit status 2, its
``// EXPECT-ERROR:`` text and the file:line of the line marked ``// ERROR-LINE``.

One test is one compilation, so pytest-xdist spreads them over the workers.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from irgrad.toolchain import enzyme_include_dir

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROGRAMS = sorted([*HERE.glob("*.c"), *HERE.glob("*.cpp")])
ERRORS = sorted([*(HERE / "errors").glob("*.c"), *(HERE / "errors").glob("*.cpp")])
LEVELS = {
    "O0": ["-O0"],
    "O1": ["-O1"],
    "O2": ["-O2"],
    "O3": ["-O3"],
    "O3-native": ["-O3", "-march=native"],
}
ROUTES = ["cc", "opt"]
PY = sys.executable
INCLUDE = str(enzyme_include_dir())

# Programs that need another engineer's work in flight (they fail with a clear error, exit
# status 2, until it lands; anything else -- a crash, a wrong number -- fails the test):
# nested AD whose inner calls must be lowered first and reverse over reverse (issue 13).
NEEDS_NESTED_AD = {"particle_nested.cpp"}


def _run(cmd: list[str], timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          check=False)


def _compiler(prog: Path) -> str:
    return "clang++-22" if prog.suffix == ".cpp" else "clang-22"


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("level", list(LEVELS))
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_program(prog: Path, level: str, route: str, tmp_path: Path) -> None:
    flags = LEVELS[level]
    if route == "cc":
        exe = tmp_path / f"{prog.stem}.exe"
        cc = _run([PY, "-m", "irgrad", "cc", f"-I{INCLUDE}", f"-I{HERE}", str(prog), *flags,
                   "-o", str(exe), "-lm"])
        if cc.returncode == 2 and prog.name in NEEDS_NESTED_AD:
            assert "error:" in cc.stderr and "Traceback" not in cc.stderr, cc.stderr
            return
        assert cc.returncode == 0, f"irgrad cc failed ({cc.returncode}): {cc.stderr[-3000:]}"
        run = _run([str(exe)], timeout=120)
    else:
        pipe = (
            f"{_compiler(prog)} -S -emit-llvm {' '.join(flags)} -Xclang -disable-llvm-passes "
            f"-fno-discard-value-names -I{INCLUDE} -I{HERE} {prog} -o - "
            f"| {PY} -m irgrad opt - -S | lli-22"
        )
        run = _run(["bash", "-o", "pipefail", "-c", pipe])
        if run.returncode != 0 and prog.name in NEEDS_NESTED_AD and "error:" in run.stderr:
            assert "Traceback" not in run.stderr, run.stderr
            return
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), (
        f"exit {run.returncode}: {run.stdout[-2000:]}{run.stderr[-3000:]}")


def test_programs_exist() -> None:
    names = {p.name for p in PROGRAMS}
    assert {"rkf45_callback.c", "dopri5_functor.cpp", "lstm_const_state.c",
            "map_lookup_accessors.cpp"} <= names
    assert len(ERRORS) >= 3


@pytest.mark.parametrize("prog", ERRORS, ids=lambda p: p.name)
def test_error_program(prog: Path, tmp_path: Path) -> None:
    text = prog.read_text()
    m = re.search(r"EXPECT-ERROR: (.*)", text)
    assert m is not None, prog
    expected = m.group(1).strip()
    line = next(k for k, ln in enumerate(text.splitlines(), 1) if "ERROR-LINE" in ln)
    cc = _run([PY, "-m", "irgrad", "cc", "-g", "-O2", f"-I{INCLUDE}", str(prog), "-o",
               str(tmp_path / "exe"), "-lm"], timeout=300)
    assert cc.returncode == 2, cc.stdout + cc.stderr
    assert "Traceback" not in cc.stderr and " object at 0x" not in cc.stderr, cc.stderr
    assert expected in cc.stderr, cc.stderr
    assert re.search(rf"{re.escape(prog.name)}:{line}:\d+: error: ", cc.stderr), cc.stderr



@pytest.mark.parametrize("level", ["O0", "O2"])
def test_callback_from_native_code(level: str, tmp_path: Path) -> None:
    """A callback whose address only native code takes (native_callback/plugin.c is not
    IR): the derivative calls through the shadow the user made with
    ``__enzyme_virtualreverse`` (Enzyme's table ``{augmented, reverse}``)."""
    src = HERE / "native_callback"
    plugin = tmp_path / "plugin.o"
    cc = _run(["clang-22", f"-{level}", "-c", str(src / "plugin.c"), "-o", str(plugin)])
    assert cc.returncode == 0, cc.stderr
    exe = tmp_path / "main"
    cc = _run([PY, "-m", "irgrad", "cc", f"-{level}", str(src / "main.c"), str(plugin), "-o",
               str(exe), "-lm"])
    assert cc.returncode == 0, cc.stderr[-3000:]
    run = _run([str(exe)], timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "OK", run.stdout + run.stderr
