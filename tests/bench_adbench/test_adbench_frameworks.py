"""The PyTorch and JAX objectives and derivatives against ADBench's golden values (1e-8),
and against the C ones where the golden file has nothing: a 1k GMM, a replicated BA
instance, the BA zero-rotation branch. (The runner checks both frameworks against the C
ones on every benchmark instance before timing; the JAX Hand compile is slow, so Hand is
covered here by its two golden inputs.)"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from adbench import instances, jax_impl, torch_impl
from adbench.check import TOL, scaled_error
from adbench.native import AdbenchLib

FRAMEWORKS = [torch_impl, jax_impl]


@pytest.mark.parametrize("module", FRAMEWORKS, ids=["pytorch", "jax"])
@pytest.mark.parametrize("inst", instances.GOLDEN, ids=lambda i: i.golden)
def test_framework_matches_golden(module: ModuleType, inst: instances.Instance) -> None:
    inp = inst.load()
    want = instances.golden_values(inst, inp)
    assert want is not None
    make = getattr(module, f"make_{inst.workload}")
    prepared = make(inp)
    np.testing.assert_allclose(prepared.objective(), want[0], rtol=0, atol=TOL)
    np.testing.assert_allclose(prepared.derivative(), want[1], rtol=0, atol=TOL)


def _c_values(lib: AdbenchLib, inp: instances.Input, workload: str) -> tuple:
    if workload == "gmm":
        e, g = lib.gmm_gradient_manual(inp)
        return np.array([e]), g
    r, w, j = lib.ba_jacobian_manual(inp)
    return np.concatenate([r.ravel(), w]), j.vals


@pytest.mark.parametrize("module", FRAMEWORKS, ids=["pytorch", "jax"])
@pytest.mark.parametrize(
    "workload,path",
    [
        ("gmm", "gmm/1k/gmm_d10_K5.txt"),
        ("ba", "ba/ba1_n49_m7776_p31843.txt"),
    ],
)
def test_framework_matches_c(lib: AdbenchLib, module: ModuleType, workload: str, path: str) -> None:
    inp = instances.Instance(workload, path, path).load()
    want = _c_values(lib, inp, workload)
    prepared = getattr(module, f"make_{workload}")(inp)
    assert scaled_error(prepared.objective(), want[0]) <= TOL
    assert scaled_error(prepared.derivative(), want[1]) <= TOL


@pytest.mark.parametrize("module", FRAMEWORKS, ids=["pytorch", "jax"])
def test_ba_zero_rotation_branch(lib: AdbenchLib, module: ModuleType) -> None:
    inst = instances.GOLDEN[2]
    inp = inst.load()
    inp.cams[:, :3] = 0.0  # theta == 0: the small-angle branch, gradients must stay finite
    r, w, j = lib.ba_jacobian_manual(inp)
    prepared = module.make_ba(inp)
    assert scaled_error(prepared.objective(), np.concatenate([r.ravel(), w])) <= TOL
    assert scaled_error(prepared.derivative(), j.vals) <= TOL
