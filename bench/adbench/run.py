"""One instance through every tool: compute (this call is also the warm-up: JIT
compilation, caches), check against the manual derivatives and the golden values, then
time objective and derivative."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .check import agreement
from .data import F64, BAInput, GMMInput, HandInput, LSTMInput
from .instances import Input, Instance, golden_values
from .timing import Timing, TimingPolicy, measure_interleaved
from .tools import Libraries, ToolRun, make_tool


@dataclass
class ToolResult:
    error: str | None = None
    ok: bool = False
    vs_manual: dict[str, float] = field(default_factory=dict)
    vs_golden: dict[str, float] = field(default_factory=dict)
    objective: Timing | None = None
    derivatives: dict[str, Timing] = field(default_factory=dict)

    @property
    def best_variant(self) -> str | None:
        if not self.derivatives:
            return None
        return min(self.derivatives, key=lambda v: self.derivatives[v].min)

    @property
    def derivative(self) -> Timing | None:
        best = self.best_variant
        return None if best is None else self.derivatives[best]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "error": self.error}
        out["max_error_vs_manual"] = self.vs_manual
        out["max_error_vs_golden"] = self.vs_golden
        out["objective"] = self.objective.as_dict() if self.objective else None
        out["derivative"] = self.derivative.as_dict() if self.derivative else None
        out["variant"] = self.best_variant
        out["variants"] = {k: v.as_dict() for k, v in self.derivatives.items()}
        if self.objective and self.derivative:
            out["ratio"] = self.derivative.median / self.objective.median
        return out


@dataclass
class InstanceResult:
    instance: Instance
    size: str
    tools: dict[str, ToolResult]

    @property
    def ok(self) -> bool:
        """Every tool that ran agrees (an unavailable tool is reported as an error)."""
        return all(t.ok for t in self.tools.values() if t.error is None)

    def as_dict(self) -> dict[str, Any]:
        inst = self.instance
        return {
            "workload": inst.workload,
            "name": inst.name,
            "path": inst.path,
            "golden": inst.golden,
            "size": self.size,
            "ok": self.ok,
            "tools": {k: v.as_dict() for k, v in self.tools.items()},
        }


def describe(inp: Input) -> str:
    if isinstance(inp, GMMInput):
        return f"d={inp.d} K={inp.k} n={inp.n}"
    if isinstance(inp, LSTMInput):
        return f"l={inp.l} c={inp.c} b={inp.b}"
    if isinstance(inp, BAInput):
        return f"n={inp.n} m={inp.m} p={inp.p}"
    assert isinstance(inp, HandInput)
    kind = "complicated" if inp.complicated else "simple"
    return f"{kind} N={len(inp.correspondences)} V={inp.model.n_vertices}"


def _error(e: BaseException) -> str:
    last = traceback.format_exception_only(type(e), e)[-1].strip()
    return last.splitlines()[0][:300]


def run_instance(
    inst: Instance,
    tools: Sequence[str],
    libs: Libraries,
    policy: TimingPolicy | None,
    step: Callable[[str], None] = lambda _: None,
) -> InstanceResult:
    """Check every tool on ``inst`` (against ``manual``, which must work, and the golden
    values) and, unless ``policy`` is None, time them. ``step(tool)`` is called once per
    tool when it is done (progress)."""
    inp = inst.load()
    runs: dict[str, ToolRun] = {}
    results: dict[str, ToolResult] = {}
    values: dict[str, tuple[F64, dict[str, F64]]] = {}
    order = ["manual", *[t for t in tools if t != "manual"]]
    for tool in order:
        try:
            made = make_tool(tool, inst, inp, libs)
            if isinstance(made, str):
                results[tool] = ToolResult(error=made)
                continue
            runs[tool] = made
            values[tool] = (made.objective(), {v: f() for v, f in made.derivatives.items()})
            results[tool] = ToolResult()
        except Exception as e:  # a broken tool is reported, the others still run
            results[tool] = ToolResult(error=_error(e))
    if "manual" not in values:
        raise RuntimeError(f"{inst.path}: the manual reference failed: {results['manual'].error}")
    ref_obj, ref_der = values["manual"]
    reference = (ref_obj, ref_der["manual"])
    golden = golden_values(inst, inp)
    for tool, (obj, ders) in values.items():
        agree = agreement(obj, ders, reference, golden)
        res = results[tool]
        res.vs_manual, res.vs_golden, res.ok = agree.vs_manual, agree.vs_golden, agree.ok
    for tool in order:
        if policy is not None and tool in runs and results[tool].error is None:
            run = runs[tool]
            res = results[tool]
            try:
                fns = {"": run.objective, **run.derivatives}
                timed = measure_interleaved(fns, policy)
                res.objective = timed.pop("")
                res.derivatives = timed
            except Exception as e:
                res.error = _error(e)
        step(tool)
    ordered = {t: results[t] for t in tools if t in results}
    return InstanceResult(inst, describe(inp), ordered)
