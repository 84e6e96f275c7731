"""Fixtures for the IR tests (helpers live in ir_helpers.py)."""

from __future__ import annotations

import pytest
from ir_helpers import check_roundtrip


@pytest.fixture
def roundtrip():  # type: ignore[no-untyped-def]
    return check_roundtrip
