"""Runs the golden IR tests (tests/golden, lit + filecheck) as one pytest test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def test_lit_golden_suite() -> None:
    tests = [p for p in GOLDEN.rglob("*") if p.suffix in {".ll", ".c"} and "inputs" not in p.parts]
    assert tests, "no golden tests found"
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "lit"), "-v", str(GOLDEN)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-5000:]
    assert f"Passed: {len(tests)}" in proc.stdout or "Total Discovered Tests" in proc.stdout
