"""Fixtures of the build tests (helpers are in build_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_helpers import build_env


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A build environment with a build cache of the test's own."""
    return build_env(tmp_path / "cache")
