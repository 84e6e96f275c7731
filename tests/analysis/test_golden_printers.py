"""Runs the golden analysis tests (tests/golden/analysis/*.ll) through the printer
functions directly: each file's RUN line names the option and function; the output is
checked with filecheck against the file's CHECK lines (what lit will do through
``irgrad opt --print-activity/--print-type-analysis`` once the CLI forwards them)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from irgrad import ir
from irgrad.analysis.printers import run_print_option

GOLDEN = Path(__file__).parents[1] / "golden" / "analysis"
FILES = sorted(GOLDEN.glob("*.ll"))
_RUN_RE = re.compile(r"--print-(activity|type-analysis)=(\S+)")
FILECHECK = Path(sys.executable).parent / "filecheck"


def test_golden_files_exist() -> None:
    assert len(FILES) >= 4


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_golden_analysis_output(path: Path) -> None:
    text = path.read_text()
    m = _RUN_RE.search(text)
    assert m is not None, f"{path.name}: no --print-... option in its RUN line"
    kind = "activity" if m.group(1) == "activity" else "type"
    module = ir.parse_module(text, str(path))
    output = run_print_option(module, kind, m.group(2))
    proc = subprocess.run([str(FILECHECK), str(path)], input=output, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}\n--- output ---\n{output}"
