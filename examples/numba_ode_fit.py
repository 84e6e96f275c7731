"""Fit the parameters of an ODE integrated by numba, with SciPy and irgrad's gradient.

The model is Lotka-Volterra (prey x, predator y)::

    x' = a x - b x y        y' = -c y + d x y

integrated with a fixed-step RK4 written as ordinary ``@njit`` code. ``loss(p, ...)``
integrates from the initial state and sums the squared differences with observations;
``irgrad.grad(loss)`` differentiates the whole integrator (loops, temporaries, calls to
``rhs``) from numba's LLVM IR, and ``scipy.optimize.minimize`` (L-BFGS-B) uses it.

Run: ``python examples/numba_ode_fit.py`` (prints the fit and a finite-difference check).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit
from scipy.optimize import minimize

import irgrad


@njit
def rhs(state, p, out):
    x, y = state[0], state[1]
    out[0] = p[0] * x - p[1] * x * y
    out[1] = -p[2] * y + p[3] * x * y


@njit
def integrate(p, y0, dt, n_steps, stride, trajectory):
    """RK4 from y0; every ``stride`` steps the state is written to ``trajectory``."""
    y = y0.copy()
    k1 = np.empty(2)
    k2 = np.empty(2)
    k3 = np.empty(2)
    k4 = np.empty(2)
    for step in range(n_steps):
        rhs(y, p, k1)
        rhs(y + 0.5 * dt * k1, p, k2)
        rhs(y + 0.5 * dt * k2, p, k3)
        rhs(y + dt * k3, p, k4)
        y = y + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        if (step + 1) % stride == 0:
            row = (step + 1) // stride - 1
            trajectory[row, 0] = y[0]
            trajectory[row, 1] = y[1]


@njit
def loss(p, y0, observed, dt, stride):
    n_obs = observed.shape[0]
    trajectory = np.empty((n_obs, 2))
    integrate(p, y0, dt, n_obs * stride, stride, trajectory)
    total = 0.0
    for i in range(n_obs):
        for j in range(2):
            r = trajectory[i, j] - observed[i, j]
            total += r * r
    return total


def main() -> None:
    rng = np.random.default_rng(0)
    true_p = np.array([1.0, 0.4, 0.9, 0.3])
    y0 = np.array([2.0, 1.0])
    dt, stride, n_obs = 0.01, 20, 40
    observed = np.empty((n_obs, 2))
    integrate(true_p, y0, dt, n_obs * stride, stride, observed)
    observed += 0.01 * rng.normal(size=observed.shape)

    grad_loss = irgrad.grad(loss)  # gradients w.r.t. p, y0, observed and dt

    def objective(p: np.ndarray) -> tuple[float, np.ndarray]:
        dp = grad_loss(p, y0, observed, dt, stride)[0]
        return float(loss(p, y0, observed, dt, stride)), dp

    p_start = np.array([0.7, 0.6, 0.7, 0.5])
    # the gradient against central finite differences at the start
    dp = objective(p_start)[1]
    eps = 1e-6
    fd = np.array([(loss(p_start + eps * e, y0, observed, dt, stride)
                    - loss(p_start - eps * e, y0, observed, dt, stride)) / (2 * eps)
                   for e in np.eye(4)])
    rel = float(np.max(np.abs(dp - fd) / np.maximum(np.abs(fd), 1e-12)))
    print(f"gradient at start: {np.array2string(dp, precision=6)}")
    print(f"largest relative difference to finite differences: {rel:.2e}")
    assert rel < 1e-5, "irgrad's gradient disagrees with finite differences"

    start = time.perf_counter()
    result = minimize(objective, p_start, jac=True, method="L-BFGS-B",
                      bounds=[(0.05, 2.0)] * 4)
    elapsed = time.perf_counter() - start
    print(f"L-BFGS-B: {result.nit} iterations, {result.nfev} gradient evaluations, "
          f"{elapsed:.2f} s")
    print(f"loss {loss(p_start, y0, observed, dt, stride):.4f} -> {result.fun:.6f}")
    print(f"fitted parameters {np.array2string(result.x, precision=4)}, "
          f"true {np.array2string(true_p, precision=4)}")
    assert np.allclose(result.x, true_p, atol=0.05), "the fit did not recover the parameters"


if __name__ == "__main__":
    main()
