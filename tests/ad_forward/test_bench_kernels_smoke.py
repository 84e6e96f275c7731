"""Smoke test of bench/kernels.py in its quick mode: it runs, checks its derivatives
against each other before timing (forward vs reverse, width-8 lanes vs single calls, the
gradient of the unoptimized IR) and prints one row per kernel, with the tape bytes the
explain report predicts. No timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_kernels_quick_mode() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "kernels.py"), "2000", "--min"],
                         capture_output=True, text=True, timeout=900, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert "AD on unopt IR" in lines[1] and "width 8" in lines[1], run.stdout
    rows = [line.split() for line in lines[3:] if line.strip()]
    names = [r[0] for r in rows]
    assert names == ["dot", "sum_sin_x", "matvec", "polynomial", "stencil", "running_max"]
    for r in rows:
        assert len(r) == 9 and all(re.fullmatch(r"\d+\.\d+", v) for v in r[1:8]), r
        assert re.fullmatch(r"\d+", r[8]), r  # tape bytes, from the explain report
