"""Readers for ADBench's data files (GMM, LSTM, BA, Hand) into NumPy arrays.

The formats and replication rules are those of ../shared/adbench/README.md. Arrays are
C-contiguous float64 (int32 for indices), laid out exactly as the C objectives in
``c/`` expect them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
I32 = NDArray[np.int32]


def data_root() -> Path:
    """The shared ADBench data folder: ``<repo>/../shared/adbench``."""
    return Path(__file__).resolve().parents[2].parent / "shared" / "adbench"


class DataFormatError(ValueError):
    """A data file does not have the shape its header announces."""


def _numbers(path: Path) -> F64:
    return np.array(Path(path).read_text().split(), dtype=np.float64)


def _take(values: F64, pos: int, count: int, path: Path) -> tuple[F64, int]:
    if pos + count > values.size:
        raise DataFormatError(f"{path}: expected {pos + count} numbers, found {values.size}")
    return values[pos : pos + count], pos + count


# --------------------------------------------------------------------------- GMM


@dataclass
class GMMInput:
    d: int
    k: int
    n: int
    alphas: F64  # (k,)
    means: F64  # (k, d)
    icf: F64  # (k, d(d+1)/2): log-diagonal, then strictly lower part column by column
    x: F64  # (n, d)
    gamma: float
    m: int

    @property
    def n_params(self) -> int:
        return self.k + self.k * self.d + self.k * self.d * (self.d + 1) // 2


def read_gmm(path: Path | str, replicate_point: bool | None = None) -> GMMInput:
    """Read ``d k n`` / alphas / means / icf / points / ``gamma m``.

    The 2.5M files store one point that is replicated n times. ``replicate_point=None``
    decides from the file's size (one stored point and n > 1 means replicate).
    """
    path = Path(path)
    v = _numbers(path)
    d, k, n = (int(t) for t in v[:3])
    icf_sz = d * (d + 1) // 2
    pos = 3
    alphas, pos = _take(v, pos, k, path)
    means, pos = _take(v, pos, k * d, path)
    icf, pos = _take(v, pos, k * icf_sz, path)
    stored = (v.size - pos - 2) // d if d else 0
    if replicate_point is None:
        replicate_point = stored == 1 and n > 1
    if replicate_point:
        point, pos = _take(v, pos, d, path)
        x = np.tile(point, (n, 1))
    else:
        flat, pos = _take(v, pos, n * d, path)
        x = flat.reshape(n, d).copy()
    tail, pos = _take(v, pos, 2, path)
    return GMMInput(
        d=d,
        k=k,
        n=n,
        alphas=alphas.copy(),
        means=means.reshape(k, d).copy(),
        icf=icf.reshape(k, icf_sz).copy(),
        x=np.ascontiguousarray(x),
        gamma=float(tail[0]),
        m=int(tail[1]),
    )


# --------------------------------------------------------------------------- LSTM


@dataclass
class LSTMInput:
    l: int  # noqa: E741 -- ADBench's name for the number of layers
    c: int
    b: int
    main_params: F64  # (2l, 4b): per layer [W_f W_i W_o W_c], then [b_f b_i b_o b_c]
    extra_params: F64  # (3, b): in_weight, out_weight, out_bias
    state: F64  # (2l, b): per layer hidden, cell
    sequence: F64  # (c, b)

    @property
    def n_params(self) -> int:
        return 8 * self.l * self.b + 3 * self.b


def read_lstm(path: Path | str) -> LSTMInput:
    """Read ``l c b`` / main params / extra params / state / sequence."""
    path = Path(path)
    v = _numbers(path)
    l, c, b = (int(t) for t in v[:3])  # noqa: E741
    pos = 3
    main, pos = _take(v, pos, 8 * l * b, path)
    extra, pos = _take(v, pos, 3 * b, path)
    state, pos = _take(v, pos, 2 * l * b, path)
    seq, pos = _take(v, pos, c * b, path)
    return LSTMInput(
        l=l,
        c=c,
        b=b,
        main_params=main.reshape(2 * l, 4 * b).copy(),
        extra_params=extra.reshape(3, b).copy(),
        state=state.reshape(2 * l, b).copy(),
        sequence=seq.reshape(c, b).copy(),
    )


# --------------------------------------------------------------------------- BA


@dataclass
class BAInput:
    n: int
    m: int
    p: int
    cams: F64  # (n, 11): r(3) C(3) f u0 v0 k1 k2
    x: F64  # (m, 3)
    w: F64  # (p,)
    obs: I32  # (p, 2): camera index, point index
    feats: F64  # (p, 2)

    @property
    def jacobian_shape(self) -> tuple[int, int]:
        return 3 * self.p, 11 * self.n + 3 * self.m + self.p

    @property
    def jacobian_nnz(self) -> int:
        return 31 * self.p


def read_ba(path: Path | str) -> BAInput:
    """Read ``n m p`` / one camera / one point / one weight / one feature, replicated:
    observation i uses camera i mod n and point i mod m."""
    path = Path(path)
    v = _numbers(path)
    n, m, p = (int(t) for t in v[:3])
    pos = 3
    cam, pos = _take(v, pos, 11, path)
    point, pos = _take(v, pos, 3, path)
    w, pos = _take(v, pos, 1, path)
    feat, pos = _take(v, pos, 2, path)
    idx = np.arange(p, dtype=np.int64)
    obs = np.stack([idx % n, idx % m], axis=1).astype(np.int32)
    return BAInput(
        n=n,
        m=m,
        p=p,
        cams=np.tile(cam, (n, 1)),
        x=np.tile(point, (m, 1)),
        w=np.full(p, w[0]),
        obs=np.ascontiguousarray(obs),
        feats=np.tile(feat, (p, 1)),
    )


# --------------------------------------------------------------------------- Hand


@dataclass
class HandModel:
    bone_names: list[str]
    parents: I32  # (n_bones,), -1 for the root
    base_relatives: F64  # (n_bones, 4, 4), row-major as in the file
    inverse_base_absolutes: F64  # (n_bones, 4, 4)
    base_positions: F64  # (n_vertices, 3)
    weights: F64  # (n_bones, n_vertices)
    triangles: I32  # (n_triangles, 3)

    @property
    def n_bones(self) -> int:
        return len(self.bone_names)

    @property
    def n_vertices(self) -> int:
        return int(self.base_positions.shape[0])


@dataclass
class HandInput:
    model: HandModel
    correspondences: I32  # (N,): vertex (simple) or triangle (complicated) index
    points: F64  # (N, 3)
    us: F64 | None  # (N, 2) for the complicated variant
    theta: F64  # (26,)

    @property
    def complicated(self) -> bool:
        return self.us is not None


def read_hand_model(model_dir: Path | str) -> HandModel:
    """Read ``bones.txt``, ``vertices.txt`` and ``triangles.txt`` (':'-separated)."""
    model_dir = Path(model_dir)
    names: list[str] = []
    parents: list[int] = []
    rel: list[list[float]] = []
    inv: list[list[float]] = []
    for line in (model_dir / "bones.txt").read_text().splitlines():
        if not line.strip():
            continue
        f = line.split(":")
        if len(f) != 34:
            raise DataFormatError(f"{model_dir / 'bones.txt'}: bad line {line[:40]!r}")
        names.append(f[0])
        parents.append(int(f[1]))
        rel.append([float(t) for t in f[2:18]])
        inv.append([float(t) for t in f[18:34]])
    n_bones = len(names)
    positions: list[list[float]] = []
    weight_rows: list[dict[int, float]] = []
    for line in (model_dir / "vertices.txt").read_text().splitlines():
        if not line.strip():
            continue
        f = line.split(":")
        positions.append([float(t) for t in f[:3]])
        count = int(f[8])
        pairs = f[9 : 9 + 2 * count]
        weight_rows.append({int(pairs[2 * j]): float(pairs[2 * j + 1]) for j in range(count)})
    weights = np.zeros((n_bones, len(positions)))
    for v, row in enumerate(weight_rows):
        for bone, wt in row.items():
            weights[bone, v] = wt
    tris = [
        [int(t) for t in line.split(":")]
        for line in (model_dir / "triangles.txt").read_text().splitlines()
        if line.strip()
    ]
    return HandModel(
        bone_names=names,
        parents=np.array(parents, dtype=np.int32),
        base_relatives=np.array(rel).reshape(n_bones, 4, 4),
        inverse_base_absolutes=np.array(inv).reshape(n_bones, 4, 4),
        base_positions=np.array(positions),
        weights=weights,
        triangles=np.array(tris, dtype=np.int32).reshape(-1, 3),
    )


def read_hand(
    path: Path | str,
    model_dir: Path | str | None = None,
    complicated: bool | None = None,
    model: HandModel | None = None,
) -> HandInput:
    """Read ``N n_theta`` / N lines ``corr x y z`` / (complicated) N lines ``u0 u1`` /
    theta. The model defaults to the ``model`` folder next to the file; ``complicated``
    defaults to what the file's size says."""
    path = Path(path)
    v = _numbers(path)
    npts, n_theta = int(v[0]), int(v[1])
    if complicated is None:
        complicated = v.size == 2 + 6 * npts + n_theta
    pos = 2
    rows, pos = _take(v, pos, 4 * npts, path)
    rows = rows.reshape(npts, 4)
    us = None
    if complicated:
        flat, pos = _take(v, pos, 2 * npts, path)
        us = flat.reshape(npts, 2).copy()
    theta, pos = _take(v, pos, n_theta, path)
    if model is None:
        model = read_hand_model(model_dir if model_dir is not None else path.parent / "model")
    return HandInput(
        model=model,
        correspondences=rows[:, 0].astype(np.int32),
        points=np.ascontiguousarray(rows[:, 1:]),
        us=us,
        theta=theta.copy(),
    )
