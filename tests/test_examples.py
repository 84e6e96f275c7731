"""The README's `make demo` example runs and its gradient matches finite differences."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_demo_builds_and_checks_its_gradient() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "df/dx[0] =   -71.000000" in proc.stdout
    assert "largest relative difference" in proc.stdout
