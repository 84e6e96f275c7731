"""numba IR capture (irgrad.numba.capture): the module before numba's final optimization."""

from __future__ import annotations

import ctypes

import numba

from irgrad.llvm import JITModule, parse_llvm
from irgrad.numba.capture import numba_ir


@numba.njit
def _inner(x):
    return x * x + 1.0


@numba.njit
def _outer(x, y):
    s = 0.0
    for i in range(3):
        s += _inner(x) * y + i
    return s


def test_numba_capture_parses_and_runs() -> None:
    _outer(1.0, 2.0)  # already compiled: numba_ir must still capture a fresh compilation
    text, wrapper = numba_ir(_outer, "float64(float64, float64)")
    assert wrapper.startswith("cfunc.")
    mod = parse_llvm(text, "numba.ll")
    names = {f.name for f in mod.functions}
    assert wrapper in names
    # the callee was linked in before the final optimization, still as its own function
    assert any("_inner" in n for n in names if not mod.get_function(n).is_declaration)
    f = JITModule(text).get(wrapper, ctypes.c_double, [ctypes.c_double, ctypes.c_double])
    assert f(2.0, 3.0) == _outer.py_func(2.0, 3.0) == 48.0


def test_numba_plain_python_function() -> None:
    def cube(x):
        return x * x * x

    text, wrapper = numba_ir(cube, (numba.float64,))
    f = JITModule(text).get(wrapper, ctypes.c_double, [ctypes.c_double])
    assert f(3.0) == 27.0
