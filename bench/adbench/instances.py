"""The benchmark instances of the runner: which files, which golden entry, how to load.

Sets: ``golden`` (the five unit-test inputs that expected/adbench_unit_test_golden.json
covers), ``quick`` (golden + one small instance per workload, <= 2 minutes on 2 cores),
``full`` (issue 5's set: GMM 1k all 16 and 10k d <= 20, LSTM all 4, BA 1-5, Hand
simple/complicated small 1-5, plus the golden inputs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from . import data
from .data import F64, BAInput, GMMInput, HandInput, LSTMInput

Input = GMMInput | LSTMInput | BAInput | HandInput
WORKLOADS = ("gmm", "lstm", "ba", "hand")


@dataclass(frozen=True)
class Instance:
    workload: str  # gmm | lstm | ba | hand
    name: str  # e.g. "1k/d10_K25", "l2_c1024", "ba1", "simple/hand1"
    path: str  # relative to the data root
    golden: str | None = None  # key in the golden JSON

    def load(self, root: Path | None = None) -> Input:
        p = (root or data.data_root()) / self.path
        reader = {
            "gmm": data.read_gmm,
            "lstm": data.read_lstm,
            "ba": data.read_ba,
            "hand": data.read_hand,
        }[self.workload]
        return reader(p)


GOLDEN = [
    Instance("gmm", "test", "gmm/test.txt", "gmm"),
    Instance("lstm", "l2_c1024", "lstm/lstm_l2_c1024.txt", "lstm"),
    Instance("ba", "test", "ba/test.txt", "ba"),
    Instance("hand", "simple/test", "hand/test.txt", "hand_simple"),
    Instance("hand", "complicated/test", "hand/hand_complicated.txt", "hand_complicated"),
]

_BA = [
    "ba1_n49_m7776_p31843",
    "ba2_n21_m11315_p36455",
    "ba3_n161_m48126_p182072",
    "ba4_n372_m47423_p204472",
    "ba5_n257_m65132_p225911",
]
_HAND_C = [100, 192, 200, 400, 800]


def _gmm(size: str, d: int, k: int) -> Instance:
    return Instance("gmm", f"{size}/d{d}_K{k}", f"gmm/{size}/gmm_d{d}_K{k}.txt")


def _hand(kind: str, i: int) -> Instance:
    f = f"hand{i}_t26_c{_HAND_C[i - 1]}"
    return Instance("hand", f"{kind}/hand{i}", f"hand/{kind}_small/{f}.txt")


def quick_instances() -> list[Instance]:
    extra = [
        _gmm("1k", 10, 25),
        Instance("ba", "ba1", f"ba/{_BA[0]}.txt"),
        _hand("simple", 1),
        _hand("complicated", 1),
    ]
    return [*GOLDEN, *extra]


def full_instances() -> list[Instance]:
    out = list(GOLDEN)
    ks = (5, 10, 25, 50)
    out += [_gmm("1k", d, k) for d in (2, 10, 20, 64) for k in ks]
    out += [_gmm("10k", d, k) for d in (2, 10, 20) for k in ks]
    out += [
        Instance("lstm", f"l{nl}_c{c}", f"lstm/lstm_l{nl}_c{c}.txt")
        for c in (1024, 4096)
        for nl in (2, 4)
        if (nl, c) != (2, 1024)  # already in GOLDEN
    ]
    out += [Instance("ba", f"ba{i + 1}", f"ba/{name}.txt") for i, name in enumerate(_BA)]
    out += [_hand(kind, i) for kind in ("simple", "complicated") for i in range(1, 6)]
    order = {w: n for n, w in enumerate(WORKLOADS)}
    return sorted(out, key=lambda inst: order[inst.workload])


def instance_set(name: str) -> list[Instance]:
    sets = {"golden": lambda: list(GOLDEN), "quick": quick_instances, "full": full_instances}
    if name not in sets:
        raise ValueError(f"unknown instance set {name!r}; expected one of {sorted(sets)}")
    return sets[name]()


@cache
def golden_json(root: Path | None = None) -> dict[str, Any]:
    path = (root or data.data_root()) / "expected" / "adbench_unit_test_golden.json"
    return json.loads(path.read_text())


def golden_values(inst: Instance, inp: Input) -> tuple[F64, F64] | None:
    """(objective, derivative) of the golden file in the runner's layouts: flat
    objective values; GMM/LSTM gradient, BA CSR values, Hand dense (3N, ncols)."""
    if inst.golden is None:
        return None
    g = golden_json()[inst.golden]
    if inst.workload in ("gmm", "lstm"):
        return np.array([g["objective"]]), np.array(g["gradient"])
    if inst.workload == "ba":
        assert isinstance(inp, BAInput)
        reproj = np.tile(g["reproj_err_pair"], inp.p)
        return np.concatenate([reproj, np.full(inp.p, g["w_err"])]), np.array(g["J_vals_csr"])
    obj = np.array(g["objective"])
    ncols = 26 if inst.golden == "hand_simple" else 28
    return obj, np.array(g["J"]).reshape(ncols, obj.size).T
