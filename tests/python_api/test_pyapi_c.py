"""irgrad.compile on C: primal calls and every derivative entry, checked numerically at
-O0..-O3 (finite differences, forward against reverse, dot-product test)."""

from __future__ import annotations

import numpy as np
import pytest
from pyapi_helpers import C_KERNELS, central_fd, energy_np, fd_gradient, rhs_np

import irgrad
import irgrad.errors
from irgrad import Active, Const, Duplicated, DuplicatedNoNeed

RNG = np.random.default_rng(7)
N = 6


@pytest.fixture(scope="module", params=[0, 1, 2, 3], ids=lambda o: f"O{o}")
def lib(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> irgrad.Library:
    cache = tmp_path_factory.mktemp(f"cache-O{request.param}")
    return irgrad.compile(source=C_KERNELS, language="c", opt_level=request.param, cache_dir=cache)


def test_primal_calls(lib: irgrad.Library) -> None:
    x = RNG.normal(size=N)
    w = RNG.normal(size=N)
    assert lib["energy"](x, N, 0.7) == pytest.approx(energy_np(x, 0.7), rel=1e-12)
    y = np.zeros(N)
    assert lib.rhs(y, x, w, N) is None
    np.testing.assert_allclose(y, rhs_np(x, w), rtol=1e-12)
    assert lib.function("two")(1.5, 2.0) == pytest.approx(1.5**2 * 2.0 + np.sin(2.0))
    assert lib["count_positive"](np.array([1.0, -2.0, 3.0]), 3) == 2
    xs = RNG.normal(size=N).astype(np.float32)
    assert lib["fsum"](xs, N, 2.0) == pytest.approx(2 * float(np.sum(xs.astype(np.float64) ** 2)), rel=1e-5)


def test_gradient_matches_finite_differences(lib: irgrad.Library) -> None:
    x = RNG.normal(size=N)
    gx, gk = lib.gradient("energy", wrt=("x", 2))(x, N, 0.7)
    np.testing.assert_allclose(gx, fd_gradient(lambda v: energy_np(v, 0.7), x), rtol=1e-6, atol=1e-8)
    fd_k = (energy_np(x, 0.7 + 1e-6) - energy_np(x, 0.7 - 1e-6)) / 2e-6
    assert gk == pytest.approx(fd_k, rel=1e-6)
    np.testing.assert_array_equal(lib.gradient("energy")(x, N, 0.7), gx)


def test_autodiff_adds_into_shadows(lib: irgrad.Library) -> None:
    x = RNG.normal(size=N)
    grad = lib.gradient("energy", wrt=0)(x, N, 0.7)
    dx = np.ones(N)
    result = lib.autodiff("energy", Duplicated(x, dx), Const(N), Const(0.7))
    assert result == ()
    np.testing.assert_allclose(dx, 1.0 + grad, rtol=1e-13)
    lib.autodiff("energy", Duplicated(x, dx), N, Const(0.7))
    np.testing.assert_allclose(dx, 1.0 + 2.0 * grad, rtol=1e-13)


def test_active_scalars_return_a_tuple_in_argument_order(lib: irgrad.Library) -> None:
    a, b = 1.3, -0.4
    da, db = lib.autodiff("two", Active(a), Active(b))
    assert da == pytest.approx(2 * a * b, rel=1e-13)
    assert db == pytest.approx(a * a + np.cos(b), rel=1e-13)
    # bare floats are Active (like C without markers); Const drops one
    assert lib.autodiff("two", a, b) == (da, db)
    assert lib.autodiff("two", Const(a), b) == (db,)
    (grads, primal) = lib.autodiff("two", a, Const(b), return_primal=True)
    assert grads == (da,)
    assert primal == pytest.approx(a * a * b + np.sin(b))


def test_seed_scales_the_reverse_pass(lib: irgrad.Library) -> None:
    x = RNG.normal(size=N)
    dx1, dx3 = np.zeros(N), np.zeros(N)
    (dk1,) = lib.autodiff("energy", Duplicated(x, dx1), N, Active(0.7))
    (dk3,) = lib.autodiff("energy", Duplicated(x, dx3), N, Active(0.7), seed=3.0)
    np.testing.assert_allclose(dx3, 3.0 * dx1, rtol=1e-13)
    assert dk3 == pytest.approx(3.0 * dk1, rel=1e-13)


def test_fwddiff_matches_finite_differences_and_reverse(lib: irgrad.Library) -> None:
    x, t = RNG.normal(size=N), RNG.normal(size=N)
    tangent = lib.fwddiff("energy", Duplicated(x, t), N, Duplicated(0.7, 0.5))
    fd = central_fd(lambda s: energy_np(x + s[0] * t, 0.7 + 0.5 * s[0]), np.zeros(1), np.ones(1))
    assert tangent == pytest.approx(float(fd), rel=1e-6)
    gx, gk = lib.gradient("energy", wrt=(0, 2))(x, N, 0.7)
    assert tangent == pytest.approx(float(gx @ t) + 0.5 * gk, rel=1e-12)
    primal, tangent2 = lib.fwddiff("energy", Duplicated(x, t), N, Duplicated(0.7, 0.5),
                                   return_primal=True)  # fmt: skip
    assert primal == pytest.approx(energy_np(x, 0.7), rel=1e-12)
    assert tangent2 == pytest.approx(tangent, rel=1e-14)
    # a bare float is Const in forward mode
    assert lib.fwddiff("energy", Duplicated(x, t), N, 0.7) == pytest.approx(float(gx @ t), rel=1e-12)


def test_vjp_jvp_dot_product_and_finite_differences(lib: irgrad.Library) -> None:
    x, w = RNG.normal(size=N), RNG.normal(size=N)
    t, v = RNG.normal(size=N), RNG.normal(size=N)
    y = np.zeros(N)
    jt = lib.jvp("rhs", wrt="x", outputs="y")(y, x, w, N, t)
    np.testing.assert_allclose(jt, central_fd(lambda z: rhs_np(z, w), x, t), rtol=1e-6, atol=1e-8)
    jtv = lib.vjp("rhs", wrt=1, outputs=0)(y, x, w, N, v)
    assert float(v @ jt) == pytest.approx(float(jtv @ t), rel=1e-12)
    np.testing.assert_allclose(y, rhs_np(x, w), rtol=1e-12)  # the primal output is written
    # several wrt: a tuple of new arrays; the cotangent array is not consumed
    vx, vw = lib.vjp("rhs", wrt=(1, 2), outputs=0)(y, x, w, N, v)
    np.testing.assert_array_equal(vx, jtv)
    jw = lib.jvp("rhs", wrt=2, outputs=0)(y, x, w, N, t)
    assert float(v @ jw) == pytest.approx(float(vw @ t), rel=1e-12)
    # a scalar function: vjp scales the gradient, jvp is the directional derivative
    g = lib.gradient("energy")(x, N, 0.7)
    np.testing.assert_allclose(lib.vjp("energy")(x, N, 0.7, 2.5), 2.5 * g, rtol=1e-13)
    assert lib.jvp("energy")(x, N, 0.7, t) == pytest.approx(float(g @ t), rel=1e-12)


def test_output_shadows_and_dupnoneed(lib: irgrad.Library) -> None:
    x, w, v = RNG.normal(size=N), RNG.normal(size=N), RNG.normal(size=N)
    dx1, dx2 = np.zeros(N), np.zeros(N)
    y, dy = np.zeros(N), v.copy()
    lib.autodiff("rhs", Duplicated(y, dy), Duplicated(x, dx1), Const(w), N)
    np.testing.assert_array_equal(dy, np.zeros(N))  # the adjoint of an overwritten output is consumed
    lib.autodiff("rhs", DuplicatedNoNeed(np.zeros(N), v.copy()), Duplicated(x, dx2), w, N)
    np.testing.assert_allclose(dx2, dx1, rtol=1e-13)
    np.testing.assert_allclose(dx1, lib.vjp("rhs", wrt=1, outputs=0)(y, x, w, N, v), rtol=1e-13)
    # forward mode: tangents of outputs are stored into their shadows
    t, ty = RNG.normal(size=N), np.full(N, 123.0)
    assert lib.fwddiff("rhs", Duplicated(y, ty), Duplicated(x, t), w, N) is None
    np.testing.assert_allclose(ty, central_fd(lambda z: rhs_np(z, w), x, t), rtol=1e-6, atol=1e-8)


def test_float32_arrays_and_scalars(lib: irgrad.Library) -> None:
    x = RNG.normal(size=N).astype(np.float32)
    gx, ga = lib.gradient("fsum", wrt=(0, 2))(x, N, 1.5)
    assert gx.dtype == np.float32
    np.testing.assert_allclose(gx, 3.0 * x, rtol=1e-6)
    assert ga == pytest.approx(float(np.sum(x.astype(np.float64) ** 2)), rel=1e-5)
    assert lib.fwddiff("fsum", Const(x), N, Duplicated(1.5, 1.0)) == pytest.approx(ga, rel=1e-6)


STATEFUL = r"""
static double weights[4];
double scale = 2.0;
static const double table[2] = {1.0, 3.0};
static int calls;
void set_weights(const double *w, double s) {
  for (int i = 0; i < 4; i++) weights[i] = w[i];
  scale = s;
}
double weighted(const double *x) {
  calls++;
  double e = 0;
  for (int i = 0; i < 4; i++) e += weights[i] * x[i] * x[i] * scale * table[i % 2];
  return e;
}
int call_count(void) { return calls; }
"""


@pytest.mark.parametrize("opt", [0, 2])
def test_derivatives_see_the_state_primal_calls_set(opt: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    lib = irgrad.compile(source=STATEFUL, language="c", opt_level=opt,
                         cache_dir=tmp_path_factory.mktemp("state"))  # fmt: skip
    w, x = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, -1.0, 2.0, 1.5])
    lib["set_weights"](w, 0.5)
    expected = w * 2 * x * 0.5 * np.array([1.0, 3.0, 1.0, 3.0])
    np.testing.assert_allclose(lib.gradient("weighted")(x), expected, rtol=1e-14)
    t = np.ones(4)
    assert lib.fwddiff("weighted", Duplicated(x, t)) == pytest.approx(float(expected.sum()))
    assert lib["call_count"]() == 2  # the derivatives ran the primal code on the same state
    lib["set_weights"](2 * w, 0.5)
    np.testing.assert_allclose(lib.gradient("weighted")(x), 2 * expected, rtol=1e-14)


def test_vector_forward_mode_gives_jacobians(lib: irgrad.Library) -> None:
    x, w = RNG.normal(size=N), RNG.normal(size=N)
    eye = np.eye(N)
    grad = lib.gradient("energy")(x, N, 0.7)
    np.testing.assert_allclose(lib.fwddiff("energy", Duplicated(x, eye), N, 0.7, width=N), grad,
                               rtol=1e-12)  # fmt: skip
    primal, tangents = lib.fwddiff("energy", Duplicated(x, [eye[0], eye[3]]), N,
                                   Duplicated(0.7, (0.0, 1.0)), width=2, return_primal=True)  # fmt: skip
    assert primal == pytest.approx(energy_np(x, 0.7))
    dk = lib.gradient("energy", wrt=2)(x, N, 0.7)
    np.testing.assert_allclose(tangents, [grad[0], grad[3] + dk], rtol=1e-12)
    # columns of the Jacobian of an array function, checked against reverse mode rows
    y, cols = np.zeros(N), np.zeros((N, N))
    lib.fwddiff("rhs", Duplicated(y, cols), Duplicated(x, eye), w, N, width=N)
    for i in range(N):
        row = lib.vjp("rhs", wrt=1, outputs=0)(y, x, w, N, eye[i])
        np.testing.assert_allclose(cols[:, i], row, rtol=1e-12, atol=1e-15)
    with pytest.raises(irgrad.errors.UsageError, match=r"width=3 needs 3 tangents"):
        lib.fwddiff("energy", Duplicated(x, eye), N, 0.7, width=3)
