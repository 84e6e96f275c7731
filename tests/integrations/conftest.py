"""Session fixtures of the framework integration tests: the kernels of integ_kernels.py."""

from __future__ import annotations

from typing import Any

import pytest
from integ_kernels import compile_kernels


@pytest.fixture(scope="session")
def lib() -> Any:
    return compile_kernels(2)


@pytest.fixture(scope="session", params=[0, 3], ids=["O0", "O3"])
def lib_levels(request: pytest.FixtureRequest) -> Any:
    return compile_kernels(request.param)
