"""Run the Python code block of one README section (the framework tests execute them)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_section_code(title: str) -> str:
    """The first ```python block under the heading ``### <title>`` of README.md."""
    text = README.read_text()
    heading = re.search(rf"^#+ {re.escape(title)}\s*$", text, re.M)
    if heading is None:
        raise AssertionError(f"README.md has no section '{title}'")
    block = re.search(r"```python\n(.*?)```", text[heading.end():], re.S)
    if block is None:
        raise AssertionError(f"README.md section '{title}' has no ```python block")
    return block.group(1)


def run_readme_section(title: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": f"readme_{title}"}
    exec(compile(readme_section_code(title), f"README.md[{title}]", "exec"), namespace)
    return namespace
