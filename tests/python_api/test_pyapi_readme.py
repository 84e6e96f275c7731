"""The Python code in README.md's "Python API" section and docs/python-api.md runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def run_blocks(blocks: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IRGRAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for block in blocks:  # blocks of one page share their names, like a reader's session
        exec(compile(block, "<readme>", "exec"), namespace)


def test_readme_python_api_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(section((ROOT / "README.md").read_text(), "Python API"))
    assert blocks, "the Python API section of README.md has no python code block"
    run_blocks(blocks, tmp_path, monkeypatch)


def test_docs_python_api_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks((ROOT / "docs" / "python-api.md").read_text())
    assert len(blocks) >= 3
    run_blocks(blocks, tmp_path, monkeypatch)
