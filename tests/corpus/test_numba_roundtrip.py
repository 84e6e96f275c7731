"""Round trip of numba's LLVM IR for a handful of @njit functions (same checks as the corpus)."""

from __future__ import annotations

import numpy as np
import pytest
from numba_kernels import KERNELS, collatz_steps, cumulative, dot, kernel_ir, min_max, poly_sum
from roundtrip_check import check_roundtrip

IDS = [k[0].py_func.__name__ for k in KERNELS]


@pytest.fixture(scope="module")
def numba_modules() -> dict[str, tuple[str, str]]:
    return {}


def _module(cache: dict[str, tuple[str, str]], index: int) -> tuple[str, str]:
    func, signature = KERNELS[index]
    name = IDS[index]
    if name not in cache:
        cache[name] = kernel_ir(func, signature)
    return cache[name]


@pytest.mark.parametrize("index", range(len(KERNELS)), ids=IDS)
def test_numba_roundtrip_full(index: int, numba_modules) -> None:
    text, fname = _module(numba_modules, index)
    printed = check_roundtrip(text, f"numba:{IDS[index]}", lazy=False)
    assert fname in printed


@pytest.mark.parametrize("index", range(len(KERNELS)), ids=IDS)
def test_numba_roundtrip_lazy(index: int, numba_modules) -> None:
    text, _ = _module(numba_modules, index)
    check_roundtrip(text, f"numba:{IDS[index]}", lazy=True)


def test_numba_kernels_compute() -> None:
    """The kernels are real programs: spot-check their values."""
    a = np.array([3.0, -1.0, 4.0, 1.5])
    assert dot(a, a) == pytest.approx(9 + 1 + 16 + 2.25)
    assert min_max(a) == (-1.0, 4.0)
    assert list(cumulative(a)) == [3.0, 2.0, 6.0, 7.5]
    assert poly_sum(np.array([1.0, 2.0]), np.array([0.0, 1.0])) == pytest.approx(4.0)
    assert collatz_steps(27) == 111
