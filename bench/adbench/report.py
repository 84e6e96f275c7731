"""Outputs of the runner: machine description, bench/results/adbench.json, the Markdown
table, the PNG plot (derivative / objective per tool and instance, log scale) and the
summary issue 5 asks for."""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from .run import InstanceResult, ToolResult

TARGETS = {"gmm": 3.0, "lstm": 3.0, "ba": 8.0, "hand simple": 15.0}
TOOL_COLORS = {
    "irgrad": "tab:blue",
    "irgrad-unopt": "tab:orange",
    "manual": "tab:green",
    "pytorch": "tab:red",
    "jax": "tab:purple",
}
TOOL_LABELS = {
    "irgrad": "irgrad",
    "irgrad-unopt": "irgrad (AD on unoptimized IR)",
    "manual": "manual C",
    "pytorch": "PyTorch",
    "jax": "JAX (jit)",
}


def _cmd(args: list[str]) -> str:
    try:
        out = subprocess.run(args, capture_output=True, text=True, check=False, timeout=10)
        return out.stdout.strip().splitlines()[0] if out.stdout.strip() else ""
    except OSError:
        return ""


def machine() -> dict[str, Any]:
    cpu = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = {}
    for pkg in ("numpy", "torch", "jax", "jaxlib", "llvmlite", "irgrad"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = "not installed"
    versions["python"] = platform.python_version()
    versions["clang"] = _cmd(["clang-22", "--version"])
    repo = Path(__file__).resolve().parents[2]
    try:
        import llvmlite.binding as llvm

        cpu += f" (LLVM host CPU: {llvm.get_host_cpu_name()})"
    except Exception:  # the description is informative only
        pass
    return {
        "cpu": cpu or platform.processor(),
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "commit": _cmd(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"]),
        "versions": versions,
    }


STAT = "min"  # the statistic ratios use: the minimum is the most robust under load


def _valid(res: InstanceResult, tool: str) -> ToolResult | None:
    """The tool's result when it ran, agreed and was timed."""
    t = res.tools.get(tool)
    ok = t is not None and t.ok and t.error is None
    return t if ok and t.objective is not None and t.derivative is not None else None


def _ratio(res: InstanceResult, tool: str) -> float | None:
    t = _valid(res, tool)
    if t is None or t.objective is None or t.derivative is None:
        return None
    return getattr(t.derivative, STAT) / getattr(t.objective, STAT)


def _deriv(res: InstanceResult, tool: str) -> float | None:
    t = _valid(res, tool)
    return None if t is None or t.derivative is None else getattr(t.derivative, STAT)


def _target_key(res: InstanceResult) -> str | None:
    w = res.instance.workload
    if w == "hand":
        return "hand simple" if res.instance.name.startswith("simple/") else None
    return w


def _geomean(xs: Sequence[float]) -> float | None:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summary(results: Sequence[InstanceResult]) -> dict[str, Any]:
    per: list[dict[str, Any]] = []
    speedups: list[float] = []
    for res in results:
        ratio = _ratio(res, "irgrad")
        key = _target_key(res)
        row: dict[str, Any] = {"instance": f"{res.instance.workload} {res.instance.name}"}
        row["irgrad_ratio"] = ratio
        row["target"] = TARGETS.get(key) if key else None
        row["meets_target"] = None if ratio is None or not row["target"] else ratio <= row["target"]
        mine = _deriv(res, "irgrad")
        for other in ("pytorch", "jax", "manual"):
            theirs = _deriv(res, other)
            row[f"{other}_over_irgrad"] = theirs / mine if mine and theirs else None
        unopt = _deriv(res, "irgrad-unopt")
        row["unopt_over_opt"] = unopt / mine if mine and unopt else None
        if row["unopt_over_opt"]:
            speedups.append(row["unopt_over_opt"])
        row["irgrad_variant"] = res.tools["irgrad"].best_variant if "irgrad" in res.tools else None
        per.append(row)
    return {
        "per_instance": per,
        "geomean_opt_vs_unopt": _geomean(speedups),
        "opt_vs_unopt_instances": len(speedups),
        "all_agree": all(r.ok for r in results),
        "agree_per_tool": {
            t: all(r.tools[t].ok for r in results if t in r.tools and r.tools[t].error is None)
            for t in (results[0].tools if results else {})
        },
    }


def write_json(path: Path, meta: dict[str, Any], results: Sequence[InstanceResult]) -> None:
    doc = {**meta, "instances": [r.as_dict() for r in results], "summary": summary(results)}
    path.write_text(json.dumps(doc, indent=1, default=float) + "\n")


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1e3:.3g}"


def _x(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def write_markdown(path: Path, meta: dict[str, Any], results: Sequence[InstanceResult]) -> None:
    m = meta["machine"]
    tools = list(results[0].tools) if results else []
    lines = [
        "# ADBench: irgrad vs hand-written derivatives, PyTorch and JAX",
        "",
        f"Run: {meta['date']} (`{meta['command']}`), commit {m['commit']}.",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['os']}; load average at start "
        f"{', '.join(f'{x:.1f}' for x in m['load_average'] or [])}. " + meta.get("note", ""),
        "Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + ".",
        "",
        "Times are minimums (the statistic least disturbed by load; medians are in "
        "adbench.json) in milliseconds (single thread: torch.set_num_threads(1), XLA "
        "without intra-op threads); each cell is `derivative ÷ objective (derivative ms)` "
        "of the same tool. All tools were checked against the hand-written derivatives "
        "(and the golden values where ADBench has them) at 1e-8 before timing.",
        "",
        "| instance | size | objective ms (irgrad) | "
        + " | ".join(TOOL_LABELS.get(t, t) for t in tools)
        + " | agree |",
        "|---|---|---|" + "---|" * len(tools) + "---|",
    ]
    for res in results:
        irg = res.tools.get("irgrad")
        cells = []
        for t in tools:
            tr = res.tools[t]
            if tr.error is not None:
                cells.append("n/a¹")
            elif not tr.ok:
                cells.append("**wrong**²")
            else:
                var = " fwd" if tr.best_variant == "vector-forward" else ""
                cells.append(f"{_x(_ratio(res, t))} ({_ms(_deriv(res, t))}{var})")
        obj = irg.objective.median if irg and irg.objective else None
        name = f"{res.instance.workload} {res.instance.name}"
        row = f"| {name} | {res.size} | {_ms(obj)} | " + " | ".join(cells)
        lines.append(row + f" | {'yes' if res.ok else '**NO**'} |")
    errors = sorted(
        {
            f"{t} ({r.instance.workload}): {tr.error}"
            for r in results
            for t, tr in r.tools.items()
            if tr.error
        }
    )
    if errors:
        lines += ["", "¹ unavailable:", *(f"- {e}" for e in errors)]
    wrong = sorted(
        {
            f"{t}: {r.instance.path}"
            for r in results
            for t, tr in r.tools.items()
            if tr.error is None and not tr.ok
        }
    )
    if wrong:
        lines += ["", "² derivative disagrees with the others (left out of every ratio):"]
        lines += [f"- {w}" for w in wrong]
    lines += ["", "## Summary", "", *summary_lines(summary(results))]
    lines += ["", "![derivative / objective](adbench.png)", ""]
    path.write_text("\n".join(lines))


def summary_lines(s: dict[str, Any]) -> list[str]:
    out = [
        "| instance | irgrad deriv/obj | target | PyTorch ÷ irgrad | JAX ÷ irgrad "
        "| manual ÷ irgrad | unopt ÷ opt |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in s["per_instance"]:
        met = "" if r["meets_target"] is None else (" ✓" if r["meets_target"] else " ✗")
        out.append(
            f"| {r['instance']} | {_x(r['irgrad_ratio'])}{met} | {_x(r['target'])} "
            f"| {_x(r['pytorch_over_irgrad'])} | {_x(r['jax_over_irgrad'])} "
            f"| {_x(r['manual_over_irgrad'])} | {_x(r['unopt_over_opt'])} |"
        )
    gm = s["geomean_opt_vs_unopt"]
    if gm is None:
        gm_line = (
            "Geometric-mean speedup of AD on optimized IR over AD on unoptimized IR: not "
            "measurable in this run (on no instance did the unoptimized-IR build compile, "
            "run and agree; see the footnotes above)."
        )
    else:
        gm_line = (
            f"Geometric-mean speedup of AD on optimized IR over AD on unoptimized IR: "
            f"{gm:.3g}x over {s['opt_vs_unopt_instances']} instances (instances where the "
            "unoptimized-IR build failed, crashed or disagreed are left out)."
        )
    out += [
        "",
        gm_line,
        f"All tools agree: {'yes' if s['all_agree'] else 'NO'} ("
        + ", ".join(
            f"{TOOL_LABELS.get(t, t)}: {'agrees' if ok else 'DISAGREES'}"
            for t, ok in s["agree_per_tool"].items()
        )
        + " wherever it ran).",
    ]
    return out


def write_plot(path: Path, results: Sequence[InstanceResult]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    handles: list[Patch] = []

    tools = list(results[0].tools) if results else []
    names = [f"{r.instance.workload} {r.instance.name}" for r in results]
    width = 0.8 / max(len(tools), 1)
    fig, ax = plt.subplots(figsize=(max(8.0, 0.32 * len(results) + 2), 4.8), dpi=80)
    for i, tool in enumerate(tools):
        xs, ys = [], []
        for j, res in enumerate(results):
            r = _ratio(res, tool)
            if r is not None:
                xs.append(j + (i - (len(tools) - 1) / 2) * width)
                ys.append(r)
        label = TOOL_LABELS.get(tool, tool) + ("" if ys else " (no valid result)")
        ax.bar(xs, ys, width=width, color=TOOL_COLORS.get(tool))
        handles.append(Patch(color=TOOL_COLORS.get(tool, "gray"), label=label))
    ax.set_yscale("log")
    ax.set_ylabel("derivative time ÷ objective time")
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels(names, rotation=70, ha="right", fontsize=7)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(handles=handles, fontsize=7, ncol=len(tools), loc="lower left", bbox_to_anchor=(0, 1))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
