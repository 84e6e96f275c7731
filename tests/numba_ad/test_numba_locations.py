"""Where numba functions meet irgrad's limits: a derivative error names the Python file
and line of the ``@njit`` function (numba's ``!dbg`` locations, which irgrad asks numba
for), and an exception path in a function numba leaves out of line is inactive (numba's
``excinfo`` slot is registered as an inactive global)."""

from __future__ import annotations

import ctypes
import ctypes.util
import inspect

import numpy as np
import pytest
from numba import njit
from numba_ad_helpers import assert_close, fd_grad

import irgrad
import irgrad.numba.capture as capture
from irgrad.errors import DifferentiationError

_libm = ctypes.CDLL(ctypes.util.find_library("m"))
cbrt = _libm.cbrt
cbrt.restype = ctypes.c_double
cbrt.argtypes = [ctypes.c_double]


@njit
def through_ctypes(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += cbrt(x[i]) * x[i]  # LINE: a foreign function irgrad cannot see into
    return s


def test_error_names_python_file_and_line() -> None:
    lines, first = inspect.getsourcelines(through_ctypes.py_func)
    line = first + next(k for k, text in enumerate(lines) if "# LINE" in text)
    with pytest.raises(DifferentiationError) as info:
        irgrad.grad(through_ctypes)(np.ones(3))
    text = str(info.value)
    assert f"{__file__}:{line}:" in text, text
    assert "No derivative found for the indirect call" in text


@njit
def pair(d):
    r2 = np.sum(d * d)
    if r2 < 1e-12:
        raise ValueError("two particles at the same place", r2)
    return 1.0 / r2**6 - 1.0 / r2**3


@njit
def energy(x):
    pos = x.reshape(-1, 3)
    e = 0.0
    for i in range(pos.shape[0]):
        for j in range(i + 1, pos.shape[0]):
            e += pair(pos[i] - pos[j])
    return e


def test_exception_path_of_an_out_of_line_callee(monkeypatch) -> None:
    """With numba's debug ``noinline`` kept, ``pair`` (which may raise) stays a call:
    the exception info it stores through ``excinfo`` is inactive."""
    monkeypatch.setattr(capture, "_without_debug_noinline", lambda text: text)
    x = np.array([0.0, 0.0, 0.0, 1.1, 0.1, 0.0, 0.2, 1.2, 0.1, 1.0, 1.0, 1.0])
    g = irgrad.grad(energy, opt_level=1)(x)
    want = fd_grad(energy, (x,))
    assert np.max(np.abs(want[0])) > 0.1
    assert_close(g, want, rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="same place"):
        irgrad.grad(energy, opt_level=1)(np.zeros(6))
