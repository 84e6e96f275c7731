"""A BLAS routine irgrad has no rule for, on an active path, is a compile-time error that
names the routine and the source line of the call, in reverse and in forward mode."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from warm_cli import irgrad_command

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_routine_without_rule_is_a_located_error(mode: str, tmp_path: Path) -> None:
    cc = subprocess.run(
        [*irgrad_command(), "cc", "-O2", *(["-DFORWARD"] if mode == "forward"
                                                         else []),
         str(HERE / "no_rule.c"), "-o", str(tmp_path / "exe"), "-lopenblas"],
        capture_output=True, text=True, timeout=300)
    assert cc.returncode == 2, cc.stdout + cc.stderr
    assert "no_rule.c:10:" in cc.stderr, cc.stderr
    assert "No derivative found for cblas_dsyr2k" in cc.stderr, cc.stderr
    assert "internal error" not in cc.stderr


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_ilp64_fortran_call_is_a_located_error(level: str, tmp_path: Path) -> None:
    """64-bit integers passed to a Fortran-spelled routine: refused at the call's line
    (the rules read LP64 integers); the same program with 32-bit integers runs."""
    src = HERE / "ilp64_call.c"
    line = next(i for i, t in enumerate(src.read_text().splitlines(), 1) if "ERROR-LINE" in t)
    cc = subprocess.run(
        [*irgrad_command(), "cc", level, "-DINT=long", str(src), "-o",
         str(tmp_path / "exe"), "-lopenblas"], capture_output=True, text=True, timeout=300)
    assert cc.returncode == 2, cc.stdout + cc.stderr
    assert f"ilp64_call.c:{line}:" in cc.stderr, cc.stderr
    assert "64-bit integer for 'n'" in cc.stderr and "ILP64" in cc.stderr, cc.stderr
    ok = subprocess.run(
        [*irgrad_command(), "cc", level, "-DINT=int", str(src), "-o",
         str(tmp_path / "lp64"), "-lopenblas"], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    run = subprocess.run([str(tmp_path / "lp64")], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0 and run.stdout.split() == ["2", "2", "2"], run.stdout
