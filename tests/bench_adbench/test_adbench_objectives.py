"""Our C objectives against ADBench's golden values (tolerance 1e-8), and the readers'
replication rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from adbench import data
from adbench.native import AdbenchLib

TOL = 1e-8


def test_data_root_is_the_shared_folder(adbench_root: Path) -> None:
    assert data.data_root() == adbench_root


def test_gmm_objective_matches_golden(lib: AdbenchLib, adbench_root: Path, golden: Any) -> None:
    g = data.read_gmm(adbench_root / "gmm" / "test.txt")
    assert (g.d, g.k, g.n, g.gamma, g.m) == (2, 3, 1, 1.0, 0)
    assert abs(lib.gmm_objective(g) - golden["gmm"]["objective"]) < TOL


def test_lstm_objective_matches_golden(lib: AdbenchLib, adbench_root: Path, golden: Any) -> None:
    s = data.read_lstm(adbench_root / "lstm" / "lstm_l2_c1024.txt")
    assert (s.l, s.c, s.b) == (2, 1024, 14)
    state = s.state.copy()
    loss = lib.lstm_objective(s)
    # the golden value is printed with 8 decimals
    assert abs(loss - golden["lstm"]["objective"]) < TOL
    assert np.array_equal(s.state, state), "the objective must not write the state"
    assert lib.lstm_objective(s) == loss


def test_ba_objective_matches_golden(lib: AdbenchLib, adbench_root: Path, golden: Any) -> None:
    a = data.read_ba(adbench_root / "ba" / "test.txt")
    reproj, werr = lib.ba_objective(a)
    assert reproj.shape == (10, 2) and werr.shape == (10,)
    np.testing.assert_allclose(
        reproj, np.tile(golden["ba"]["reproj_err_pair"], (10, 1)), rtol=0, atol=TOL
    )
    np.testing.assert_allclose(werr, golden["ba"]["w_err"], rtol=0, atol=TOL)


def test_hand_simple_objective_matches_golden(
    lib: AdbenchLib, adbench_root: Path, golden: Any
) -> None:
    h = data.read_hand(adbench_root / "hand" / "test.txt")
    assert not h.complicated
    np.testing.assert_allclose(
        lib.hand_objective(h), golden["hand_simple"]["objective"], rtol=0, atol=TOL
    )


def test_hand_complicated_objective_matches_golden(
    lib: AdbenchLib, adbench_root: Path, golden: Any
) -> None:
    h = data.read_hand(adbench_root / "hand" / "hand_complicated.txt")
    assert h.complicated and h.us is not None
    np.testing.assert_allclose(h.us, [[0.2, 0.25], [0.4, 0.5]])
    np.testing.assert_allclose(
        lib.hand_objective(h), golden["hand_complicated"]["objective"], rtol=0, atol=TOL
    )


def test_gmm_reader_replicates_the_single_point_of_2_5m_files(adbench_root: Path) -> None:
    g = data.read_gmm(adbench_root / "gmm" / "2.5M" / "gmm_d2_K5.txt")
    assert g.x.shape == (2_500_000, 2) and g.x.flags.c_contiguous
    assert np.array_equal(g.x, np.broadcast_to(g.x[0], g.x.shape))
    full = data.read_gmm(adbench_root / "gmm" / "1k" / "gmm_d2_K5.txt")
    assert full.x.shape == (1000, 2)
    assert len(np.unique(full.x, axis=0)) > 1


def test_ba_reader_replicates_cameras_points_and_observations(adbench_root: Path) -> None:
    a = data.read_ba(adbench_root / "ba" / "ba1_n49_m7776_p31843.txt")
    assert (a.n, a.m, a.p) == (49, 7776, 31843)
    assert a.cams.shape == (49, 11) and a.x.shape == (7776, 3) and a.feats.shape == (31843, 2)
    assert a.obs[50].tolist() == [50 % 49, 50]
    assert a.obs[7777].tolist() == [7777 % 49, 1]
    assert a.jacobian_shape == (3 * 31843, 11 * 49 + 3 * 7776 + 31843)


def test_hand_model_reader(adbench_root: Path) -> None:
    md = data.read_hand_model(adbench_root / "hand" / "model")
    assert md.n_bones == 22 and md.n_vertices == 544
    assert md.bone_names[:3] == ["wrist", "thumb1", "thumb2"] and md.parents[0] == -1
    assert md.triangles.shape == (1084, 3)
    # row-major as stored: the wrist's base_relative first row is the file's first four
    np.testing.assert_allclose(
        md.base_relatives[0, 0, :2], [0.9205236434936523, -0.1684776246547699]
    )
    np.testing.assert_allclose(md.weights.sum(axis=0), 1.0, atol=1e-6)
    big = data.read_hand(adbench_root / "hand" / "simple_big" / "hand1_t26_c100.txt")
    assert big.model.n_vertices == 10_000 and big.points.shape == (100, 3)
