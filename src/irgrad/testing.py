"""Numerical checks of derivatives, and building C / IR snippets into JIT modules.

The checks follow JAX's ``check_grads`` in spirit. A primal is ``f(x) -> y`` on a 1-D
float64 array ``x`` (``y`` a float or an array); derivatives are given as

* ``fwd(x, t) -> J t`` (forward mode: the output tangent for input tangent ``t``);
* ``rev(x, c) -> J^T c`` (reverse mode: the input adjoint for output cotangent ``c``).

:func:`check_forward` compares ``J t`` with central differences, :func:`check_reverse`
runs the dot-product test ``<t, J^T c> = <J t, c>`` (``J t`` from central differences) and
:func:`check_forward_vs_reverse` the same identity between the two modes; a mismatch is a
:class:`GradientCheckError` (an ``AssertionError``) that shows both numbers, the point and
the tolerances. :func:`check_grads` runs all that apply.

:func:`compile_c_to_jit` / :func:`compile_ir_to_jit` build a snippet through irgrad's whole
pipeline (clang-22, pre-AD, ``__enzyme_*`` lowering, post-AD -O level) into a
:class:`~irgrad.llvm.jit.JITModule`; :func:`c_primal`, :func:`c_gradient` and
:func:`c_tangent` wrap functions of the conventional signatures below as ``f``/``rev``/
``fwd``::

    double f(double *x, int n);
    void grad_f(double *x, double *dx, int n);   // __enzyme_autodiff: dx += df/dx
    double fwd_f(double *x, double *dx, int n);  // __enzyme_fwddiff: returns J dx
"""

from __future__ import annotations

import ctypes
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from irgrad.llvm.jit import JITModule

Array = npt.NDArray[np.float64]
Primal = Callable[[Array], "Array | float"]
Forward = Callable[[Array, Array], "Array | float"]
Reverse = Callable[[Array, "Array | float"], Array]

RTOL = 1e-5
ATOL = 1e-7


class GradientCheckError(AssertionError):
    """A derivative disagrees with its reference beyond the tolerances."""


# --- building snippets ---


def compile_ir_to_jit(
    ir_text: str, opt_level: int = 2, *, pre_ad: bool = True, filename: str = "<snippet.ll>"
) -> JITModule:
    """LLVM IR text through the pipeline (``__enzyme_*`` lowered) into a JIT module."""
    return JITModule(lower_ir(ir_text, opt_level, pre_ad=pre_ad, filename=filename),
                     filename=filename, opt_level=opt_level)


def lower_ir(
    ir_text: str, opt_level: int = 2, *, pre_ad: bool = True, filename: str = "<snippet.ll>"
) -> str:
    """LLVM IR text after irgrad's pipeline (AD done, optimized at ``opt_level``)."""
    from irgrad.pipeline import PipelineOptions, run_pipeline

    module = run_pipeline(
        ir_text, filename=filename,
        options=PipelineOptions(opt_level=opt_level, pre_ad=pre_ad),
    )
    return str(module)


def c_to_ir(source: str, opt_level: int = 2, *, flags: Sequence[str] = ()) -> str:
    """LLVM IR of a C snippet from clang-22 as ``irgrad cc`` gets it (before the pipeline).

    ``enzyme/enzyme.h`` is on the include path.
    """
    from irgrad.frontends import compile_to_ir
    from irgrad.toolchain import enzyme_include_dir

    include = enzyme_include_dir()
    extra = ["-idirafter", str(include)] if include is not None else []
    with tempfile.TemporaryDirectory(prefix="irgrad-testing-") as tmp:
        path = Path(tmp) / "snippet.c"
        path.write_text(source)
        return compile_to_ir(path, language="c", opt_level=opt_level, flags=[*flags, *extra])


def compile_c_to_jit(
    source: str, opt_level: int = 2, *, pre_ad: bool = True, flags: Sequence[str] = ()
) -> JITModule:
    """A C snippet through the pipeline like ``irgrad cc -O<opt_level>``, as a JIT module."""
    return compile_ir_to_jit(
        c_to_ir(source, opt_level, flags=flags), opt_level, pre_ad=pre_ad,
        filename="<snippet.c>",
    )


# --- ctypes adapters for the conventional signatures ---

_DOUBLE_P = ctypes.POINTER(ctypes.c_double)


def as_double_array(x: npt.ArrayLike) -> Array:
    """A fresh contiguous 1-D float64 copy of ``x``."""
    return np.array(x, dtype=np.float64, copy=True).reshape(-1)


def _ptr(a: Array) -> ctypes._Pointer[ctypes.c_double]:
    return a.ctypes.data_as(_DOUBLE_P)


def c_primal(jit: JITModule, name: str) -> Primal:
    """``double name(double *x, int n)`` as ``f(x) -> float``."""
    fn = jit.get(name, ctypes.c_double, [_DOUBLE_P, ctypes.c_int])

    def f(x: Array) -> float:
        buf = as_double_array(x)
        return float(fn(_ptr(buf), len(buf)))

    return f


def c_gradient(jit: JITModule, name: str) -> Reverse:
    """``void name(double *x, double *dx, int n)`` (reverse mode, accumulating into ``dx``)
    as ``rev(x, c) -> c * grad f(x)``. Checks that ``x`` is left unchanged."""
    fn = jit.get(name, None, [_DOUBLE_P, _DOUBLE_P, ctypes.c_int])

    def rev(x: Array, c: Array | float) -> Array:
        buf = as_double_array(x)
        dx = np.zeros_like(buf)
        fn(_ptr(buf), _ptr(dx), len(buf))
        if not np.array_equal(buf, as_double_array(x), equal_nan=True):
            raise GradientCheckError(f"{name} changed its input: {x} became {buf}")
        return dx * float(np.asarray(c).reshape(-1)[0])

    return rev


def c_tangent(jit: JITModule, name: str) -> Forward:
    """``double name(double *x, double *dx, int n)`` (forward mode) as ``fwd(x, t)``."""
    fn = jit.get(name, ctypes.c_double, [_DOUBLE_P, _DOUBLE_P, ctypes.c_int])

    def fwd(x: Array, t: Array) -> float:
        buf, dx = as_double_array(x), as_double_array(t)
        return float(fn(_ptr(buf), _ptr(dx), len(buf)))

    return fwd


# --- numerical checks ---


def _out(y: Array | float) -> Array:
    return np.asarray(y, dtype=np.float64).reshape(-1)


def default_step(x: Array) -> float:
    """The central-difference step: about eps**(1/3) relative to the point's scale."""
    return 6e-6 * max(1.0, float(np.max(np.abs(x), initial=0.0)))


def central_difference(f: Primal, x: Array, t: Array, eps: float | None = None) -> Array:
    """``J t`` by central differences: ``(f(x + h t) - f(x - h t)) / 2h``."""
    x, t = as_double_array(x), as_double_array(t)
    h = default_step(x) if eps is None else eps
    return (_out(f(x + h * t)) - _out(f(x - h * t))) / (2.0 * h)


def finite_differences_agree(
    f: Primal, x: Array, t: Array, *, rtol: float = RTOL, atol: float = ATOL,
    eps: float | None = None,
) -> bool:
    """Whether central differences with steps h and h/2 agree (to a tenth of the
    tolerance): False near a kink or where the function varies too fast for finite
    differences to be a trustworthy reference."""
    x = as_double_array(x)
    h = default_step(x) if eps is None else eps
    a, b = central_difference(f, x, t, h), central_difference(f, x, t, h / 2)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return False
    return bool(np.all(np.abs(a - b) <= 0.1 * (atol + rtol * np.maximum(np.abs(a), np.abs(b)))))


def assert_close(
    actual: npt.ArrayLike, expected: npt.ArrayLike, *, rtol: float = RTOL, atol: float = ATOL,
    what: str = "derivative", actual_name: str = "got", expected_name: str = "expected",
) -> None:
    """``|a - e| <= atol + rtol * max(|a|, |e|)`` elementwise, or a GradientCheckError."""
    a = np.asarray(actual, dtype=np.float64).reshape(-1)
    e = np.asarray(expected, dtype=np.float64).reshape(-1)
    if a.shape != e.shape:
        raise GradientCheckError(f"{what}: shape {a.shape} ({actual_name}) vs {e.shape}")
    bound = atol + rtol * np.maximum(np.abs(a), np.abs(e))
    bad = ~(np.abs(a - e) <= bound)
    if bad.any():
        i = int(np.argmax(bad))
        raise GradientCheckError(
            f"{what} mismatch at element {i} of {a.size}: {actual_name} {float(a[i])!r}, "
            f"{expected_name} {float(e[i])!r} (|difference| {abs(a[i] - e[i]):.3e} > "
            f"atol {atol:g} + rtol {rtol:g} * {max(abs(a[i]), abs(e[i])):.3e})\n"
            f"  {actual_name}: {a.tolist()}\n  {expected_name}: {e.tolist()}"
        )


def _directions(rng: np.random.Generator, size: int, count: int) -> list[Array]:
    """The unit vectors when ``size`` is small, else ``count`` random directions."""
    if size <= count:
        return list(np.eye(size))
    return [rng.standard_normal(size) for _ in range(count)]


def check_forward(
    f: Primal, fwd: Forward, x: npt.ArrayLike, *, rtol: float = RTOL, atol: float = ATOL,
    eps: float | None = None, directions: int = 8, seed: int = 0,
) -> None:
    """Forward tangents ``fwd(x, t)`` against central differences of ``f``."""
    x0 = as_double_array(x)
    for t in _directions(np.random.default_rng(seed), x0.size, directions):
        assert_close(
            _out(fwd(x0.copy(), t.copy())), central_difference(f, x0, t, eps), rtol=rtol,
            atol=atol, what=f"forward tangent J t at x={x0.tolist()}, t={t.tolist()}",
            actual_name="fwddiff", expected_name="finite differences",
        )


def check_reverse(
    f: Primal, rev: Reverse, x: npt.ArrayLike, *, rtol: float = RTOL, atol: float = ATOL,
    eps: float | None = None, directions: int = 8, seed: int = 0,
) -> None:
    """The dot-product test ``<t, J^T c> = <J t, c>`` with ``J t`` from central differences.

    For a scalar ``f`` with few inputs the directions are the unit vectors, so each
    gradient component is compared with its own finite difference.
    """
    rng = np.random.default_rng(seed)
    x0 = as_double_array(x)
    y0 = _out(f(x0.copy()))
    c: Array | float = 1.0 if y0.size == 1 else rng.standard_normal(y0.size)
    adjoint = _out(rev(x0.copy(), c))
    if adjoint.shape != x0.shape:
        raise GradientCheckError(f"reverse: J^T c has shape {adjoint.shape}, x {x0.shape}")
    for t in _directions(rng, x0.size, directions):
        jt = central_difference(f, x0, t, eps)
        assert_close(
            float(np.dot(t, adjoint)), float(np.dot(jt, _out(c))), rtol=rtol, atol=atol,
            what=f"reverse dot-product test <t, J^T c> vs <J t, c> at x={x0.tolist()}, "
            f"t={t.tolist()}, c={_out(c).tolist()}",
            actual_name="autodiff", expected_name="finite differences",
        )


def check_forward_vs_reverse(
    fwd: Forward, rev: Reverse, x: npt.ArrayLike, out_size: int = 1, *,
    rtol: float = 1e-10, atol: float = 1e-12, directions: int = 8, seed: int = 0,
) -> None:
    """``<t, J^T c> = <J t, c>`` between the two modes (no finite differences: tight)."""
    rng = np.random.default_rng(seed)
    x0 = as_double_array(x)
    c: Array | float = 1.0 if out_size == 1 else rng.standard_normal(out_size)
    adjoint = _out(rev(x0.copy(), c))
    for t in _directions(rng, x0.size, directions):
        assert_close(
            float(np.dot(t, adjoint)), float(np.dot(_out(fwd(x0.copy(), t.copy())), _out(c))),
            rtol=rtol, atol=atol,
            what=f"forward vs reverse <t, J^T c> vs <J t, c> at x={x0.tolist()}, t={t.tolist()}",
            actual_name="autodiff", expected_name="fwddiff",
        )


def check_grads(
    f: Primal, x: npt.ArrayLike, *, fwd: Forward | None = None, rev: Reverse | None = None,
    rtol: float = RTOL, atol: float = ATOL, eps: float | None = None, seed: int = 0,
) -> None:
    """Every check that applies: forward vs finite differences, the reverse dot-product
    test, and forward vs reverse when both are given."""
    if fwd is None and rev is None:
        raise ValueError("check_grads needs fwd, rev or both")
    if fwd is not None:
        check_forward(f, fwd, x, rtol=rtol, atol=atol, eps=eps, seed=seed)
    if rev is not None:
        check_reverse(f, rev, x, rtol=rtol, atol=atol, eps=eps, seed=seed)
    if fwd is not None and rev is not None:
        out_size = _out(f(as_double_array(x))).size
        check_forward_vs_reverse(
            fwd, rev, x, out_size, rtol=max(rtol * 1e-3, 1e-10), atol=max(atol * 1e-3, 1e-12),
            seed=seed,
        )
