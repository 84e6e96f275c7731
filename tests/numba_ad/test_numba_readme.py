"""README.md's "numba" section runs, and so does examples/numba_ode_fit.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _numba_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## numba\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_readme_numba_section() -> None:
    blocks = re.findall(r"^```python\n(.*?)^```", _numba_section(), flags=re.S | re.M)
    assert blocks, "the numba section of README.md has no python code block"
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for block in blocks:
        exec(compile(block, "<README.md numba>", "exec"), namespace)


def test_ode_fit_example() -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "numba_ode_fit.py")],
        capture_output=True, text=True, timeout=900, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    match = re.search(r"largest relative difference to finite differences: (\S+)", proc.stdout)
    assert match is not None and float(match.group(1)) < 1e-5, proc.stdout
    assert "fitted parameters" in proc.stdout
