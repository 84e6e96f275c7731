"""Forward-mode C programs (tests/ad_forward/programs): each checks its tangents against
central differences computed in the program and aborts on a mismatch.

Every program is built with ``irgrad cc`` at -O0..-O3 and also run through
``clang-22 -O2 -Xclang -disable-llvm-passes | irgrad opt | lli-22``. The builds run in
parallel once per session; each (program, route) is one test.
"""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from warm_cli import irgrad_command

# one worker builds the whole corpus (a session fixture): the group keeps the other
# from building it again
pytestmark = pytest.mark.xdist_group("forward_programs")

PROGRAMS = Path(__file__).parent / "programs"
SOURCES = sorted(PROGRAMS.glob("*.c"))
ROUTES = ("cc-O0", "cc-O1", "cc-O2", "cc-O3", "lli-O2")


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300, **kw)


def _build_and_run(src: Path, route: str, workdir: Path) -> tuple[int, str]:
    """Return (exit status, combined output) of building and running ``src``."""
    if route.startswith("cc"):
        exe = workdir / f"{src.stem}-{route}"
        level = route.split("-")[1]
        build = _run([*irgrad_command(), "cc", str(src), f"-{level}",
                      "-o", str(exe), "-lm"])
        if build.returncode != 0:
            return build.returncode, "build: " + build.stdout + build.stderr
        run = _run([str(exe)])
        return run.returncode, run.stdout + run.stderr
    ir_text = _run(["clang-22", "-S", "-emit-llvm", "-O2", "-Xclang", "-disable-llvm-passes",
                    f"-I{PROGRAMS}", str(src), "-o", "-"])
    if ir_text.returncode != 0:
        return ir_text.returncode, ir_text.stderr
    lowered = _run([*irgrad_command(), "opt", "-", "-S"], input=ir_text.stdout)
    if lowered.returncode != 0:
        return lowered.returncode, "opt: " + lowered.stderr
    if re.search(r"@(__)?enzyme_", lowered.stdout):
        return 1, "a reference to an enzyme marker or entry point remains"
    run = _run(["lli-22"], input=lowered.stdout)
    return run.returncode, run.stdout + run.stderr


@cache
def _results(workdir: str) -> dict[tuple[str, str], tuple[int, str]]:
    jobs = [(src, route) for src in SOURCES for route in ROUTES]
    with ThreadPoolExecutor(max_workers=4) as pool:
        outs = list(pool.map(lambda j: _build_and_run(j[0], j[1], Path(workdir)), jobs))
    return {(src.name, route): out for (src, route), out in zip(jobs, outs, strict=True)}


@pytest.fixture(scope="session")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[int, str]]:
    return _results(str(tmp_path_factory.mktemp("ad_forward")))


def test_enough_programs() -> None:
    assert len(SOURCES) >= 25


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("src", [s.name for s in SOURCES])
def test_program(results: dict[tuple[str, str], tuple[int, str]], src: str, route: str) -> None:
    status, output = results[(src, route)]
    assert status == 0, output
    assert output.strip().endswith("OK"), output
