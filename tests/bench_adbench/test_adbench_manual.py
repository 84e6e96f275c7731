"""Hand-written GMM, LSTM and BA derivatives against ADBench's golden gradients and
Jacobians (1e-8) and against central finite differences of our C objectives."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from adbench import data
from adbench.native import AdbenchLib

sys.path.insert(0, str(Path(__file__).parent))
from adbench_fd import central_jacobian

TOL = 1e-8


# --------------------------------------------------------------------------- GMM


def _gmm_with_params(g: data.GMMInput, theta: np.ndarray) -> data.GMMInput:
    a, b = g.k, g.k + g.k * g.d
    return dataclasses.replace(
        g,
        alphas=theta[:a].copy(),
        means=theta[a:b].reshape(g.means.shape).copy(),
        icf=theta[b:].reshape(g.icf.shape).copy(),
    )


def _gmm_params(g: data.GMMInput) -> np.ndarray:
    return np.concatenate([g.alphas, g.means.ravel(), g.icf.ravel()])


def test_gmm_manual_gradient_matches_golden(
    lib: AdbenchLib, adbench_root: Path, golden: Any
) -> None:
    g = data.read_gmm(adbench_root / "gmm" / "test.txt")
    err, grad = lib.gmm_gradient_manual(g)
    assert abs(err - golden["gmm"]["objective"]) < TOL
    np.testing.assert_allclose(grad, golden["gmm"]["gradient"], rtol=0, atol=TOL)


@pytest.mark.parametrize("name", ["gmm_d2_K5.txt", "gmm_d10_K5.txt"])
def test_gmm_manual_gradient_matches_finite_differences(
    lib: AdbenchLib, adbench_root: Path, name: str
) -> None:
    full = data.read_gmm(adbench_root / "gmm" / "1k" / name)
    g = dataclasses.replace(full, n=50, x=full.x[:50].copy())  # keep the test fast
    err, grad = lib.gmm_gradient_manual(g)
    assert err == pytest.approx(lib.gmm_objective(g), rel=1e-13)
    fd = central_jacobian(
        lambda t: np.array([lib.gmm_objective(_gmm_with_params(g, t))]), _gmm_params(g), h=1e-6
    )[0]
    scale = max(1.0, float(np.abs(grad).max()))
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-6 * scale)
    assert np.abs(grad).max() > 1.0  # a real, non-trivial gradient


# --------------------------------------------------------------------------- LSTM


def test_lstm_manual_gradient_matches_golden(
    lib: AdbenchLib, adbench_root: Path, golden: Any
) -> None:
    s = data.read_lstm(adbench_root / "lstm" / "lstm_l2_c1024.txt")
    state = s.state.copy()
    loss, grad = lib.lstm_gradient_manual(s)
    assert abs(loss - lib.lstm_objective(s)) < 1e-14
    assert np.array_equal(s.state, state)
    np.testing.assert_allclose(grad, golden["lstm"]["gradient"], rtol=0, atol=TOL)


@pytest.mark.parametrize("layers", [1, 3])
def test_lstm_manual_gradient_matches_finite_differences(
    lib: AdbenchLib, adbench_root: Path, layers: int
) -> None:
    full = data.read_lstm(adbench_root / "lstm" / "lstm_l4_c1024.txt")
    c = 20
    s = dataclasses.replace(
        full,
        l=layers,
        c=c,
        main_params=full.main_params[: 2 * layers].copy(),
        state=full.state[: 2 * layers].copy(),
        sequence=full.sequence[:c].copy(),
    )
    split = 8 * s.l * s.b

    def loss(t: np.ndarray) -> np.ndarray:
        v = dataclasses.replace(
            s,
            main_params=t[:split].reshape(s.main_params.shape).copy(),
            extra_params=t[split:].reshape(s.extra_params.shape).copy(),
        )
        return np.array([lib.lstm_objective(v)])

    _, grad = lib.lstm_gradient_manual(s)
    theta = np.concatenate([s.main_params.ravel(), s.extra_params.ravel()])
    fd = central_jacobian(loss, theta, h=1e-5)[0]
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-9)
    assert np.abs(grad).max() > 1e-3


# --------------------------------------------------------------------------- BA


def test_ba_manual_jacobian_matches_golden(
    lib: AdbenchLib, adbench_root: Path, golden: Any
) -> None:
    a = data.read_ba(adbench_root / "ba" / "test.txt")
    reproj, werr, jac = lib.ba_jacobian_manual(a)
    shape = golden["ba"]["J_shape"]
    assert jac.shape == (shape["nrows"], shape["ncols"])
    assert len(jac.rows) == shape["rows_size"] and jac.rows[-1] == shape["nnz"]
    np.testing.assert_allclose(jac.vals, golden["ba"]["J_vals_csr"], rtol=0, atol=TOL)
    np.testing.assert_allclose(reproj[3], golden["ba"]["reproj_err_pair"], rtol=0, atol=TOL)
    np.testing.assert_allclose(werr, golden["ba"]["w_err"], rtol=0, atol=TOL)
    # row 2*3 (observation 3: camera 1, point 3): camera, point, weight columns
    lo = jac.rows[6]
    assert jac.cols[lo : lo + 15].tolist() == [
        *range(11, 22),
        22 + 9,
        22 + 10,
        22 + 11,
        22 + 30 + 3,
    ]
    assert jac.cols[jac.rows[20]] == 22 + 30 + 0 and jac.vals[jac.rows[20]] == -2 * a.w[0]


def _random_ba(rng: np.random.Generator, zero_rotation: bool) -> data.BAInput:
    n, m, p = 2, 3, 5
    cams = np.zeros((n, 11))
    cams[:, 0:3] = 0.0 if zero_rotation else rng.normal(0, 0.4, (n, 3))
    cams[:, 3:6] = rng.normal(0, 0.3, (n, 3))
    cams[:, 6] = rng.uniform(400, 600, n)
    cams[:, 7:9] = rng.normal(0, 5, (n, 2))
    cams[:, 9:11] = rng.normal(0, 0.05, (n, 2))
    x = rng.normal(0, 0.5, (m, 3))
    x[:, 2] += 5.0  # in front of the cameras
    obs = np.array([[i % n, (2 * i) % m] for i in range(p)], dtype=np.int32)
    return data.BAInput(
        n=n,
        m=m,
        p=p,
        cams=cams,
        x=x,
        w=rng.uniform(0.5, 1.5, p),
        obs=obs,
        feats=rng.normal(0, 50, (p, 2)),
    )


@pytest.mark.parametrize("zero_rotation", [False, True])
def test_ba_manual_jacobian_matches_finite_differences(
    lib: AdbenchLib, zero_rotation: bool
) -> None:
    a = _random_ba(np.random.default_rng(7), zero_rotation)
    sizes = [a.cams.size, a.x.size, a.w.size]

    def residuals(t: np.ndarray) -> np.ndarray:
        c, x, w = np.split(t, np.cumsum(sizes)[:-1])
        v = dataclasses.replace(
            a, cams=c.reshape(a.cams.shape).copy(), x=x.reshape(a.x.shape).copy(), w=w.copy()
        )
        reproj, werr = lib.ba_objective(v)
        return np.concatenate([reproj.ravel(), werr])

    reproj, werr, jac = lib.ba_jacobian_manual(a)
    r0, w0 = lib.ba_objective(a)
    np.testing.assert_allclose(reproj, r0, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(werr, w0)
    theta = np.concatenate([a.cams.ravel(), a.x.ravel(), a.w])
    fd = central_jacobian(residuals, theta, h=1e-7)
    dense = jac.to_dense()
    scale = np.abs(dense).max()
    np.testing.assert_allclose(dense, fd, rtol=0, atol=1e-6 * scale)
    # structure: exactly 15 entries per reprojection row, one per weight row
    assert np.diff(jac.rows).tolist() == [15] * (2 * a.p) + [1] * a.p


# --------------------------------------------------------------------------- Hand


@pytest.mark.parametrize(
    ("key", "name", "ncols"),
    [("hand_simple", "test.txt", 26), ("hand_complicated", "hand_complicated.txt", 28)],
)
def test_hand_objective_finite_differences_match_golden_jacobian(
    lib: AdbenchLib, adbench_root: Path, golden: Any, key: str, name: str, ncols: int
) -> None:
    h = data.read_hand(adbench_root / "hand" / name)
    nrows = 3 * len(h.correspondences)
    want = np.array(golden[key]["J"]).reshape(ncols, nrows).T  # stored column-major
    fd_theta = central_jacobian(
        lambda t: lib.hand_objective(dataclasses.replace(h, theta=t.copy())), h.theta, h=1e-6
    )
    np.testing.assert_allclose(fd_theta, want[:, ncols - 26 :], rtol=0, atol=1e-7)
    if h.us is not None:
        us = h.us
        fd_us = central_jacobian(
            lambda u: lib.hand_objective(dataclasses.replace(h, us=u.reshape(us.shape).copy())),
            us.ravel(),
            h=1e-6,
        )
        # column 0/1: derivative of each point's residuals w.r.t. its own u0/u1
        compressed = np.stack(
            [fd_us[np.arange(nrows), 2 * (np.arange(nrows) // 3) + j] for j in range(2)], axis=1
        )
        np.testing.assert_allclose(compressed, want[:, :2], rtol=0, atol=1e-7)


@pytest.mark.parametrize(
    ("key", "name", "ncols"),
    [("hand_simple", "test.txt", 26), ("hand_complicated", "hand_complicated.txt", 28)],
)
def test_hand_manual_jacobian_matches_golden(
    lib: AdbenchLib, adbench_root: Path, golden: Any, key: str, name: str, ncols: int
) -> None:
    h = data.read_hand(adbench_root / "hand" / name)
    err, jac = lib.hand_jacobian_manual(h)
    np.testing.assert_allclose(err, golden[key]["objective"], rtol=0, atol=TOL)
    want = np.array(golden[key]["J"]).reshape(ncols, len(err)).T
    np.testing.assert_allclose(jac, want, rtol=0, atol=TOL)


@pytest.mark.parametrize("folder", ["simple_small", "complicated_small"])
def test_hand_manual_jacobian_matches_finite_differences(
    lib: AdbenchLib, adbench_root: Path, folder: str
) -> None:
    h = data.read_hand(adbench_root / "hand" / folder / "hand1_t26_c100.txt")
    err, jac = lib.hand_jacobian_manual(h)
    np.testing.assert_array_equal(err, lib.hand_objective(h))
    fd = central_jacobian(
        lambda t: lib.hand_objective(dataclasses.replace(h, theta=t.copy())), h.theta, h=1e-6
    )
    np.testing.assert_allclose(jac[:, jac.shape[1] - 26 :], fd, rtol=0, atol=1e-7)
    assert np.abs(jac[:, 6:]).max() > 1e-2  # the finger angles matter
