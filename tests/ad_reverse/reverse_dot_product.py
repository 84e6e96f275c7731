"""Helpers for the reverse-mode tests of this folder: C through the whole pipeline to a JIT
module, and the dot-product test of its gradient ``void grad(x, dx, y, dy, *extra)`` against
its primal ``void primal(x, y, *extra)`` (double pointers, then C scalars).

The dot-product test: <t, J^T c> = <J t, c> for random t and c, with J t by central
differences of the primal and J^T c the input shadow after one reverse call seeded with c.
"""

from __future__ import annotations

import ctypes
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from irgrad.frontends.c import compile_c
from irgrad.llvm.jit import JITModule
from irgrad.pipeline import PipelineOptions, run_pipeline


def ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


def pipeline_jit(source: str, name: str, level: int) -> JITModule:
    """C ``source`` -> clang-22 -O<level> -> irgrad's pipeline at ``level`` -> JIT."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"{name}.c"
        src.write_text(source)
        bc = compile_c(src, opt_level=level)
    module = run_pipeline(bc, filename=name, options=PipelineOptions(opt_level=level))
    return JITModule(module, filename=name, opt_level=level)


_JITS: dict[tuple[str, int], Any] = {}


def check_program(source: str, n: int, m: int, level: int, *, seed: int,
                  label: tuple[Any, ...]) -> None:
    """The dot-product test of ``source`` (defining ``grad`` and ``primal`` over ``n``
    inputs and ``m`` outputs) at ``-O<level>``, each source compiled once per level."""
    from irgrad.testing import compile_c_to_jit

    key = (source, level)
    if key not in _JITS:
        _JITS[key] = compile_c_to_jit(source, level)
    check_dot_product(_JITS[key], n, m, seed=seed, x_high=0.9, primal_tol=1e-12, label=label)


def check_dot_product(
    jit: JITModule,
    n: int,
    m: int,
    *,
    seed: int,
    x_high: float = 1.0,
    primal_tol: float = 1e-14,
    extra: tuple[Any, ...] = (),  # ctypes scalars (c_long(n), ...)
    seed_consumed: bool = False,
    label: tuple[Any, ...] = (),
) -> None:
    """Three random points x in [0.2, x_high)^n: the gradient call keeps the primal effect
    (y within ``primal_tol``), consumes the seed dy when ``seed_consumed``, and passes the
    dot-product test to 1e-6 (relative); ``label`` prefixes the failure message."""
    vp = ctypes.c_void_p
    scalars = [type(e) for e in extra]
    primal = jit.get("primal", None, [vp, vp, *scalars])
    grad = jit.get("grad", None, [vp, vp, vp, vp, *scalars])
    rng = np.random.default_rng(seed)
    for _ in range(3):
        x = rng.uniform(0.2, x_high, n)
        t = rng.standard_normal(n)
        c = rng.standard_normal(m)

        def f(z: np.ndarray) -> np.ndarray:
            y = np.zeros(m)
            primal(ptr(np.ascontiguousarray(z)), ptr(y), *extra)
            return y

        h = 1e-6
        jt = (f(x + h * t) - f(x - h * t)) / (2 * h)
        dx = np.zeros(n)
        y = np.zeros(m)
        dy = c.copy()
        grad(ptr(x), ptr(dx), ptr(y), ptr(dy), *extra)
        np.testing.assert_allclose(y, f(x), rtol=primal_tol, atol=primal_tol)
        if seed_consumed:
            np.testing.assert_allclose(dy, 0.0)  # the seed is consumed (y is overwritten)
        lhs = float(t @ dx)
        rhs = float(jt @ c)
        assert abs(lhs - rhs) <= 1e-6 * (1.0 + abs(rhs)), (*label, lhs, rhs)
