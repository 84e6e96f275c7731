"""Training steps through irgrad's PyTorch / JAX ops vs the same steps written natively.

For ADBench's GMM and LSTM objectives (C in ``bench/adbench/c``), one gradient-descent
step on the parameters (objective, gradient, update) is timed four ways:

* ``torch native``: the objective in PyTorch (``bench/adbench/torch_impl.py``), autograd;
* ``torch irgrad``: the C objective as an ``irgrad.torch.function`` op;
* ``jax native``: the objective in JAX (``bench/adbench/jax_impl.py``), ``jit(grad)``;
* ``jax irgrad``: the C objective as an ``irgrad.jax.function`` inside ``jit(grad)``.

Then the call overhead of an irgrad op on a tiny input (``y = 2x``, 1 element): raw
``lib[f]`` / ``lib.autodiff`` calls, and forward / forward+backward through each
framework, next to the framework's own op. One run, median of repeats; the machine may be
loaded, so read ratios, not absolute times::

    .venv/bin/python -m bench.frameworks [--quick] [--repeat N]
"""

from __future__ import annotations

import os

os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import torch  # noqa: E402
from bench.adbench import jax_impl, torch_impl  # noqa: E402
from bench.adbench.data import data_root, read_gmm, read_lstm  # noqa: E402

import irgrad  # noqa: E402

jax.config.update("jax_enable_x64", True)
torch.set_num_threads(1)
C_DIR = ROOT / "bench" / "adbench" / "c"
LR = 1e-6

GMM_SIG = "alphas[k], means[k, d], icf[k, q], x[n, d] -> err[]"
LSTM_SIG = "main_params[2*l, 4*b], extra_params[3, b], state[2*l, b], sequence[c, b] -> loss[]"


def median_time(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm-up (compiles / synthesizes derivatives)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --------------------------------------------------------------------------- steps


def torch_step(loss_fn: Callable[..., torch.Tensor], params: list[torch.Tensor],
               data: list[torch.Tensor]) -> Callable[[], None]:
    def step() -> None:
        loss = loss_fn(*params, *data)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads, strict=True):
                p -= LR * g
    return step


def jax_step(loss_fn: Callable[..., Any], params: list[Any], data: list[Any]
             ) -> Callable[[], None]:
    n = len(params)

    @jax.jit
    def update(*args: Any) -> Any:
        grads = jax.grad(lambda *p: loss_fn(*p, *args[n:]), argnums=tuple(range(n)))(*args[:n])
        return [p - LR * g for p, g in zip(args[:n], grads, strict=True)]

    state = list(params)

    def step() -> None:
        state[:] = jax.block_until_ready(update(*state, *data))
    return step


def gmm_steps(lib: Any, path: Path) -> dict[str, Callable[[], None]]:
    g = read_gmm(path)
    consts = {"wishart_gamma": g.gamma, "wishart_m": g.m}
    t_op = irgrad.torch.function(lib, "gmm_objective", GMM_SIG, constants=consts,
                                 nondiff=["x"])
    j_op = irgrad.jax.function(lib, "gmm_objective", GMM_SIG, constants=consts,
                               nondiff=["x"])

    def tparams() -> list[torch.Tensor]:
        return [torch.tensor(a, requires_grad=True) for a in (g.alphas, g.means, g.icf)]

    tx = [torch.tensor(g.x)]
    jparams = [jnp.asarray(a) for a in (g.alphas, g.means, g.icf)]
    jx = [jnp.asarray(g.x)]
    return {
        "torch native": torch_step(
            lambda a, m, q, x: torch_impl.gmm_objective(a, m, q, x, g.gamma, g.m),
            tparams(), tx),
        "torch irgrad": torch_step(t_op, tparams(), tx),
        "jax native": jax_step(
            lambda a, m, q, x: jax_impl.gmm_objective(a, m, q, x, g.gamma, g.m), jparams, jx),
        "jax irgrad": jax_step(j_op, jparams, jx),
    }


def lstm_steps(lib: Any, path: Path) -> dict[str, Callable[[], None]]:
    s = read_lstm(path)
    t_op = irgrad.torch.function(lib, "lstm_objective", LSTM_SIG,
                                 nondiff=["state", "sequence"])
    j_op = irgrad.jax.function(lib, "lstm_objective", LSTM_SIG, nondiff=["state", "sequence"])

    def tparams() -> list[torch.Tensor]:
        return [torch.tensor(a, requires_grad=True) for a in (s.main_params, s.extra_params)]

    tdata = [torch.tensor(s.state), torch.tensor(s.sequence)]
    jparams = [jnp.asarray(a) for a in (s.main_params, s.extra_params)]
    jdata = [jnp.asarray(s.state), jnp.asarray(s.sequence)]
    return {
        "torch native": torch_step(torch_impl.lstm_objective, tparams(), tdata),
        "torch irgrad": torch_step(t_op, tparams(), tdata),
        "jax native": jax_step(jax_impl.lstm_objective, jparams, jdata),
        "jax irgrad": jax_step(j_op, jparams, jdata),
    }


def check_same_loss(lib: Any, gmm_path: Path) -> None:
    """The irgrad ops compute the natives' objective (else the timings mean nothing)."""
    g = read_gmm(gmm_path)
    op = irgrad.torch.function(lib, "gmm_objective", GMM_SIG, nondiff=["x"],
                               constants={"wishart_gamma": g.gamma, "wishart_m": g.m})
    args = [torch.tensor(a) for a in (g.alphas, g.means, g.icf, g.x)]
    mine, native = float(op(*args)), float(torch_impl.gmm_objective(*args, g.gamma, g.m))
    if abs(mine - native) > 1e-8 * max(1.0, abs(native)):
        raise SystemExit(f"GMM objective differs: irgrad {mine} vs torch {native}")


# --------------------------------------------------------------------------- overhead

TINY = "void tiny(const double *x, double *y, int n) { for (int i = 0; i < n; i++) " \
       "y[i] = 2.0 * x[i]; }"


def overhead(repeat: int) -> list[tuple[str, float]]:
    lib = irgrad.compile_c(TINY)
    x_np, y_np, dx, dy = np.ones(1), np.zeros(1), np.zeros(1), np.ones(1)
    t_op = irgrad.torch.function(lib, "tiny", "x[n] -> y[n]")
    j_op = irgrad.jax.function(lib, "tiny", "x[n] -> y[n]")
    tx = torch.ones(1, dtype=torch.float64, requires_grad=True)
    jx = jnp.ones(1)
    j_fwd, j_native = jax.jit(j_op), jax.jit(lambda x: 2.0 * x)
    j_grad = jax.jit(jax.grad(lambda x: j_op(x).sum()))
    j_grad_native = jax.jit(jax.grad(lambda x: (2.0 * x).sum()))

    def torch_fb(op: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[], None]:
        return lambda: op(tx).sum().backward()

    rows = [
        ("lib['tiny'] (ctypes primal call)", lambda: lib["tiny"](x_np, y_np, 1)),
        ("lib.autodiff('tiny', ...)", lambda: lib.autodiff(
            "tiny", irgrad.Const(x_np), irgrad.Duplicated(y_np, dy.copy()), 1)),
        ("lib.autodiff, x Duplicated", lambda: lib.autodiff(
            "tiny", irgrad.Duplicated(x_np, dx), irgrad.Duplicated(y_np, dy.copy()), 1)),
        ("torch native forward (2*x)", lambda: 2.0 * tx),
        ("torch irgrad forward", lambda: t_op(tx)),
        ("torch native forward+backward", torch_fb(lambda x: 2.0 * x)),
        ("torch irgrad forward+backward", torch_fb(t_op)),
        ("jax native jit forward", lambda: j_native(jx).block_until_ready()),
        ("jax irgrad jit forward", lambda: j_fwd(jx).block_until_ready()),
        ("jax native jit grad", lambda: j_grad_native(jx).block_until_ready()),
        ("jax irgrad jit grad", lambda: j_grad(jx).block_until_ready()),
    ]
    return [(name, median_time(fn, repeat * 20)) for name, fn in rows]


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small instances only")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    root = data_root()
    gmm_files = ["gmm/1k/gmm_d10_K5.txt"] if args.quick else [
        "gmm/1k/gmm_d10_K5.txt", "gmm/10k/gmm_d10_K25.txt"]
    lstm_files = ["lstm/lstm_l2_c1024.txt"]
    lib = irgrad.compile(sources=[C_DIR / "gmm.c", C_DIR / "lstm.c"], opt_level=2)
    check_same_loss(lib, root / gmm_files[0])
    print("## Training step (objective + gradient + update), median seconds; machine "
          "loaded (2 shared cores)\n")
    print("| instance | torch native | torch irgrad | ratio | jax native | jax irgrad | ratio |")
    print("|---|---|---|---|---|---|---|")
    cases = [(f, gmm_steps) for f in gmm_files] + [(f, lstm_steps) for f in lstm_files]
    for rel, make in cases:
        steps = make(lib, root / rel)
        t = {name: median_time(fn, args.repeat) for name, fn in steps.items()}
        tn, ti, jn, ji = (t["torch native"], t["torch irgrad"], t["jax native"],
                          t["jax irgrad"])
        print(f"| {Path(rel).stem} | {tn:.4f} | {ti:.4f} | {tn / ti:.2f}x | {jn:.4f} | "
              f"{ji:.4f} | {jn / ji:.2f}x |", flush=True)
    print("\nratio = native time / irgrad time (> 1: the irgrad op is faster)\n")
    print("## Call overhead on a tiny input (1 element), median microseconds\n")
    print("| call | us |")
    print("|---|---|")
    for name, seconds in overhead(args.repeat):
        print(f"| {name} | {seconds * 1e6:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
