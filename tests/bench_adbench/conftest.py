"""Shared fixtures for the ADBench tests: the data folder (must exist: a missing folder
is a failure, not a skip), the golden values, and the C library compiled once per
session into a temporary folder."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from adbench.build import build_library  # noqa: E402
from adbench.native import AdbenchLib  # noqa: E402

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "adbench"


@pytest.fixture(scope="session")
def adbench_root() -> Path:
    if not (DATA / "expected" / "adbench_unit_test_golden.json").is_file():
        pytest.fail(f"ADBench data not found at {DATA} (expected ../shared/adbench)")
    return DATA


@pytest.fixture(scope="session")
def golden(adbench_root: Path) -> dict[str, Any]:
    return json.loads((adbench_root / "expected" / "adbench_unit_test_golden.json").read_text())


@pytest.fixture(scope="session")
def lib(tmp_path_factory: pytest.TempPathFactory) -> AdbenchLib:
    return AdbenchLib(build_library(tmp_path_factory.mktemp("adbench-lib")))
