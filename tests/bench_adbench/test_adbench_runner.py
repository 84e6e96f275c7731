"""The ADBench runner's correctness path (``python -m bench.adbench --check-only``) on the
golden unit-test inputs: irgrad, manual, PyTorch and JAX agree with each other and with
ADBench's golden values (1e-8); the check itself flags a wrong derivative."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from adbench import instances
from adbench.__main__ import main
from adbench.check import TOL, agreement

# the module-scoped fixture builds every case once: keep the tests on the worker that
# built them (spread over two workers, both built them all)
pytestmark = pytest.mark.xdist_group("adbench_runner")

TOOLS = ["irgrad", "manual", "pytorch", "jax"]


@pytest.fixture(scope="module")
def golden_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("adbench-run")
    argv = ["--set", "golden", "--check-only", "--no-progress", "--out", str(out)]
    rc = main([*argv, "--tools", *TOOLS, "--build-dir", str(out / "build")])
    doc = json.loads((out / "adbench.json").read_text())
    doc["rc"] = rc
    return doc


def test_golden_set_covers_every_golden_entry(golden_run: dict) -> None:
    keys = {i["golden"] for i in golden_run["instances"]}
    assert keys == set(instances.golden_json()) - {"source"}


def test_all_tools_agree_on_golden_instances(golden_run: dict) -> None:
    assert golden_run["rc"] == 0
    for inst in golden_run["instances"]:
        assert list(inst["tools"]) == TOOLS
        for tool, res in inst["tools"].items():
            where = f"{inst['path']} {tool}"
            assert res["error"] is None, where
            assert res["ok"], where
            golden = res["max_error_vs_golden"]
            # objective and every derivative variant were compared with the golden file
            assert set(golden) == set(res["max_error_vs_manual"]), where
            assert "objective" in golden and any(k.startswith("derivative") for k in golden)
            assert max(golden.values()) <= TOL, where


def test_hand_irgrad_checks_vector_forward_and_reverse(golden_run: dict) -> None:
    hands = [i for i in golden_run["instances"] if i["workload"] == "hand"]
    assert len(hands) == 2
    for inst in hands:
        keys = set(inst["tools"]["irgrad"]["max_error_vs_golden"])
        assert {"derivative:vector-forward", "derivative:reverse"} <= keys


def test_check_flags_a_wrong_derivative() -> None:
    ref = (np.array([1.0]), np.array([2.0, -3.0]))
    good = agreement(np.array([1.0]), {"d": np.array([2.0, -3.0])}, ref, ref)
    assert good.ok
    bad = agreement(np.array([1.0]), {"d": np.array([2.0, -3.0 + 1e-6])}, ref, None)
    assert not bad.ok and bad.vs_manual["derivative:d"] > TOL
    shape = agreement(np.array([1.0]), {"d": np.array([2.0])}, ref, None)
    assert not shape.ok


def test_runner_writes_results(golden_run: dict) -> None:
    assert golden_run["set"] == "golden"
    m = golden_run["machine"]
    assert m["cores"] and m["cpu"] and m["versions"]["torch"] != "not installed"
    assert golden_run["summary"]["all_agree"] is True


def test_result_paths_default_to_bench_results() -> None:
    from adbench.__main__ import RESULTS

    assert Path(__file__).resolve().parents[2] / "bench" / "results" == RESULTS
