"""Gradient cost on programs written the way public numerical code is written.

Each program in ``bench/realworld/`` times its own primal and its gradient
(``__enzyme_autodiff``) in one process: medians of several runs, peak resident memory
after the primal runs and after the gradient runs (``bench_timing.h``). This runner builds
every program with ``irgrad cc`` once per flag set, runs the instances and prints one
table: gradient / primal, the peak memory the gradient adds, and one derivative value
(``check``) to compare builds by.

Run: ``.venv/bin/python bench/realworld.py [--flags "-O3 -march=native"] [--only NAME]
[--irgrad PATH] [--out FILE.md]``. ``--irgrad`` measures another checkout's ``irgrad``
executable (before/after a change, same machine, same run). Targets (issue 18):
gradient <= 3x primal, peak memory <= 2x the primal's plus the tape ``--explain-ad``
predicts. Measures only; no test asserts on time.
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
]


def build(irgrad: str, prog: str, flags: list[str], out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / prog
    src = HERE / f"{prog}.c"
    if exe.exists() and exe.stat().st_mtime > max(src.stat().st_mtime,
                                                     (HERE / "bench_timing.h").stat().st_mtime):
        return exe
    cmd = [irgrad, "cc", *flags, str(src), "-o", str(exe), "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"building {prog} failed ({shlex.join(cmd)}):\n{done.stderr}")
    return exe


def run(exe: Path, args: list[str]) -> dict[str, object]:
    done = subprocess.run([str(exe), *args], capture_output=True, text=True, check=False,
                          timeout=1800)
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-200:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flags", default="-O2", help="irgrad cc flags (default -O2)")
    ap.add_argument("--only", help="run only this program")
    ap.add_argument("--irgrad", default=str(Path(sys.executable).parent / "irgrad"))
    ap.add_argument("--out", type=Path, help="also write the table (markdown) here")
    opts = ap.parse_args()
    flags = shlex.split(opts.flags)
    tag = "_".join(f.strip("-").replace("=", "") for f in flags) or "default"
    tag += "-" + hashlib.sha256(opts.irgrad.encode()).hexdigest()[:8]  # one build per irgrad
    out_dir = ROOT / "build" / "bench-realworld" / tag
    rows = ["| program | size | primal ms | gradient ms | gradient / primal | primal peak MB "
            "| gradient adds MB | check |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    print(rows[0])
    print(rows[1])
    for prog, args in INSTANCES:
        if opts.only and prog != opts.only:
            continue
        r = run(build(opts.irgrad, prog, flags, out_dir), args)
        if "error" in r:
            row = f"| {prog} | {' '.join(args)} | | | {r['error']} | | | |"
        else:
            tp, tg = float(r["primal_s"]), float(r["gradient_s"])  # type: ignore[arg-type]
            rp, rg = int(r["rss_primal_kb"]), int(r["rss_gradient_kb"])  # type: ignore[call-overload]
            row = (f"| {prog} | {r['size']} | {tp * 1e3:.3f} | {tg * 1e3:.3f} | {tg / tp:.2f} "
                   f"| {rp / 1024:.1f} | {(rg - rp) / 1024:.1f} | {float(r['check']):.10g} |")  # type: ignore[arg-type]
        print(row, flush=True)
        rows.append(row)
    if opts.out:
        head = (f"# bench/realworld, irgrad cc {opts.flags}\n\n"
                f"{time.strftime('%Y-%m-%d')}, {platform.node()}, {platform.processor() or platform.machine()}, "
                f"{os.cpu_count()} cores\n\n")
        opts.out.write_text(head + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
