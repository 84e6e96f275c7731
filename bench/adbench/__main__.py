"""ADBench runner: ``python -m bench.adbench [--quick] [--out DIR]``.

For each instance: every tool's objective and derivative are checked against the
hand-written ones and ADBench's golden values (1e-8), then timed (median and min of
several runs after a warm-up). Writes DIR/adbench.json, DIR/adbench.md and
DIR/adbench.png (default DIR: bench/results) and prints the summary. Exit status 1 when
a tool disagrees.
"""

from __future__ import annotations

import os

# single-threaded frameworks, like the C tools (set before torch / jax are imported)
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# NumPy's OpenBLAS would start a thread per core that spins after each BLAS call (the
# checks use NumPy): on a 2-core machine that thread shares the core being timed
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .instances import WORKLOADS, instance_set
from .report import machine, summary, summary_lines, write_json, write_markdown, write_plot
from .run import InstanceResult, run_instance
from .timing import FULL, QUICK
from .tools import TOOLS, Libraries

RESULTS = Path(__file__).resolve().parents[1] / "results"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.adbench", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small instances, short timing")
    ap.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    ap.add_argument(
        "--set",
        choices=("golden", "quick", "full"),
        default=None,
        help="instance set (default: quick with --quick, else full)",
    )
    ap.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    ap.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS))
    ap.add_argument("--check-only", action="store_true", help="check agreement, no timing")
    ap.add_argument("--build-dir", type=Path, default=None, help="cache of built libraries")
    ap.add_argument("--note", default="", help="free text for the Markdown header")
    ap.add_argument("--no-progress", action="store_true")
    return ap.parse_args(argv)


def run(
    args: argparse.Namespace, argv: Sequence[str]
) -> tuple[list[InstanceResult], dict[str, Any]]:
    import torch
    from tqdm import tqdm

    torch.set_num_threads(1)
    chosen = args.set or ("quick" if args.quick else "full")
    insts = [i for i in instance_set(chosen) if i.workload in args.workloads]
    tools = list(args.tools)
    if "manual" not in tools:
        tools.insert(0, "manual")
    libs = Libraries(args.build_dir or Path("/tmp") / "adbench-build")
    policy = None if args.check_only else (QUICK if args.quick else FULL)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": " ".join(["python -m bench.adbench", *argv]),
        "set": chosen,
        "note": args.note,
        "machine": machine(),
        "timing_policy": None if policy is None else policy.__dict__,
    }
    results: list[InstanceResult] = []
    with tqdm(total=len(insts) * len(tools), disable=args.no_progress, unit="tool") as bar:
        for inst in insts:
            bar.set_description(f"{inst.workload} {inst.name}")

            def step(tool: str) -> None:
                bar.set_postfix_str(tool)
                bar.update(1)

            results.append(run_instance(inst, tools, libs, policy, step))
    return results, meta


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    results, meta = run(args, argv)
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "adbench.json", meta, results)
    if not args.check_only:
        write_markdown(args.out / "adbench.md", meta, results)
        write_plot(args.out / "adbench.png", results)
    s = summary(results)
    for res in results:
        for tool, tr in res.tools.items():
            if tr.error:
                print(f"unavailable: {res.instance.path} {tool}: {tr.error}", file=sys.stderr)
            elif not tr.ok:
                errs = {**tr.vs_manual, **{f"golden {k}": v for k, v in tr.vs_golden.items()}}
                print(f"DISAGREES: {res.instance.path} {tool}: {errs}", file=sys.stderr)
    if not args.check_only:
        print("\n".join(summary_lines(s)))
    print(f"results in {args.out}; all tools agree: {'yes' if s['all_agree'] else 'NO'}")
    return 0 if s["all_agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
