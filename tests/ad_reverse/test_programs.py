"""Every C program in tests/ad_programs (and in tests/ad_api/programs: Enzyme's entry
points, markers and hints) runs correctly after AD, at -O0..-O3, two ways:

* ``python -m irgrad cc prog.c -O{n} -o exe -lm`` then ``./exe`` (must print OK);
* ``clang-22 -S -emit-llvm -O{n} -Xclang -disable-llvm-passes -fno-discard-value-names
  prog.c | python -m irgrad opt - -S | lli-22`` (must print OK), at -O0 and -O2 only.

The second route checks what the first does not: IR text on a pipe and execution by
LLVM's JIT. It differentiates at ``irgrad opt``'s default level, so its level is the front
end's, and clang writes the same IR at -O2 and -O3 (``test_front_end_o3_is_o2`` keeps
that true) and at -O1 only adds ``llvm.loop.unroll.disable`` to loops, which the first
route runs at -O1; its -O1 and -O3 runs repeated -O2's.

and every program in tests/ad_programs/errors is rejected (exit 2) with its
``// EXPECT-ERROR:`` text. All compilations run once per session on a thread pool.

A program ``prog.c`` may come with an "opaque library" ``prog.lib.c`` beside it: compiled
natively by clang-22 (never seen by irgrad as IR) and linked in (``irgrad cc prog.c
lib.o``; ``lli-22 --extra-object lib.o``), the way a program calls a routine of a
prebuilt library.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest

from irgrad.toolchain import enzyme_include_dir
from warm_cli import irgrad_command, irgrad_shell

# one worker builds the whole corpus (a session fixture): the group keeps the other
# from building it again
pytestmark = pytest.mark.xdist_group("reverse_programs")

K = TypeVar("K")

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "tests" / "ad_programs").glob("*.c"))
API_PROGRAMS = sorted((ROOT / "tests" / "ad_api" / "programs").glob("*.c"))
ALL_PROGRAMS = PROGRAMS + API_PROGRAMS
ERRORS = sorted((ROOT / "tests" / "ad_programs" / "errors").glob("*.c"))
LEVELS = ["O0", "O1", "O2", "O3"]
ROUTES = ["cc", "opt"]
OPT_ROUTE_LEVELS = ("O0", "O2")  # see the module's docstring
# (level, route) of every case of a program
CASES = [(lv, r) for lv in LEVELS for r in ROUTES if r == "cc" or lv in OPT_ROUTE_LEVELS]
INCLUDE = str(enzyme_include_dir())

# Programs that do not pass yet (reported; not skipped: their cases still run and fail).
KNOWN_FAILING: list[str] = []


def _run(cmd: list[str] | str, *, shell: bool = False, timeout: int = 120
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, shell=shell, capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT)


def _library(prog: Path, obj: str) -> str | None:
    """Compile ``prog``'s opaque library (``<stem>.lib.c``) natively to ``obj``; None when
    the program has none."""
    src = prog.with_name(prog.stem + ".lib.c")
    if not src.exists():
        return None
    cc = _run(["clang-22", "-O2", "-fPIC", "-c", str(src), "-o", obj])
    assert cc.returncode == 0, cc.stderr
    return obj


def _case(prog: Path, level: str, route: str, tmp: str) -> str:
    """'' on success, else a description of the failure."""
    lib = _library(prog, os.path.join(tmp, f"{prog.stem}.{level}.{route}.lib.o"))
    if route == "cc":
        exe = os.path.join(tmp, f"{prog.stem}.{level}.exe")
        cc = _run([*irgrad_command(), "cc", f"-I{INCLUDE}", str(prog), *([lib] if lib else []),
                   f"-{level}", "-o", exe, "-lm"])
        if cc.returncode != 0:
            return f"irgrad cc failed ({cc.returncode}): {cc.stderr[-2000:]}"
        run = _run([exe], timeout=60)
    else:
        extra = f" --extra-object={lib}" if lib else ""
        pipe = (
            f"clang-22 -S -emit-llvm -{level} -Xclang -disable-llvm-passes "
            f"-fno-discard-value-names -I{INCLUDE} {prog} -o - | {irgrad_shell()} opt - -S "
            f"| lli-22{extra}"
        )
        run = _run(["bash", "-o", "pipefail", "-c", pipe])
    if run.returncode != 0 or "OK" not in run.stdout:
        return f"exit {run.returncode}: {run.stdout[-1000:]}{run.stderr[-2000:]}"
    return ""


def run_all(cases: dict[K, Callable[[], str]]) -> dict[K, str]:
    """Run each case (a callable returning '' or a failure) on a thread pool; a case whose
    subprocess times out reports "timed out"."""
    results: dict[K, str] = {}
    with ThreadPoolExecutor(max_workers=max(2, (os.cpu_count() or 2) + 1)) as pool:
        futures = {key: pool.submit(case) for key, case in cases.items()}
        for key, fut in futures.items():
            try:
                results[key] = fut.result()
            except subprocess.TimeoutExpired:
                results[key] = "timed out"
    return results


_RESULTS: dict[tuple[str, str, str], str] = {}


@pytest.fixture(scope="session")
def program_results() -> dict[tuple[str, str, str], str]:
    if not _RESULTS:
        with tempfile.TemporaryDirectory() as tmp:
            _RESULTS.update(run_all({
                (p.stem, lv, r): functools.partial(_case, p, lv, r, tmp)
                for p in ALL_PROGRAMS for lv, r in CASES
            }))
    return _RESULTS


def test_programs_exist() -> None:
    assert len(PROGRAMS) >= 50
    assert len(API_PROGRAMS) >= 6
    assert len(ERRORS) >= 10
    assert len({p.stem for p in ALL_PROGRAMS}) == len(ALL_PROGRAMS)


# Open bugs (program, level, route) -> what goes wrong (none open today; a new one is a
# strict xfail here until it is fixed)
OPEN_BUGS: dict[object, str] = {}


def _open_bug(request: pytest.FixtureRequest, key: object) -> None:
    """Open bugs are strict xfails: the run fails when one starts to pass (delete it)."""
    why = OPEN_BUGS.get(key)  # type: ignore[call-overload]
    if why:
        request.applymarker(pytest.mark.xfail(strict=True, reason=why))


@pytest.mark.parametrize(("level", "route"), CASES)
@pytest.mark.parametrize("prog", [p.stem for p in ALL_PROGRAMS])
def test_program(prog: str, level: str, route: str, request: pytest.FixtureRequest,
                 program_results: dict[tuple[str, str, str], str]) -> None:
    _open_bug(request, (prog, level, route))
    failure = program_results[(prog, level, route)]
    assert failure == "", f"{prog} -{level} via {route}: {failure}"


def test_front_end_o3_is_o2(tmp_path: Path) -> None:
    """clang writes the same IR at -O2 and -O3 when LLVM's passes are off (why the opt
    route skips -O3): if a new clang starts to differ, the route must run -O3 again."""
    prog = ROOT / "tests" / "ad_programs" / "loop_nested_matvec.c"
    texts = []
    for level in ("O2", "O3"):
        out = tmp_path / f"{level}.ll"
        cc = _run(["clang-22", "-S", "-emit-llvm", f"-{level}", "-Xclang",
                   "-disable-llvm-passes", "-fno-discard-value-names", f"-I{INCLUDE}",
                   str(prog), "-o", str(out)])
        assert cc.returncode == 0, cc.stderr
        texts.append(out.read_text())
    assert texts[0] == texts[1]


def _expected_error(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("// EXPECT-ERROR:"), path
    return first.split(":", 1)[1].strip()




@pytest.mark.parametrize("prog", ERRORS, ids=[p.stem for p in ERRORS])
def test_error_program(prog: Path, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    _open_bug(request, prog.stem)
    expected = _expected_error(prog)
    cc = _run([*irgrad_command(), "cc", f"-I{INCLUDE}", str(prog), "-O2", "-o",
               str(tmp_path / "exe"), "-lm"])
    assert cc.returncode == 2, cc.stdout + cc.stderr
    assert expected in cc.stderr
    assert "Traceback" not in cc.stderr
    # IR syntax, never a Python repr (tests/test_diagnostics_readable.py: the opt route)
    assert not re.search(r"object at 0x|<[A-Z]\w*(Inst|Argument|Constant\w*|Value)\b",
                         cc.stderr), cc.stderr
