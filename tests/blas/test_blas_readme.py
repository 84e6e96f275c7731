"""README.md's "BLAS and LAPACK" section: its C program builds with ``irgrad cc`` against
OpenBLAS and checks its own gradient against central differences."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from warm_cli import irgrad_command

ROOT = Path(__file__).resolve().parents[2]


def _section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## BLAS and LAPACK\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def test_readme_blas_program(tmp_path: Path) -> None:
    blocks = re.findall(r"^```c\n(.*?)^```", _section(), flags=re.S | re.M)
    assert len(blocks) == 1, "the BLAS section of README.md has one C program"
    src = tmp_path / "gn.c"
    src.write_text(blocks[0])
    exe = tmp_path / "gn"
    cc = subprocess.run([*irgrad_command(), "cc", "-O2", str(src), "-o",
                         str(exe), "-lopenblas", "-lm"], capture_output=True, text=True,
                        timeout=600)
    assert cc.returncode == 0, cc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), run.stdout
    got, want = map(float, re.findall(r"(-?\d+\.\d+)", run.stdout)[:2])
    assert abs(got) > 1e-3 and abs(got - want) < 1e-6
