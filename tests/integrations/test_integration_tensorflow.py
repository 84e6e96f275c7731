"""irgrad.tensorflow: compiled C functions under tf.custom_gradient, eager and in tf.function."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tensorflow as tf
from integ_kernels import rng
from readme_snippets import run_readme_section

import irgrad
from irgrad.errors import UsageError


def gradients(op: Any, args: list[tf.Tensor], ct: tf.Tensor | None = None) -> list[Any]:
    with tf.GradientTape() as tape:
        for a in args:
            tape.watch(a)
        out = op(*args)
        outs = out if isinstance(out, tuple) else (out,)
        loss = tf.add_n([tf.reduce_sum(o * (ct if ct is not None else 1.0)) for o in outs])
    return tape.gradient(loss, args)


def fd_dot(op: Any, args: list[np.ndarray], tangents: list[np.ndarray], ct: np.ndarray,
           eps: float = 1e-6) -> float:
    """<ct, J t> by central differences (the dot-product test's right side)."""
    def val(s: float) -> np.ndarray:
        out = op(*[tf.constant(a + s * t) for a, t in zip(args, tangents, strict=True)])
        return np.asarray(out)
    return float(np.sum(ct * (val(eps) - val(-eps)) / (2 * eps)))


@pytest.mark.parametrize("in_function", [False, True], ids=["eager", "tf_function"])
def test_dot_product_test_eager_and_in_tf_function(lib: Any, in_function: bool) -> None:
    r = rng(1)
    mv = irgrad.tensorflow.function(lib, "mv", "A[m, n], x[n] -> y[m]")
    A, x, ct = r.normal(size=(3, 4)), r.normal(size=4), r.normal(size=3)
    tA, tx = r.normal(size=(3, 4)), r.normal(size=4)
    grad_fn = (tf.function(lambda A, x, c: gradients(mv, [A, x], c)) if in_function
               else (lambda A, x, c: gradients(mv, [A, x], c)))
    gA, gx = grad_fn(tf.constant(A), tf.constant(x), tf.constant(ct))
    lhs = float(np.sum(gA.numpy() * tA) + np.sum(gx.numpy() * tx))
    assert lhs == pytest.approx(fd_dot(mv, [A, x], [tA, tx], ct), rel=1e-6)


def test_unknown_static_shapes_and_batch(lib: Any) -> None:
    mv = irgrad.tensorflow.function(lib, "mv", "A[m, n], x[n] -> y[m]")
    traced = tf.function(lambda A, x: gradients(mv, [A, x]), input_signature=[
        tf.TensorSpec([None, None], tf.float64), tf.TensorSpec(None, tf.float64)])
    r = rng(2)
    A, xs = r.normal(size=(3, 4)), r.normal(size=(5, 4))
    gA, gx = traced(tf.constant(A), tf.constant(xs))
    sech2 = 1 - np.tanh(xs) ** 2
    np.testing.assert_allclose(gA.numpy(), np.tile(np.tanh(xs).sum(0), (3, 1)), rtol=1e-12)
    np.testing.assert_allclose(gx.numpy(), A.sum(0)[None, :] * sech2, rtol=1e-12)
    y = mv(tf.constant(A), tf.constant(xs))
    assert y.shape == (5, 3)


def test_scalar_return_two_outputs_variables(lib: Any) -> None:
    g = irgrad.tensorflow.function(lib, "g", "x[n], a -> return")
    x, a = rng(3).normal(size=5), tf.Variable(0.3, dtype=tf.float64)
    with tf.GradientTape() as tape:
        value = g(tf.constant(x), a)
    (ga,) = tape.gradient(value, [a])
    assert float(ga) == pytest.approx(np.mean(x * np.exp(0.3 * x)), rel=1e-12)
    stats = irgrad.tensorflow.function(lib, "stats", "x[n] -> mean[], sq[n]")
    xv = rng(4).normal(size=4)
    (gx,) = gradients(stats, [tf.constant(xv)])
    want = np.full(4, 0.25) + 2 * xv * xv[0]
    want[0] += float(np.sum(xv * xv))  # d(x0)/dx0 * sum x_i^2
    np.testing.assert_allclose(gx.numpy(), want, rtol=1e-12)


def test_integer_input_float32_and_convert(lib: Any) -> None:
    gather = irgrad.tensorflow.function(lib, "gather", "x[n], idx[m] -> y[m]",
                                        constants={"c": 1.5})
    x = tf.constant(rng(5).normal(size=4))
    idx = tf.constant([3, 3, 1], dtype=tf.int32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(gather(x, idx))
    gx = tape.gradient(loss, x).numpy()
    xn = x.numpy()
    np.testing.assert_allclose(gx, [0, 3 * xn[1], 0, 6 * xn[3]], rtol=1e-12)
    h = irgrad.tensorflow.function(lib, "h", "x[n] -> y[n]")
    x32 = tf.constant(np.linspace(-1, 1, 5, dtype=np.float32))
    (g32,) = gradients(h, [x32])
    assert g32.dtype == tf.float32
    np.testing.assert_allclose(g32.numpy(), 3 * x32.numpy() ** 2, rtol=1e-6)
    f = irgrad.tensorflow.function(lib, "f", "x[n], w[n] -> y[n]", convert=True)
    gf, _ = gradients(f, [x32, tf.ones(5)])
    assert gf.dtype == tf.float32


def test_wrong_inputs_give_clear_errors(lib: Any) -> None:
    f = irgrad.tensorflow.function(lib, "f", "x[n], w[n] -> y[n]")
    x = tf.ones(3, tf.float64)
    with pytest.raises(UsageError, match="dimension 'n' is 3 from input 'x' but 2"):
        f(x, x[:2])
    with pytest.raises(UsageError, match=r"input 'x' must be float64 .*got float32"):
        f(tf.ones(3), x)
    with pytest.raises(UsageError, match="expected 2 inputs \\(x, w\\), got 1"):
        f(x)
    with pytest.raises(UsageError, match="dimension 'n' is 3 from input 'x' but 2"):
        tf.function(f)(x, x[:2])


def test_readme_tensorflow_snippet_runs() -> None:
    namespace = run_readme_section("TensorFlow")
    np.testing.assert_allclose(namespace["grad_x"].numpy(), namespace["expected"], rtol=1e-12)
    x = namespace["x"].numpy()
    np.testing.assert_allclose(namespace["grad_k"].numpy(), -x * x * np.exp(-0.5 * x),
                               rtol=1e-12)
