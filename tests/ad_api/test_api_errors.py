"""Wrong uses of the __enzyme_* API: ``irgrad cc`` exits 2 with file:line: error: message.

Each program in ``errors/`` (and in ``tests/ad_custom/errors/``: malformed registrations
and attributes) names the expected message (``// EXPECT-ERROR: ...``) and marks the line
the error must point at with ``// ERROR-LINE`` (compiled with -g).
"""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from warm_cli import irgrad_command

# the module-scoped fixture builds every case once: keep the tests on the worker that
# built them (spread over two workers, both built them all)
pytestmark = pytest.mark.xdist_group("api_errors")

ERRORS = Path(__file__).parent / "errors"
CUSTOM_ERRORS = Path(__file__).parents[1] / "ad_custom" / "errors"
SOURCES = sorted(ERRORS.glob("*.c")) + sorted(CUSTOM_ERRORS.glob("*.c"))
BY_NAME = {s.name: s for s in SOURCES}


def _compile(src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*irgrad_command(), "cc", "-g", "-O2", str(src), "-o", str(out), "-lm"],
        capture_output=True, text=True, check=False, timeout=300,
    )


@cache
def _results(workdir: str) -> dict[str, subprocess.CompletedProcess[str]]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        procs = pool.map(lambda s: _compile(s, Path(workdir) / s.stem), SOURCES)
        return {s.name: p for s, p in zip(SOURCES, procs, strict=True)}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    return _results(str(tmp_path_factory.mktemp("ad_api_errors")))


@pytest.mark.parametrize("name", [s.name for s in SOURCES])
def test_error_program(results: dict[str, subprocess.CompletedProcess[str]], name: str) -> None:
    text = BY_NAME[name].read_text()
    expected = re.search(r"EXPECT-ERROR: (.*)", text).group(1).strip()  # type: ignore[union-attr]
    line = next(k for k, ln in enumerate(text.splitlines(), 1) if "ERROR-LINE" in ln)
    proc = results[name]
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not re.search(r"object at 0x|<[A-Z]\w*(Inst|Argument|Constant\w*|Value)\b",
                         proc.stderr), proc.stderr  # IR syntax, never a Python repr
    assert expected in proc.stderr, proc.stderr
    assert re.search(rf"{re.escape(name)}:{line}:\d+: error: ", proc.stderr), proc.stderr
