"""The framework view of a C function (spec.py) and its NumPy-level primal/VJP/JVP (ops.py).

No framework is imported here: the numbers are checked against finite differences, the
dot-product test and the batch loop against single calls.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from integ_kernels import rng

from irgrad.errors import UsageError
from irgrad.integrations import ops
from irgrad.integrations.spec import Dim, make_spec, parse_signature


def fd_jvp(spec: Any, arrays: list[np.ndarray], tangents: list[np.ndarray], eps: float = 1e-6
           ) -> list[np.ndarray]:
    plus = ops.primal(spec, [a + eps * t for a, t in zip(arrays, tangents, strict=True)])
    minus = ops.primal(spec, [a - eps * t for a, t in zip(arrays, tangents, strict=True)])
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus, strict=True)]


def test_parse_signature_dims() -> None:
    ins, outs = parse_signature("A[m, n], x[n], a, s[] -> y[2*m, 3], return")
    assert ins == [("A", (Dim("m"), Dim("n"))), ("x", (Dim("n"),)), ("a", None), ("s", ())]
    assert outs == [("y", (Dim("m", 2), Dim(None, 3))), ("return", None)]


@pytest.mark.parametrize("text, words", [
    ("x[n] y[n]", "one '->'"),
    ("x[n] -> y[n", "cannot read"),
    ("x[n+1] -> y[n]", r"must be a name, an integer or integer\*name"),
])  # fmt: skip
def test_bad_signature_strings(text: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        parse_signature(text)


@pytest.mark.parametrize("kwargs, words", [
    ({"signature": "x[n] -> y[n]"}, r"parameter\(s\) w of 'f' have no role"),
    ({"signature": "x[n], w[n], q[n] -> y[n]"}, "'q' \\(input\\) is not a parameter of 'f'"),
    ({"signature": "x[n], w[n] -> y[k]"}, "dimension 'k' of output 'y' does not appear"),
    ({"signature": "x[n], w[n] -> y"}, "output 'y' needs a shape"),
    ({"signature": "x[n], w[n] -> y[n], return"}, "does not return a floating-point"),
    ({"signature": "x[n], w[n], y[n] -> y[n]"}, "'y' is both input and output"),
    ({"signature": "x[n], w[n], n -> y[n]"}, "integers are sizes or constants"),
    ({"inputs": ["x", "w"]}, "give a signature string, or inputs= and outputs="),
    ({"signature": "x[n], w[n] -> y[n]", "nondiff": ["y"]}, "nondiff 'y' is not an input"),
])  # fmt: skip
def test_spec_errors_name_the_problem(lib: Any, kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        make_spec(lib, "f", **kwargs)


def test_spec_error_for_unlisted_return(lib: Any) -> None:
    with pytest.raises(UsageError, match="returns double: list 'return' among the outputs"):
        make_spec(lib, "g", "x[n], a -> ")
    with pytest.raises(UsageError, match="scalar 'double', declare it without dimensions"):
        make_spec(lib, "g", "x[n], a[n] -> return")


def test_bind_errors(lib: Any) -> None:
    spec = make_spec(lib, "mv", "A[m, n], x[n] -> y[m]")
    z = np.zeros
    with pytest.raises(UsageError, match="dimension 'n' is 4 from input 'A' but 3 from input 'x'"):
        ops.primal(spec, [z((2, 4)), z(3)])
    with pytest.raises(UsageError, match=r"'x' must have 1 dimension\(s\) \[n\] \(or 2 with a "
                                         r"leading batch dimension\), got shape \(1, 2, 4\)"):
        ops.primal(spec, [z((2, 4)), z((1, 2, 4))])
    with pytest.raises(UsageError, match="batch sizes differ: 'A' has 5 items, 'x' has 6"):
        ops.primal(spec, [z((5, 2, 4)), z((6, 4))])
    with pytest.raises(UsageError, match=r"input 'x' must be float64 .*'double \*'.*got float32"):
        ops.primal(spec, [z((2, 4)), z(4, np.float32)])
    with pytest.raises(UsageError, match="expected 2 inputs \\(A, x\\), got 1"):
        ops.primal(spec, [z((2, 4))])
    lstm_like = make_spec(lib, "mv", "A[2*m, n], x[n] -> y[2*m]")
    with pytest.raises(UsageError, match="axis 0 is 2\\*m but its length 3 is not a multiple"):
        ops.primal(lstm_like, [z((3, 4)), z(4)])


def test_vjp_matches_finite_differences_dot_product(lib: Any) -> None:
    r = rng(1)
    spec = make_spec(lib, "mv", "A[m, n], x[n] -> y[m]")
    arrays = [r.normal(size=(3, 4)), r.normal(size=4)]
    tangents = [r.normal(size=(3, 4)), r.normal(size=4)]
    ct = r.normal(size=3)
    grads = ops.vjp(spec, arrays, [ct])
    lhs = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents, strict=True))
    rhs = float(np.sum(fd_jvp(spec, arrays, tangents)[0] * ct))
    assert lhs == pytest.approx(rhs, rel=1e-6)


def test_jvp_matches_finite_differences_two_outputs(lib: Any) -> None:
    r = rng(2)
    spec = make_spec(lib, "stats", "x[n] -> mean[], sq[n]")
    x, t = r.normal(size=6), r.normal(size=6)
    outs, touts = ops.jvp(spec, [x], [t])
    np.testing.assert_allclose(outs[0], x.mean())
    np.testing.assert_allclose(outs[1], x * x * x[0])
    for got, want in zip(touts, fd_jvp(spec, [x], [t]), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def test_scalar_input_and_return(lib: Any) -> None:
    r = rng(3)
    spec = make_spec(lib, "g", "x[n], a -> return")
    x, a = r.normal(size=5), np.array(0.7)
    (value,) = ops.primal(spec, [x, a])
    assert value.shape == () and float(value) == pytest.approx(np.mean(np.exp(a * x)))
    gx, ga = ops.vjp(spec, [x, a], [np.array(2.0)])
    np.testing.assert_allclose(gx, 2.0 * a * np.exp(a * x) / 5, rtol=1e-12)
    assert float(ga) == pytest.approx(2.0 * np.mean(x * np.exp(a * x)), rel=1e-12)
    _, (tangent,) = ops.jvp(spec, [x, a], [np.ones(5), np.array(0.5)])
    assert float(tangent) == pytest.approx(
        np.mean(a * np.exp(a * x)) * 5 / 5 + 0.5 * np.mean(x * np.exp(a * x)), rel=1e-12)


def test_batch_equals_loop_and_sums_shared_gradients(lib: Any) -> None:
    r = rng(4)
    spec = make_spec(lib, "mv", "A[m, n], x[n] -> y[m]")
    A, xs, cts = r.normal(size=(3, 4)), r.normal(size=(5, 4)), r.normal(size=(5, 3))
    (ys,) = ops.primal(spec, [A, xs])
    gA, gx = ops.vjp(spec, [A, xs], [cts])
    assert ys.shape == (5, 3) and gA.shape == (3, 4) and gx.shape == (5, 4)
    gA_sum = np.zeros_like(A)
    for b in range(5):
        np.testing.assert_allclose(ys[b], ops.primal(spec, [A, xs[b]])[0], rtol=1e-14)
        gA_b, gx_b = ops.vjp(spec, [A, xs[b]], [cts[b]])
        gA_sum += gA_b
        np.testing.assert_allclose(gx[b], gx_b, rtol=1e-14)
    np.testing.assert_allclose(gA, gA_sum, rtol=1e-12)
    _, (ty,) = ops.jvp(spec, [A, xs], [None, np.ones((5, 4))])
    np.testing.assert_allclose(ty, (A @ (1 - np.tanh(xs.T) ** 2)).T, rtol=1e-12)


def test_integer_input_constant_and_explicit_form(lib: Any) -> None:
    r = rng(5)
    spec = make_spec(
        lib, "gather", inputs={"x": 1, "idx": 1},
        outputs={"y": lambda x, idx: idx.shape}, constants={"c": 3.0},
        sizes={"n": lambda x, idx: x.shape[0], "m": lambda x, idx: idx.shape[0]},
    )
    x, idx = r.normal(size=4), np.array([3, 0, 3], np.int32)
    (y,) = ops.primal(spec, [x, idx])
    np.testing.assert_allclose(y, 3.0 * x[idx] ** 2)
    gx, gidx = ops.vjp(spec, [x, idx], [np.ones(3)])
    assert gidx is None
    want = np.zeros(4)
    np.add.at(want, idx, 6.0 * x[idx])
    np.testing.assert_allclose(gx, want, rtol=1e-12)


def test_convert_casts_and_keeps_the_input_dtype(lib: Any) -> None:
    spec = make_spec(lib, "f", "x[n], w[n] -> y[n]", convert=True)
    x, w = np.linspace(0, 1, 4, dtype=np.float32), np.ones(4, np.float32)
    (y,) = ops.primal(spec, [x, w])
    assert y.dtype == np.float32
    gx, gw = ops.vjp(spec, [x, w], [np.ones(4, np.float32)])
    assert gx.dtype == np.float32 and gw.dtype == np.float32
    np.testing.assert_allclose(gx, np.cos(x) + 2 * x, rtol=1e-6)


def test_import_irgrad_imports_no_framework() -> None:
    code = ("import sys, irgrad, irgrad.integrations; "
            "bad = [m for m in ('torch', 'jax', 'tensorflow') if m in sys.modules]; "
            "assert not bad, bad")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
