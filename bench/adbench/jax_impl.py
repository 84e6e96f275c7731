"""JAX versions of the four ADBench objectives, vectorized the way JAX users write them,
float64 (``jax_enable_x64``), every objective and derivative under ``jax.jit``:

- GMM, LSTM: ``jax.grad`` (LSTM time steps by ``lax.scan``, layers unrolled);
- BA: per-observation 2x15 blocks by ``vmap(jacrev(...))`` -> the CSR values;
- Hand: dense Jacobian by ``jacfwd`` (complicated: the two u columns through a shared
  offset of every point's (u0, u1), like torch_impl).

``make_*`` return the same :class:`Prepared` closures as torch_impl (from tensor_common:
NumPy results in the C layouts; each call blocks until the result is ready).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .data import F64, BAInput, GMMInput, HandInput, LSTMInput
from .tensor_common import Prepared, hand_pose_index, hand_positions_h, log_gamma_distrib

jax.config.update("jax_enable_x64", True)

A = jax.Array


def _np(f: Callable[..., Any], *args: Any) -> Callable[[], F64]:
    def call() -> F64:
        return np.asarray(jax.block_until_ready(f(*args)))

    return call


# --------------------------------------------------------------------------- GMM


def gmm_objective(alphas: A, means: A, icf: A, x: A, gamma: float, m: int) -> A:
    n, d = x.shape
    k = alphas.shape[0]
    qs = icf[:, :d]
    sum_qs = qs.sum(1)
    qdiags = jnp.exp(qs)
    cols, rows = np.triu_indices(d, 1)
    ls = jnp.zeros((k, d, d)).at[:, rows, cols].set(icf[:, d:])
    xc = x[:, None, :] - means[None, :, :]
    qx = qdiags[None] * xc + jnp.einsum("kij,nkj->nki", ls, xc)
    inner = alphas[None] + sum_qs[None] - 0.5 * (qx * qx).sum(2)
    slse = jax.nn.logsumexp(inner, axis=1).sum()
    const = -n * d * 0.5 * math.log(2 * math.pi)
    npr = d + m + 1
    c = npr * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_distrib(0.5 * npr, d)
    prior = (
        0.5 * gamma * gamma * ((qdiags * qdiags).sum(1) + (icf[:, d:] ** 2).sum(1)) - m * sum_qs
    ).sum() - k * c
    return const + slse - n * jax.nn.logsumexp(alphas) + prior


def make_gmm(g: GMMInput) -> Prepared:
    args = [jnp.asarray(v) for v in (g.alphas, g.means, g.icf, g.x)]

    def obj(a: A, mu: A, q: A, x: A) -> A:
        return gmm_objective(a, mu, q, x, g.gamma, g.m)

    def grad(a: A, mu: A, q: A, x: A) -> A:
        ga, gm, gq = jax.grad(obj, argnums=(0, 1, 2))(a, mu, q, x)
        return jnp.concatenate([ga.ravel(), gm.ravel(), gq.ravel()])

    return Prepared(_np(jax.jit(lambda *a: obj(*a).reshape(1)), *args), _np(jax.jit(grad), *args))


# --------------------------------------------------------------------------- LSTM


def lstm_objective(main: A, extra: A, state: A, seq: A) -> A:
    n_layers = main.shape[0] // 2
    b = seq.shape[1]

    def step(carry: tuple[A, A], io: tuple[A, A]) -> tuple[tuple[A, A], A]:
        hidden, cell = carry  # (l, b) each
        inp, goal = io
        x = inp * extra[0]
        hs, cs = [], []
        for i in range(n_layers):
            h, c = hidden[i], cell[i]
            gates = jnp.concatenate((x, h, x, h)) * main[2 * i] + main[2 * i + 1]
            f = jax.nn.sigmoid(gates[:b])
            ig = jax.nn.sigmoid(gates[b : 2 * b])
            o = jax.nn.sigmoid(gates[2 * b : 3 * b])
            g = jnp.tanh(gates[3 * b :])
            c = c * f + ig * g
            h = o * jnp.tanh(c)
            hs.append(h)
            cs.append(c)
            x = h
        y = x * extra[1] + extra[2]
        lse = jnp.log(jnp.exp(y).sum() + 2.0)
        return (jnp.stack(hs), jnp.stack(cs)), (goal * (y - lse)).sum()

    init = (state[0::2], state[1::2])
    _, terms = lax.scan(step, init, (seq[:-1], seq[1:]))
    return -terms.sum() / ((seq.shape[0] - 1) * b)


def make_lstm(s: LSTMInput) -> Prepared:
    args = [jnp.asarray(v) for v in (s.main_params, s.extra_params, s.state, s.sequence)]

    def grad(main: A, extra: A, state: A, seq: A) -> A:
        gm, ge = jax.grad(lstm_objective, argnums=(0, 1))(main, extra, state, seq)
        return jnp.concatenate([gm.ravel(), ge.ravel()])

    return Prepared(
        _np(jax.jit(lambda *a: lstm_objective(*a).reshape(1)), *args),
        _np(jax.jit(grad), *args),
    )


# --------------------------------------------------------------------------- BA


def _rodrigues(rot: A, x: A) -> A:
    sq = (rot * rot).sum(-1, keepdims=True)
    zero = sq == 0
    theta = jnp.sqrt(jnp.where(zero, 1.0, sq))
    w = rot / theta
    c, s = jnp.cos(theta), jnp.sin(theta)
    big = x * c + jnp.cross(w, x) * s + w * ((w * x).sum(-1, keepdims=True) * (1 - c))
    return jnp.where(zero, x + jnp.cross(rot, x), big)


def ba_reproj_error(cam: A, x: A, w: A, feat: A) -> A:
    xcam = _rodrigues(cam[..., 0:3], x - cam[..., 3:6])
    p = xcam[..., 0:2] / xcam[..., 2:3]
    rsq = (p * p).sum(-1, keepdims=True)
    dist = 1.0 + cam[..., 9:10] * rsq + cam[..., 10:11] * rsq * rsq
    proj = p * dist * cam[..., 6:7] + cam[..., 7:9]
    return w[..., None] * (proj - feat)


def make_ba(a: BAInput) -> Prepared:
    obs = [np.ascontiguousarray(a.obs[:, 0]), np.ascontiguousarray(a.obs[:, 1])]
    args = [jnp.asarray(v) for v in (a.cams, a.x, a.w, a.feats, *obs)]
    block = jax.vmap(jax.jacrev(ba_reproj_error, argnums=(0, 1, 2)))

    def obj(cams: A, x: A, w: A, feats: A, ci: A, pi: A) -> A:
        r = ba_reproj_error(cams[ci], x[pi], w, feats)
        return jnp.concatenate([r.ravel(), 1.0 - w * w])

    def jac(cams: A, x: A, w: A, feats: A, ci: A, pi: A) -> A:
        jc, jx, jw = block(cams[ci], x[pi], w, feats)
        rows = jnp.concatenate([jc, jx, jw[..., None]], axis=2)
        return jnp.concatenate([rows.ravel(), -2.0 * w])

    return Prepared(_np(jax.jit(obj), *args), _np(jax.jit(jac), *args))


# --------------------------------------------------------------------------- Hand


def _euler(p: A) -> A:
    cx, sx = jnp.cos(p[:, 0]), jnp.sin(p[:, 0])
    cz, sz = jnp.cos(p[:, 1]), jnp.sin(p[:, 1])
    cy, sy = jnp.cos(p[:, 2]), jnp.sin(p[:, 2])
    rows = [
        cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
        sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
        -sy, cy * sx, cy * cx,
    ]  # fmt: skip
    return jnp.stack(rows, axis=1).reshape(-1, 3, 3)


def _angle_axis(aa: A) -> A:
    norm = jnp.sqrt((aa * aa).sum())
    small = norm < 0.0001
    norm = jnp.where(small, 1.0, norm)
    x, y, z = aa / norm
    s, c = jnp.sin(norm), jnp.cos(norm)
    rows = [
        x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s,
        x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s,
        x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c,
    ]  # fmt: skip
    return jnp.where(small, jnp.eye(3), jnp.stack(rows).reshape(3, 3))


def make_hand(h: HandInput) -> Prepared:
    md = h.model
    parents = [int(p) for p in md.parents]
    n_bones = md.n_bones
    rel0, inv = jnp.asarray(md.base_relatives), jnp.asarray(md.inverse_base_absolutes)
    pos_h = jnp.asarray(hand_positions_h(md))
    weights = jnp.asarray(md.weights)
    pidx = hand_pose_index()
    points, corr = jnp.asarray(h.points), jnp.asarray(h.correspondences)

    def positions(theta: A) -> A:
        pose = jnp.zeros(3 * n_bones).at[pidx].set(theta[6:])
        rot = jnp.zeros((n_bones, 4, 4)).at[:, :3, :3].set(_euler(pose.reshape(-1, 3)))
        rel = rel0 @ rot.at[:, 3, 3].set(1.0)
        absolutes: list[A] = []
        for b, parent in enumerate(parents):
            absolutes.append(rel[b] if parent < 0 else absolutes[parent] @ rel[b])
        transforms = jnp.stack(absolutes) @ inv
        skinned = jnp.einsum("bv,bij,vj->vi", weights, transforms[:, :3, :], pos_h)
        return skinned @ _angle_axis(theta[:3]).T + theta[3:6]

    theta = jnp.asarray(h.theta)
    if h.us is None:

        def residuals(th: A) -> A:
            return (points - positions(th)[corr]).reshape(-1)

        return Prepared(_np(jax.jit(residuals), theta), _np(jax.jit(jax.jacfwd(residuals)), theta))

    us = jnp.asarray(h.us)
    tri = jnp.asarray(md.triangles)[corr]

    def residuals_c(th: A, du: A) -> A:
        pos = positions(th)
        u = us + du
        u0, u1 = u[:, 0:1], u[:, 1:2]
        hp = u0 * pos[tri[:, 0]] + u1 * pos[tri[:, 1]] + (1 - u0 - u1) * pos[tri[:, 2]]
        return (points - hp).reshape(-1)

    def jac_c(th: A, du: A) -> A:
        jt, ju = jax.jacfwd(residuals_c, argnums=(0, 1))(th, du)
        return jnp.concatenate([ju, jt], axis=1)

    du0 = jnp.zeros(2)
    return Prepared(_np(jax.jit(residuals_c), theta, du0), _np(jax.jit(jac_c), theta, du0))
