"""Gradient cost on programs written the way public numerical code is written.

Each program in ``bench/realworld/`` times its own primal, its gradient
(``__enzyme_autodiff``) and a tangent (``__enzyme_fwddiff``, where it has one) in one
process: medians of several runs, peak resident memory after the primal runs and after the
gradient runs (``bench_timing.h``). After the timings it checks its gradient and tangent
against finite differences of its own primal and exits with status 3 past 1e-5 relative.
This runner builds every program with ``irgrad cc`` once per flag set, runs the instances
and prints one table: gradient / primal, forward / primal ('-' for a program without a
tangent), the peak memory the gradient adds, the finite-difference error and one derivative
value (``check``) to compare builds by.

Run: ``.venv/bin/python bench/realworld.py [--flags "-O3 -march=native"] [--only NAME[,NAME]]
[--irgrad PATH] [--out FILE.md] [--plot FILE.png]``. ``--irgrad`` measures another
checkout's ``irgrad`` executable (before/after a change, same machine, same run);
``--plot`` draws gradient / primal (and forward / primal) per instance with the target 3.
Targets (issue 18): gradient <= 3x primal (the mini-app <= 5), peak memory <= 2x the
primal's plus the tape ``--explain-ad`` predicts. Measures only; no test asserts on time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent / "realworld"
ROOT = HERE.parent.parent

# (program, arguments): the sizes the issue names, small to large
INSTANCES: list[tuple[str, list[str]]] = [
    ("det_laplace", ["5"]), ("det_laplace", ["7"]), ("det_laplace", ["9"]),
    ("fft_recursive", ["4096"]), ("fft_recursive", ["16384"]),
    ("gmm_scratch", ["10", "25", "1000"]), ("gmm_scratch", ["20", "50", "1000"]),
    ("gmm_scratch", ["64", "25", "1000"]), ("gmm_scratch", ["64", "100", "200"]),
    ("nbody", ["5", "1000"]), ("nbody", ["32", "200"]),
    ("smoothing", ["100000", "10"]),
    ("ode_adaptive", ["2", "20"]), ("ode_adaptive", ["16", "20"]), ("ode_adaptive", ["64", "20"]),
    ("lulesh_mini", ["8", "20"]), ("lulesh_mini", ["16", "10"]),
    *[("matvec_styles", [v, "1000"]) for v in ("rowdot", "colaxpy", "ptrwalk", "gemv", "outvec")],
    *[("stencil_styles", [v, "512", "20"])
      for v in ("jacobi_swap", "jacobi_copy", "gs_vla", "gs_redblack", "sor_rows")],
]
TARGET = 3.0  # gradient / primal (issue 18)


@dataclass
class Row:
    """One instance's measurements (ratios None when the run failed)."""

    prog: str
    size: str
    gradient: float | None = None
    forward: float | None = None
    markdown: str = ""


def build(irgrad: str, prog: str, flags: list[str], out_dir: Path, reuse: bool) -> Path:
    """Build ``prog`` with ``irgrad cc`` (every run: the runner cannot tell whether the
    irgrad behind ``--irgrad`` changed, so an old build would measure old code; with
    ``--reuse-builds``, a build newer than its sources is kept)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / prog
    src = HERE / f"{prog}.c"
    if reuse and exe.exists() and exe.stat().st_mtime > max(
            src.stat().st_mtime, (HERE / "bench_timing.h").stat().st_mtime):
        return exe
    cmd = [irgrad, "cc", *flags, str(src), "-o", str(exe), "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"building {prog} failed ({shlex.join(cmd)}):\n{done.stderr}")
    return exe


def run(exe: Path, args: list[str]) -> dict[str, object]:
    done = subprocess.run([str(exe), *args], capture_output=True, text=True, check=False,
                          timeout=1800)
    lines = done.stdout.strip().splitlines()
    if done.returncode == 3 and lines and lines[-1].startswith("{"):  # timed, derivative wrong
        return {**json.loads(lines[-1]), "fd_failed": True}
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-200:]}"}
    return json.loads(lines[-1])


def row(prog: str, args: list[str], r: dict[str, object]) -> Row:
    if "error" in r:
        return Row(prog, " ".join(args), markdown=f"| {prog} | {' '.join(args)} | | | {r['error']} "
                   "| | | | | |")
    tp, tg = float(r["primal_s"]), float(r["gradient_s"])  # type: ignore[arg-type]
    rp, rg = int(r["rss_primal_kb"]), int(r["rss_gradient_kb"])  # type: ignore[call-overload]
    tf = float(r["forward_s"]) if "forward_s" in r else None  # type: ignore[arg-type]
    fwd = f"{tf / tp:.2f}" if tf is not None else "-"
    fd = f"{float(r['fd_err']):.1e}" if "fd_err" in r else "-"  # type: ignore[arg-type]
    if r.get("fd_failed"):
        fd = f"**wrong** ({fd})"
    md = (f"| {prog} | {r['size']} | {tp * 1e3:.3f} | {tg * 1e3:.3f} | {tg / tp:.2f} | {fwd} "
          f"| {rp / 1024:.1f} | {(rg - rp) / 1024:.1f} | {fd} "
          f"| {float(r['check']):.10g} |")  # type: ignore[arg-type]
    return Row(prog, str(r["size"]), tg / tp, None if tf is None else tf / tp, md)


def plot(path: Path, rows: list[Row], title: str) -> None:
    """Bars of gradient / primal (and forward / primal) per instance, the target as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(8.0, 0.42 * len(rows) + 2), 5.2), dpi=80)
    xs = list(range(len(rows)))
    ax.bar([x - 0.2 for x in xs], [r.gradient or 0.0 for r in rows], width=0.4,
           color="#1f77b4", label="gradient ÷ primal (reverse)")
    ax.bar([x + 0.2 for x in xs], [r.forward or 0.0 for r in rows], width=0.4,
           color="#aec7e8", label="forward ÷ primal (one tangent)")
    for x, r in zip(xs, rows, strict=True):
        if r.gradient is None:
            ax.text(x, 1.0, "failed", rotation=90, ha="center", va="bottom", fontsize=7)
    ax.axhline(TARGET, color="#d62728", linestyle="--", linewidth=1, label=f"target {TARGET:g}")
    ax.set_yscale("log")
    ax.set_ylim(bottom=0.5)
    ax.set_ylabel("time ÷ primal time")
    ax.set_title(title, fontsize=9)
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{r.prog} {r.size}" for r in rows], rotation=70, ha="right", fontsize=7)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flags", default="-O2", help="irgrad cc flags (default -O2)")
    ap.add_argument("--only", help="run only these programs (comma-separated)")
    ap.add_argument("--irgrad", default=str(Path(sys.executable).parent / "irgrad"))
    ap.add_argument("--out", type=Path, help="also write the table (markdown) here")
    ap.add_argument("--plot", type=Path, help="also draw the ratios (PNG) here")
    ap.add_argument("--reuse-builds", action="store_true",
                    help="keep builds newer than their sources (same irgrad as last run)")
    opts = ap.parse_args()
    only = set(opts.only.split(",")) if opts.only else None
    if only and not only <= {p for p, _ in INSTANCES}:
        sys.exit(f"--only: no instances of {', '.join(sorted(only - {p for p, _ in INSTANCES}))}")
    flags = shlex.split(opts.flags)
    tag = "_".join(f.strip("-").replace("=", "") for f in flags) or "default"
    tag += "-" + hashlib.sha256(opts.irgrad.encode()).hexdigest()[:8]  # one build per irgrad
    out_dir = ROOT / "build" / "bench-realworld" / tag
    rows = ["| program | size | primal ms | gradient ms | gradient / primal | forward / primal "
            "| primal peak MB | gradient adds MB | FD rel. error | check |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    print(rows[0])
    print(rows[1])
    measured: list[Row] = []
    for prog, args in INSTANCES:
        if only and prog not in only:
            continue
        measured.append(row(prog, args, run(build(opts.irgrad, prog, flags, out_dir, opts.reuse_builds), args)))
        print(measured[-1].markdown, flush=True)
        rows.append(measured[-1].markdown)
    if opts.plot:
        plot(opts.plot, measured, f"bench/realworld, irgrad cc {opts.flags}, "
             f"{time.strftime('%Y-%m-%d')}")
    if opts.out:
        head = (f"# bench/realworld, irgrad cc {opts.flags}\n\n"
                f"{time.strftime('%Y-%m-%d')}, {platform.node()}, {platform.processor() or platform.machine()}, "
                f"{os.cpu_count()} cores\n\n")
        opts.out.write_text(head + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
