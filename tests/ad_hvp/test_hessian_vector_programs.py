"""Hessian-vector products by forward over reverse (tests/ad_hvp/programs): a function
that calls ``__enzyme_autodiff`` differentiated with ``__enzyme_fwddiff`` (the inner call
is lowered first). Each program checks H v against central differences of its gradient
(and, where one is written, the exact Hessian) and aborts on a mismatch; one builds a full
Hessian by N forward passes and again with ``enzyme_width``.

Routes: ``irgrad cc -O{n}`` and ``clang-22 -O{n} -Xclang -disable-llvm-passes |
irgrad opt -O{n} | lli-22``, n = 0..3.
"""

from __future__ import annotations

import atexit
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from warm_cli import irgrad_command

PROGRAMS = Path(__file__).parent / "programs"
SOURCES = sorted(PROGRAMS.glob("*.c"))
ROUTES = tuple(f"{route}-O{n}" for route in ("cc", "lli") for n in range(4))


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300,
                          **kw)  # type: ignore[call-overload]


def _build_and_run(src: Path, route: str, workdir: Path) -> tuple[int, str]:
    kind, level = route.split("-")
    if kind == "cc":
        exe = workdir / f"{src.stem}-{route}"
        build = _run([*irgrad_command(), "cc", str(src), f"-{level}", "-o",
                      str(exe), "-lm"])
        if build.returncode != 0:
            return build.returncode, "build: " + build.stdout + build.stderr
        run = _run([str(exe)])
        return run.returncode, run.stdout + run.stderr
    ir_text = _run(["clang-22", "-S", "-emit-llvm", f"-{level}", "-Xclang",
                    "-disable-llvm-passes", f"-I{PROGRAMS}", str(src), "-o", "-"])
    if ir_text.returncode != 0:
        return ir_text.returncode, ir_text.stderr
    lowered = _run([*irgrad_command(), "opt", "-", "-S", f"-{level}"],
                   input=ir_text.stdout)
    if lowered.returncode != 0:
        return lowered.returncode, "opt: " + lowered.stderr
    if re.search(r"@(__)?enzyme_", lowered.stdout):
        return 1, "a reference to an enzyme marker or entry point remains"
    run = _run(["lli-22"], input=lowered.stdout)
    return run.returncode, run.stdout + run.stderr


@cache
def _results() -> dict[tuple[str, str], tuple[int, str]]:
    workdir = Path(tempfile.mkdtemp(prefix="irgrad-hvp-"))
    atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    jobs = [(src, route) for src in SOURCES for route in ROUTES]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outs = list(pool.map(lambda j: _build_and_run(j[0], j[1], workdir), jobs))
    return {(src.name, route): out for (src, route), out in zip(jobs, outs, strict=True)}


def test_programs_present() -> None:
    names = {s.stem for s in SOURCES}
    assert {"hvp_rosenbrock", "hvp_logsumexp", "hvp_nn_loss", "hessian_full_width"} <= names


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("src", [s.name for s in SOURCES])
def test_hessian_program(src: str, route: str) -> None:
    status, output = _results()[(src, route)]
    assert status == 0, output
    assert output.strip().endswith("OK"), output
