"""PyTorch versions of the four ADBench objectives, vectorized the way PyTorch users
write them (batched tensor ops, a Python loop only where the model is sequential: LSTM
time steps, the bone chain), float64, with their derivatives:

- GMM, LSTM: ``torch.autograd.grad`` of the scalar objective (one reverse sweep);
- BA: per-observation 2x15 Jacobian blocks by ``torch.func.vmap(jacrev(...))``, laid out
  as the values of the CSR Jacobian (the structure is the C one, see ``ba_csr_values``);
- Hand: dense Jacobian by ``torch.func.jacfwd`` (26 tangents; complicated: the two u
  columns through a shared offset of every point's (u0, u1), as the residuals of a point
  depend only on its own u).

Each ``make_*`` returns a :class:`Prepared` pair of closures (objective, derivative) on
tensors made once from the NumPy input; they return NumPy arrays in the C layouts of
``native.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch.func import jacfwd, jacrev, vmap

from .data import F64, BAInput, GMMInput, HandInput, LSTMInput
from .tensor_common import Prepared, hand_pose_index, hand_positions_h, log_gamma_distrib

T = torch.Tensor
DT = torch.float64


def _t(a: np.ndarray, grad: bool = False) -> T:
    return torch.tensor(a, dtype=DT, requires_grad=grad)


# --------------------------------------------------------------------------- GMM


def gmm_objective(alphas: T, means: T, icf: T, x: T, gamma: float, m: int) -> T:
    n, d = x.shape
    k = alphas.shape[0]
    qs = icf[:, :d]
    sum_qs = qs.sum(1)
    qdiags = torch.exp(qs)
    # strictly lower part, column by column: (row, col) = (triu col, triu row)
    cols, rows = torch.triu_indices(d, d, 1)
    flat = torch.zeros(k, d * d, dtype=DT).index_copy(1, rows * d + cols, icf[:, d:])
    ls = flat.reshape(k, d, d)
    xc = x[:, None, :] - means[None, :, :]  # n, k, d
    qx = qdiags[None] * xc + torch.einsum("kij,nkj->nki", ls, xc)
    inner = alphas[None] + sum_qs[None] - 0.5 * (qx * qx).sum(2)
    slse = torch.logsumexp(inner, 1).sum()
    const = -n * d * 0.5 * math.log(2 * math.pi)
    npr = d + m + 1
    c = npr * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_distrib(0.5 * npr, d)
    prior = (
        0.5 * gamma * gamma * ((qdiags * qdiags).sum(1) + (icf[:, d:] ** 2).sum(1)) - m * sum_qs
    ).sum() - k * c
    return const + slse - n * torch.logsumexp(alphas, 0) + prior


def make_gmm(g: GMMInput) -> Prepared:
    params = [_t(g.alphas, True), _t(g.means, True), _t(g.icf, True)]
    x = _t(g.x)

    def objective() -> F64:
        with torch.no_grad():
            return gmm_objective(*params, x, g.gamma, g.m).reshape(1).numpy()

    def derivative() -> F64:
        e = gmm_objective(*params, x, g.gamma, g.m)
        grads = torch.autograd.grad(e, params)
        return torch.cat([gr.reshape(-1) for gr in grads]).numpy()

    return Prepared(objective, derivative)


# --------------------------------------------------------------------------- LSTM


def lstm_objective(main: T, extra: T, state: T, seq: T) -> T:
    n_layers = main.shape[0] // 2
    b = seq.shape[1]
    hidden = [state[2 * i] for i in range(n_layers)]
    cell = [state[2 * i + 1] for i in range(n_layers)]
    total = torch.zeros((), dtype=DT)
    for t in range(seq.shape[0] - 1):
        x = seq[t] * extra[0]
        for i in range(n_layers):
            w, bias = main[2 * i], main[2 * i + 1]
            gates = torch.cat((x, hidden[i], x, hidden[i])) * w + bias
            f = torch.sigmoid(gates[:b])
            ig = torch.sigmoid(gates[b : 2 * b])
            o = torch.sigmoid(gates[2 * b : 3 * b])
            g = torch.tanh(gates[3 * b :])
            cell[i] = cell[i] * f + ig * g
            hidden[i] = o * torch.tanh(cell[i])
            x = hidden[i]
        y = x * extra[1] + extra[2]
        lse = torch.log(torch.exp(y).sum() + 2.0)
        total = total + (seq[t + 1] * (y - lse)).sum()
    return -total / ((seq.shape[0] - 1) * b)


def make_lstm(s: LSTMInput) -> Prepared:
    main, extra = _t(s.main_params, True), _t(s.extra_params, True)
    state, seq = _t(s.state), _t(s.sequence)

    def objective() -> F64:
        with torch.no_grad():
            return lstm_objective(main, extra, state, seq).reshape(1).numpy()

    def derivative() -> F64:
        gm, ge = torch.autograd.grad(lstm_objective(main, extra, state, seq), [main, extra])
        return torch.cat([gm.reshape(-1), ge.reshape(-1)]).numpy()

    return Prepared(objective, derivative)


# --------------------------------------------------------------------------- BA


def _rodrigues(rot: T, x: T) -> T:
    """Rotate x (..., 3) by angle-axis rot (..., 3); the small-angle branch where
    theta == 0, with a safe theta so the other branch's gradient stays finite."""
    sq = (rot * rot).sum(-1, keepdim=True)
    zero = sq == 0
    theta = torch.sqrt(torch.where(zero, torch.ones_like(sq), sq))
    w = rot / theta
    c, s = torch.cos(theta), torch.sin(theta)
    big = (
        x * c + torch.linalg.cross(w, x, dim=-1) * s + w * ((w * x).sum(-1, keepdim=True) * (1 - c))
    )
    small = x + torch.linalg.cross(rot, x, dim=-1)
    return torch.where(zero, small, big)


def ba_reproj_error(cam: T, x: T, w: T, feat: T) -> T:
    """Reprojection error (..., 2) of cameras (..., 11), points (..., 3), weights (...)."""
    xcam = _rodrigues(cam[..., 0:3], x - cam[..., 3:6])
    p = xcam[..., 0:2] / xcam[..., 2:3]
    rsq = (p * p).sum(-1, keepdim=True)
    dist = 1.0 + cam[..., 9:10] * rsq + cam[..., 10:11] * rsq * rsq
    proj = p * dist * cam[..., 6:7] + cam[..., 7:9]
    return w[..., None] * (proj - feat)


def make_ba(a: BAInput) -> Prepared:
    cams, x, w, feats = _t(a.cams), _t(a.x), _t(a.w), _t(a.feats)
    ci = torch.tensor(a.obs[:, 0], dtype=torch.long)
    pi = torch.tensor(a.obs[:, 1], dtype=torch.long)
    block = vmap(jacrev(ba_reproj_error, argnums=(0, 1, 2)))

    def objective() -> F64:
        r = ba_reproj_error(cams[ci], x[pi], w, feats)
        return torch.cat([r.reshape(-1), 1.0 - w * w]).numpy()

    def derivative() -> F64:
        jc, jx, jw = block(cams[ci], x[pi], w, feats)  # (p,2,11) (p,2,3) (p,2)
        rows = torch.cat([jc, jx, jw[..., None]], dim=2)  # (p, 2, 15)
        return torch.cat([rows.reshape(-1), -2.0 * w]).numpy()

    return Prepared(objective, derivative)


# --------------------------------------------------------------------------- Hand


def _euler(p: T) -> T:
    """Rz(p1) Ry(p2) Rx(p0) for poses (B, 3) -> (B, 3, 3)."""
    cx, sx = torch.cos(p[:, 0]), torch.sin(p[:, 0])
    cz, sz = torch.cos(p[:, 1]), torch.sin(p[:, 1])
    cy, sy = torch.cos(p[:, 2]), torch.sin(p[:, 2])
    rows = [
        cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
        sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
        -sy, cy * sx, cy * cx,
    ]  # fmt: skip
    return torch.stack(rows, dim=1).reshape(-1, 3, 3)


def _angle_axis(aa: T) -> T:
    """Rotation matrix of angle-axis aa; identity below norm 1e-4 (no data-dependent
    Python branch, so jacfwd can trace it)."""
    norm = torch.sqrt((aa * aa).sum())
    small = norm < 0.0001
    norm = torch.where(small, torch.ones_like(norm), norm)
    x, y, z = aa / norm
    s, c = torch.sin(norm), torch.cos(norm)
    rows = [
        x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s,
        x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s,
        x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c,
    ]  # fmt: skip
    return torch.where(small, torch.eye(3, dtype=DT), torch.stack(rows).reshape(3, 3))


@dataclass
class HandTensors:
    parents: list[int]
    base_relatives: T  # (B, 4, 4)
    inverse_base_absolutes: T
    positions_h: T  # (V, 4) homogeneous
    weights: T  # (B, V)
    pose_index: T  # (20,) flat index into the (B*3) pose of each finger angle


def hand_tensors(h: HandInput) -> HandTensors:
    md = h.model
    return HandTensors(
        parents=[int(p) for p in md.parents],
        base_relatives=_t(md.base_relatives),
        inverse_base_absolutes=_t(md.inverse_base_absolutes),
        positions_h=_t(hand_positions_h(md)),
        weights=_t(md.weights),
        pose_index=torch.tensor(hand_pose_index(), dtype=torch.long),
    )


def hand_positions(m: HandTensors, theta: T) -> T:
    n_bones = m.base_relatives.shape[0]
    pose = torch.zeros(3 * n_bones, dtype=DT).index_put((m.pose_index,), theta[6:])
    top = torch.cat([_euler(pose.reshape(-1, 3)), torch.zeros(n_bones, 3, 1, dtype=DT)], 2)
    bottom = torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=DT).expand(n_bones, 1, 4)
    rot = torch.cat([top, bottom], 1)
    rel = m.base_relatives @ rot
    absolutes: list[T] = []
    for b, parent in enumerate(m.parents):
        absolutes.append(rel[b] if parent < 0 else absolutes[parent] @ rel[b])
    transforms = torch.stack(absolutes) @ m.inverse_base_absolutes
    skinned = torch.einsum("bv,bij,vj->vi", m.weights, transforms[:, :3, :], m.positions_h)
    return skinned @ _angle_axis(theta[:3]).T + theta[3:6]


def make_hand(h: HandInput) -> Prepared:
    m = hand_tensors(h)
    theta, points = _t(h.theta), _t(h.points)
    corr = torch.tensor(h.correspondences, dtype=torch.long)
    if h.us is None:

        def residuals(th: T) -> T:
            return (points - hand_positions(m, th)[corr]).reshape(-1)

        def derivative() -> F64:
            return jacfwd(residuals)(theta).numpy()

        return Prepared(lambda: residuals(theta).numpy(), derivative)

    us = _t(h.us)
    tri = torch.tensor(h.model.triangles, dtype=torch.long)[corr]  # (N, 3)

    def residuals_c(th: T, du: T) -> T:
        pos = hand_positions(m, th)
        u = us + du
        u0, u1 = u[:, 0:1], u[:, 1:2]
        hp = u0 * pos[tri[:, 0]] + u1 * pos[tri[:, 1]] + (1 - u0 - u1) * pos[tri[:, 2]]
        return (points - hp).reshape(-1)

    du0 = torch.zeros(2, dtype=DT)

    def derivative_c() -> F64:
        jt, ju = jacfwd(residuals_c, argnums=(0, 1))(theta, du0)
        return torch.cat([ju, jt], dim=1).numpy()

    return Prepared(lambda: residuals_c(theta, du0).numpy(), derivative_c)
