"""Helpers for the command-line tests: run ``python -m irgrad`` in a directory."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

Runner = Callable[..., subprocess.CompletedProcess[bytes]]


@pytest.fixture
def irgrad(tmp_path: Path) -> Runner:
    """``irgrad(*args, input=b"")`` runs the CLI in ``tmp_path`` and returns the process."""

    def run(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "irgrad", *args],
            cwd=tmp_path,
            input=input,
            capture_output=True,
            check=False,
            timeout=300,
        )

    return run


@pytest.fixture
def run_program() -> Callable[[Path], str]:
    """``run_program(path)``: run a built executable, return its stdout (it must succeed)."""
    return _run_program


def _run_program(path: Path) -> str:
    proc = subprocess.run([str(path)], capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
