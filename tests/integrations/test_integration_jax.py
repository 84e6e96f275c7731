"""irgrad.jax: compiled C functions as jax.custom_vjp / custom_jvp (check_grads, jit, vmap)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from integ_kernels import rng
from jax.test_util import check_grads
from readme_snippets import run_readme_section

import irgrad
from irgrad.errors import UsageError

jax.config.update("jax_enable_x64", True)


def arr(*shape: int, seed: int = 0) -> jax.Array:
    return jnp.asarray(rng(seed).normal(size=shape))


SIGNATURES = {
    "f": "x[n], w[n] -> y[n]",
    "mv": "A[m, n], x[n] -> y[m]",
    "g": "x[n], a -> return",
    "stats": "x[n] -> mean[], sq[n]",
}


def args_of(name: str) -> tuple[jax.Array, ...]:
    return {
        "f": (arr(5, seed=1), arr(5, seed=2)),
        "mv": (arr(3, 4, seed=3), arr(4, seed=4)),
        "g": (arr(5, seed=5), arr(seed=6)),
        "stats": (arr(5, seed=7),),
    }[name]


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_check_grads_reverse_and_forward(lib: Any, name: str) -> None:
    rev = irgrad.jax.function(lib, name, SIGNATURES[name])
    fwd = irgrad.jax.function(lib, name, SIGNATURES[name], mode="fwd")
    check_grads(rev, args_of(name), order=1, modes=["rev"])
    check_grads(fwd, args_of(name), order=1, modes=["fwd"])
    check_grads(jax.jit(rev), args_of(name), order=1, modes=["rev"])


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_mode_both_forward_and_reverse_on_one_function(lib: Any, name: str) -> None:
    both = irgrad.jax.function(lib, name, SIGNATURES[name], mode="both")
    check_grads(both, args_of(name), order=1, modes=["fwd", "rev"])
    check_grads(jax.jit(both), args_of(name), order=1, modes=["fwd", "rev"])


def test_mode_both_under_vmap_jacobians_and_integer_inputs(lib: Any) -> None:
    mv = irgrad.jax.function(lib, "mv", SIGNATURES["mv"], mode="both")
    A, xs = arr(3, 4, seed=20), arr(6, 4, seed=21)
    check_grads(jax.vmap(mv, in_axes=(None, 0)), (A, xs), order=1, modes=["fwd", "rev"])
    per_item = jax.jit(jax.vmap(jax.grad(lambda A, x: mv(A, x).sum()), in_axes=(None, 0)))
    want = jnp.stack([jnp.outer(jnp.ones(3), jnp.tanh(x)) for x in xs])
    np.testing.assert_allclose(per_item(A, xs), want, rtol=1e-12)
    np.testing.assert_allclose(jax.jit(jax.jacfwd(mv, argnums=1))(A, xs[0]),
                               jax.jit(jax.jacrev(mv, argnums=1))(A, xs[0]), rtol=1e-12)
    gather = irgrad.jax.function(lib, "gather", "x[n], idx[m] -> y[m]",
                                 constants={"c": 2.0}, mode="both")
    x, idx = arr(4, seed=22), jnp.asarray([2, 0, 2], dtype=jnp.int32)
    np.testing.assert_allclose(jax.grad(lambda x: gather(x, idx).sum())(x),
                               [4 * x[0], 0, 8 * x[2], 0], rtol=1e-12)
    _, tangent = jax.jvp(lambda x: gather(x, idx), (x,), (jnp.ones(4),))
    np.testing.assert_allclose(tangent, 4 * x[idx], rtol=1e-12)


def test_check_grads_at_several_levels(lib_levels: Any) -> None:
    f = irgrad.jax.function(lib_levels, "f", SIGNATURES["f"])
    check_grads(f, args_of("f"), order=1, modes=["rev"])


def test_jit_grad_and_jacobians_agree(lib: Any) -> None:
    rev = irgrad.jax.function(lib, "mv", SIGNATURES["mv"])
    fwd = irgrad.jax.function(lib, "mv", SIGNATURES["mv"], mode="fwd")
    A, x = args_of("mv")
    want = A * (1 - jnp.tanh(x) ** 2)[None, :]
    np.testing.assert_allclose(jax.jit(jax.jacrev(rev, argnums=1))(A, x), want, rtol=1e-12)
    np.testing.assert_allclose(jax.jit(jax.jacfwd(fwd, argnums=1))(A, x), want, rtol=1e-12)
    loss = jax.jit(jax.grad(lambda A, x: jnp.sum(rev(A, x) ** 2), argnums=(0, 1)))
    gA, gx = loss(A, x)
    y = A @ jnp.tanh(x)
    np.testing.assert_allclose(gA, 2 * y[:, None] * jnp.tanh(x)[None, :], rtol=1e-12)
    np.testing.assert_allclose(gx, want.T @ (2 * y), rtol=1e-12)


def test_batch_dimension_and_vmap(lib: Any) -> None:
    rev = irgrad.jax.function(lib, "mv", SIGNATURES["mv"])
    A, xs = arr(3, 4, seed=8), arr(6, 4, seed=9)
    ys = rev(A, xs)
    assert ys.shape == (6, 3)
    np.testing.assert_allclose(ys, jax.vmap(rev, in_axes=(None, 0))(A, xs), rtol=1e-14)
    check_grads(rev, (A, xs), order=1, modes=["rev"])
    check_grads(jax.vmap(rev, in_axes=(None, 0)), (A, xs), order=1, modes=["rev"])
    fwd = irgrad.jax.function(lib, "mv", SIGNATURES["mv"], mode="fwd")
    check_grads(jax.vmap(fwd, in_axes=(None, 0)), (A, xs), order=1, modes=["fwd"])


def test_nondiff_integer_input_and_float32(lib: Any) -> None:
    gather = irgrad.jax.function(lib, "gather", "x[n], idx[m] -> y[m]", constants={"c": 2.0})
    x, idx = arr(4, seed=10), jnp.asarray([2, 0, 2], dtype=jnp.int32)
    gx = jax.grad(lambda x: gather(x, idx).sum())(x)
    np.testing.assert_allclose(gx, np.array([4 * x[0], 0, 8 * x[2], 0]), rtol=1e-12)
    check_grads(lambda x: gather(x, idx), (x,), order=1, modes=["rev"])
    h = irgrad.jax.function(lib, "h", "x[n] -> y[n]")
    x32 = jnp.linspace(-1, 1, 5, dtype=jnp.float32)
    g32 = jax.grad(lambda x: h(x).sum())(x32)
    assert g32.dtype == jnp.float32
    np.testing.assert_allclose(g32, 3 * x32**2, rtol=1e-6)
    g_nd = irgrad.jax.function(lib, "g", SIGNATURES["g"], nondiff=["a"])
    ga = jax.grad(g_nd, argnums=1)(*args_of("g"))
    assert float(ga) == 0.0


def test_convert_float32_to_double(lib: Any) -> None:
    f = irgrad.jax.function(lib, "f", SIGNATURES["f"], convert=True)
    x = jnp.linspace(0, 1, 4, dtype=jnp.float32)
    g = jax.jit(jax.grad(lambda x: f(x, jnp.ones(4, jnp.float32)).sum()))(x)
    assert g.dtype == jnp.float32
    np.testing.assert_allclose(g, np.cos(x) + 2 * x, rtol=1e-6)


def test_wrong_inputs_give_clear_errors(lib: Any) -> None:
    f = irgrad.jax.function(lib, "f", SIGNATURES["f"])
    x = jnp.ones(3)
    with pytest.raises(UsageError, match="dimension 'n' is 3 from input 'x' but 2"):
        jax.jit(f)(x, x[:2])
    with pytest.raises(UsageError, match=r"input 'x' must be float64 .*got float32"):
        jax.grad(lambda x: f(x, jnp.ones(3)).sum())(x.astype(jnp.float32))
    with pytest.raises(UsageError, match="expected 2 inputs \\(x, w\\), got 1"):
        f(x)
    with pytest.raises(UsageError, match=r"mode must be 'rev' .*'fwd' .*or 'both'"):
        irgrad.jax.function(lib, "f", SIGNATURES["f"], mode="sideways")


def test_readme_jax_snippet_runs() -> None:
    namespace = run_readme_section("JAX")
    np.testing.assert_allclose(namespace["grad_x"], namespace["expected"], rtol=1e-12)
    jac = namespace["jacobian"]
    np.testing.assert_allclose(jnp.diag(jac), namespace["expected"], rtol=1e-12)
