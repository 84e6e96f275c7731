"""The tools the runner compares, each as closures (objective, derivative variants) on one
loaded instance, all returning NumPy arrays in one layout:

- objective: GMM [E], LSTM [loss], BA reprojection errors (2p) then weight errors (p),
  Hand residuals (3N);
- derivative: GMM/LSTM flat gradient, BA the CSR values (structure of ba_csr_insert),
  Hand the dense (3N, 26|28) Jacobian.

Tools: ``irgrad`` (Enzyme-style entry points through ``irgrad cc -O3 -march=native``),
``irgrad-unopt`` (the same with AD on unoptimized IR), ``manual`` (hand-written C),
``pytorch``, ``jax``. Hand's irgrad has two derivative variants (vector forward mode,
reverse sweeps); the runner reports the faster.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import build
from .data import F64, BAInput, GMMInput, HandInput, LSTMInput
from .instances import Input, Instance
from .native import AdbenchLib
from .probe import probe

TOOLS = ("irgrad", "irgrad-unopt", "manual", "pytorch", "jax")
Fn = Callable[[], F64]


@dataclass
class ToolRun:
    objective: Fn
    derivatives: dict[str, Fn]  # variant name -> derivative; the first is the default


@dataclass
class Libraries:
    """Shared libraries built once per run; a failed build is kept as its message."""

    out_dir: Path
    manual: AdbenchLib | None = None
    irgrad: dict[tuple[str, bool], AdbenchLib | str] = field(default_factory=dict)

    def manual_lib(self) -> AdbenchLib:
        if self.manual is None:
            self.manual = AdbenchLib(build.build_library(self.out_dir))
        return self.manual

    def irgrad_lib(self, workload: str, pre_ad: bool) -> AdbenchLib | str:
        key = (workload, pre_ad)
        if key not in self.irgrad:
            try:
                lib = build.build_irgrad_library(workload, self.out_dir, pre_ad=pre_ad)
                self.irgrad[key] = AdbenchLib(lib)
            except build.BuildError as e:
                self.irgrad[key] = f"irgrad cc failed: {str(e).splitlines()[-1]}"
        return self.irgrad[key]


def _native_objective(lib: AdbenchLib, inp: Input) -> Fn:
    if isinstance(inp, GMMInput):
        return lambda: np.array([lib.gmm_objective(inp)])
    if isinstance(inp, LSTMInput):
        return lambda: np.array([lib.lstm_objective(inp)])
    if isinstance(inp, BAInput):

        def ba() -> F64:
            reproj, werr = lib.ba_objective(inp)
            return np.concatenate([reproj.ravel(), werr])

        return ba
    return lambda: lib.hand_objective(inp)


def _manual(lib: AdbenchLib, inp: Input) -> dict[str, Fn]:
    if isinstance(inp, GMMInput):
        return {"manual": lambda: lib.gmm_gradient_manual(inp)[1]}
    if isinstance(inp, LSTMInput):
        return {"manual": lambda: lib.lstm_gradient_manual(inp)[1]}
    if isinstance(inp, BAInput):
        return {"manual": lambda: lib.ba_jacobian_manual(inp)[2].vals}
    return {"manual": lambda: lib.hand_jacobian_manual(inp)[1]}


def _enzyme(lib: AdbenchLib, inp: Input) -> dict[str, Fn]:
    if isinstance(inp, GMMInput):
        return {"reverse": lambda: lib.gmm_gradient_enzyme(inp)}
    if isinstance(inp, LSTMInput):
        return {"reverse": lambda: lib.lstm_gradient_enzyme(inp)}
    if isinstance(inp, BAInput):
        return {"reverse": lambda: lib.ba_jacobian_enzyme(inp).vals}
    h: HandInput = inp
    return {
        "vector-forward": lambda: lib.hand_jacobian_enzyme(h, vector_forward=True),
        "reverse": lambda: lib.hand_jacobian_enzyme(h),
    }


def _framework(module: Any, inp: Input) -> ToolRun:
    make = {
        GMMInput: module.make_gmm,
        LSTMInput: module.make_lstm,
        BAInput: module.make_ba,
        HandInput: module.make_hand,
    }[type(inp)]
    prepared = make(inp)
    return ToolRun(prepared.objective, {"default": prepared.derivative})


def make_tool(tool: str, inst: Instance, inp: Input, libs: Libraries) -> ToolRun | str:
    """The closures of ``tool`` on ``inp`` (loaded from ``inst``), or why the tool is
    unavailable: an irgrad build failure or a crash of the generated code (probed in a
    child process first) is reported, not raised, so the other tools still run."""
    workload = inst.workload
    if tool == "manual":
        lib = libs.manual_lib()
        return ToolRun(_native_objective(lib, inp), _manual(lib, inp))
    if tool in ("irgrad", "irgrad-unopt"):
        got = libs.irgrad_lib(workload, pre_ad=tool == "irgrad")
        if isinstance(got, str):
            return got
        crashed = probe(got.path, inst)
        if crashed is not None:
            return crashed
        return ToolRun(_native_objective(got, inp), _enzyme(got, inp))
    if tool == "pytorch":
        from . import torch_impl

        return _framework(torch_impl, inp)
    if tool == "jax":
        from . import jax_impl

        return _framework(jax_impl, inp)
    raise ValueError(f"unknown tool {tool!r}; expected one of {TOOLS}")
