"""Programs written the way public numerical code is written (see README.md: solvers with
callbacks, C++ classes and virtual functions, the standard library, Boost.Odeint, Eigen,
VLAs, heap buffers freed mid-computation), each checking its own derivatives (central
differences, forward against reverse) and printing OK:

* ``python -m irgrad cc prog -O{n} -o exe`` then ``./exe``, at -O0, -O1, -O2, -O3 and
  -O3 -march=native;
* ``clang(++)-22 -S -emit-llvm -O{n} -Xclang -disable-llvm-passes prog | python -m irgrad
  opt - -S | lli-22`` (lli resolves libm and libstdc++ from its own process), at -O0 and
  -O2 (the two shapes a front end hands over: unoptimized and optimized IR);
* every C program also as *vectorized* IR: ``clang-22 -O3 -march=native -ffast-math -S
  -emit-llvm | irgrad opt - | lli-22`` (the vector reductions, gathers and scatters that
  vectorization emits).

A program's leading comment may say ``// FLAGS: ...`` (extra compiler flags, e.g. include
directories) and ``// SANITIZE: address,undefined`` (also built at -O1 with those
sanitizers, ``-fno-sanitize-recover=all``, leak detection on, and run clean); a level after
the sanitizers (``// SANITIZE: undefined -O0``) builds at that level instead, and there may
be several such lines. The sanitizers' checks change what is inlined and what LLVM folds
before AD (a Boost.Odeint stepper stays out of line, iterators cross calls as integers).

Every program in ``errors/`` is rejected by ``irgrad cc -g -O2`` with exit status 2, its
``// EXPECT-ERROR:`` text and the file:line of the line marked ``// ERROR-LINE``.

One test is one compilation, so pytest-xdist spreads them over the workers.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from irgrad.toolchain import enzyme_include_dir
from warm_cli import irgrad_command, irgrad_shell

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
OPT_LEVELS = ["O0", "O2"]
# Open bugs, each a strict xfail (the run fails when one starts to pass: delete its entry)
# with what goes wrong. Keys: (program, level or "sanitized-O1" / "sanitized-O0"..., route).
OPEN_BUGS: dict[tuple[str, str, str], str] = {}


def _open_bug(prog: Path, level: str, route: str) -> list[pytest.MarkDecorator]:
    why = OPEN_BUGS.get((prog.name, level, route))
    return [pytest.mark.xfail(strict=True, reason=why)] if why else []


def _case(prog: Path, level: str, route: str) -> object:
    return pytest.param(prog, level, route, marks=_open_bug(prog, level, route),
                        id=f"{prog.name}-{level}-{route}")


CASES = [_case(prog, level, "cc") for prog in PROGRAMS for level in LEVELS] + [
    _case(prog, level, "opt") for prog in PROGRAMS for level in OPT_LEVELS]
INCLUDE = str(enzyme_include_dir())
RUN_ENV = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}


def _directives(prog: Path, key: str) -> list[str]:
    return [line.split(":", 1)[1].strip() for line in prog.read_text().splitlines()[:30]
            if line.startswith(f"// {key}:")]


def _directive(prog: Path, key: str) -> str | None:
    found = _directives(prog, key)
    return found[0] if found else None


def _flags(prog: Path) -> list[str]:
    return shlex.split(_directive(prog, "FLAGS") or "")


def _run(cmd: list[str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env=RUN_ENV, check=False)


def _compiler(prog: Path) -> str:
    return "clang++-22" if prog.suffix == ".cpp" else "clang-22"


def _build_and_run(prog: Path, flags: list[str], exe: Path) -> subprocess.CompletedProcess[str]:
    cc = _run([*irgrad_command(), "cc", f"-I{INCLUDE}", f"-I{HERE}", *_flags(prog),
               str(prog), *flags, "-o", str(exe), "-lm"])
    assert cc.returncode == 0, f"irgrad cc failed ({cc.returncode}): {cc.stderr[-3000:]}"
    return _run([str(exe)], timeout=300)


def _check(run: subprocess.CompletedProcess[str]) -> None:
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), (
        f"exit {run.returncode}: {run.stdout[-2000:]}{run.stderr[-3000:]}")


@pytest.mark.parametrize(("prog", "level", "route"), CASES)
def test_program(prog: Path, level: str, route: str, tmp_path: Path) -> None:
    flags = LEVELS[level]
    if route == "cc":
        run = _build_and_run(prog, flags, tmp_path / f"{prog.stem}.exe")
    else:
        pipe = (
            f"{_compiler(prog)} -S -emit-llvm {' '.join(flags)} -Xclang -disable-llvm-passes "
            f"-fno-discard-value-names -I{INCLUDE} -I{HERE} {shlex.join(_flags(prog))} "
            f"{prog} -o - | {irgrad_shell()} opt - -S | lli-22"
        )
        run = _run(["bash", "-o", "pipefail", "-c", pipe])
    _check(run)


def _sanitized_builds(prog: Path) -> list[tuple[str, str]]:
    """(sanitizers, level) of each SANITIZE line (the level defaults to -O1)."""
    builds = []
    for line in _directives(prog, "SANITIZE"):
        sanitizers, _, level = line.partition(" ")
        builds.append((sanitizers, level.strip() or "-O1"))
    return builds


SANITIZED = [(p, s, level) for p in PROGRAMS for s, level in _sanitized_builds(p)]


@pytest.mark.parametrize(("prog", "sanitizers", "level"), [
    pytest.param(p, s, level, marks=_open_bug(p, f"sanitized{level}", "cc"),
                 id=f"{p.name}{level}") for p, s, level in SANITIZED])
def test_program_sanitized(prog: Path, sanitizers: str, level: str, tmp_path: Path) -> None:
    """Built with the sanitizers its SANITIZE line names: no leak, no bad access."""
    flags = [level, "-g", f"-fsanitize={sanitizers}", "-fno-sanitize-recover=all"]
    _check(_build_and_run(prog, flags, tmp_path / f"{prog.stem}.san"))


@pytest.mark.parametrize("prog", [
    pytest.param(p, marks=_open_bug(p, "vectorized", "opt"), id=p.name)
    for p in PROGRAMS if p.suffix == ".c"])
def test_program_vectorized(prog: Path) -> None:
    pipe = (f"clang-22 -S -emit-llvm -O3 -march=native -ffast-math -w -I{INCLUDE} "
            f"{shlex.join(_flags(prog))} {prog} -o - | {irgrad_shell()} opt - -S | lli-22")
    _check(_run(["bash", "-o", "pipefail", "-c", pipe]))


def test_programs_exist() -> None:
    names = {p.name for p in PROGRAMS}
    assert {"rkf45_callback.c", "dopri5_functor.cpp", "lstm_const_state.c",
            "map_lookup_accessors.cpp", "lulesh_mini.cpp", "odeint_lorenz.cpp",
            "eigen_least_squares.cpp", "cout_logging.cpp", "spectral_norm_vla.c",
            "rkf45_adaptive.c", "uint64_roundtrip.c", "simd_kernels.c",
            "particle_nested.cpp", "rk_iterator_algebra.cpp", "arena_integer_addresses.c",
            "trial_state_copies.cpp"} <= names
    assert len(ERRORS) >= 3 and SANITIZED


@pytest.mark.parametrize("prog", ERRORS, ids=lambda p: p.name)
def test_error_program(prog: Path, tmp_path: Path) -> None:
    text = prog.read_text()
    m = re.search(r"EXPECT-ERROR: (.*)", text)
    assert m is not None, prog
    expected = m.group(1).strip()
    line = next(k for k, ln in enumerate(text.splitlines(), 1) if "ERROR-LINE" in ln)
    cc = _run([*irgrad_command(), "cc", "-g", "-O2", f"-I{INCLUDE}", *_flags(prog), str(prog),
               "-o", str(tmp_path / "exe"), "-lm"], timeout=300)
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
    cc = _run([*irgrad_command(), "cc", f"-{level}", str(src / "main.c"), str(plugin), "-o",
               str(exe), "-lm"])
    assert cc.returncode == 0, cc.stderr[-3000:]
    run = _run([str(exe)], timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "OK", run.stdout + run.stderr
