"""Malformed .ll inputs: each file's first line says the exact error we must report,
``; EXPECT: LINE:COL: error: MESSAGE``; the CLI reports such files without a traceback."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from irgrad import ir
from irgrad.errors import IRParseError
from warm_cli import irgrad_command

HERE = Path(__file__).parent
CASES = sorted(HERE.glob("*.ll"))
_EXPECT = re.compile(r"; EXPECT: (\d+):(\d+): error: (.*)")


def expected(path: Path) -> tuple[int, int, str]:
    first = path.read_text().split("\n", 1)[0]
    m = _EXPECT.fullmatch(first)
    assert m is not None, f"{path.name}: first line must be '; EXPECT: L:C: error: message'"
    return int(m.group(1)), int(m.group(2)), m.group(3)


def test_enough_cases() -> None:
    assert len(CASES) >= 22


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_parse_error(path: Path, lazy: bool) -> None:
    line, col, message = expected(path)
    with pytest.raises(IRParseError) as info:
        m = ir.parse_module(path.read_text(), str(path), lazy=lazy)
        for f in m.functions:  # lazy bodies report their errors when parsed
            f.materialize()
    err = info.value
    assert err.message == message
    assert (err.location.filename, err.location.line, err.location.column) == (
        str(path), line, col)
    assert err.format() == f"{path}:{line}:{col}: error: {message}"


@pytest.mark.parametrize("path", CASES[:6], ids=lambda p: p.stem)
def test_cli_reports_without_traceback(path: Path, tmp_path: Path) -> None:
    env = dict(os.environ)
    env.pop("IRGRAD_DEBUG", None)
    res = subprocess.run(
        [*irgrad_command(), "opt", str(path), "-S", "-o", str(tmp_path / "o.ll")],
        capture_output=True, text=True, check=False, env=env, timeout=120,
    )
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    assert re.search(rf"^{re.escape(str(path))}:\d+:\d+: error: ", res.stderr, re.M), res.stderr
