"""A BLAS routine irgrad has no rule for, on an active path, is a compile-time error that
names the routine and the source line of the call, in reverse and in forward mode."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_routine_without_rule_is_a_located_error(mode: str, tmp_path: Path) -> None:
    cc = subprocess.run(
        [sys.executable, "-m", "irgrad", "cc", "-O2", *(["-DFORWARD"] if mode == "forward"
                                                         else []),
         str(HERE / "no_rule.c"), "-o", str(tmp_path / "exe"), "-lopenblas"],
        capture_output=True, text=True, timeout=300)
    assert cc.returncode == 2, cc.stdout + cc.stderr
    assert "no_rule.c:10:" in cc.stderr, cc.stderr
    assert "No derivative found for cblas_dsyr2k" in cc.stderr, cc.stderr
    assert "internal error" not in cc.stderr
