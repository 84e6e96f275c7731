"""Libraries built by ``irgrad.compile`` run in the process that builds them, so they are
compiled for its machine: the primal and every derivative use the host's instructions
alike (``-march=native``), unless the flags name a target. Before, the primal was
compiled for baseline x86-64 while the derivatives, which lost their target attributes,
used the host's: a cached library could then be loaded on another kind of machine.
The cache key names the host CPU for that reason."""

from __future__ import annotations

from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest

import irgrad
from irgrad import Const, Duplicated
from irgrad.frontends import host_flags
from irgrad.python import disk_cache

SRC = """
double energy(const double *x, int n) {
  double s = 0.0;
  for (int i = 1; i < n - 1; i++) s += x[i] * (x[i - 1] - 2.0 * x[i] + x[i + 1]);
  return s;
}
"""


def _gradient(x: np.ndarray) -> np.ndarray:
    n = len(x)
    g = np.zeros(n)
    for i in range(1, n - 1):
        g[i] += x[i - 1] - 4.0 * x[i] + x[i + 1]
        g[i - 1] += x[i]
        g[i + 1] += x[i]
    return g


@pytest.mark.parametrize("flags", [[], ["-march=x86-64"]])
def test_library_target_and_gradient(tmp_path: Path, flags: list[str]) -> None:
    lib = irgrad.compile(source=SRC, language="c", flags=flags, cache_dir=tmp_path)
    cpu = "x86-64" if flags else llvm.get_host_cpu_name()
    assert f'"target-cpu"="{cpu}"' in lib._module_text
    x = np.linspace(0.3, 1.7, 37)
    dx = np.zeros_like(x)
    lib.autodiff("energy", Duplicated(x, dx), Const(len(x)))
    np.testing.assert_allclose(dx, _gradient(x), rtol=1e-13, atol=1e-13)


def test_host_flags_respect_a_named_target() -> None:
    assert host_flags("c", []) == ["-march=native"]
    assert host_flags("fortran", ["-O2"]) == ["-march=native"]
    assert host_flags("c++", ["-march=haswell"]) == []
    assert host_flags("c", ["--target=aarch64-linux-gnu"]) == []
    assert host_flags("rust", []) == ["-C", "target-cpu=native"]
    assert host_flags("rust", ["-C", "target-cpu=x86-64-v2"]) == []
    assert host_flags("ir", []) == []


def test_cache_key_names_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    key = disk_cache.source_key([("f.c", SRC.encode())], "c", 2, [])
    monkeypatch.setattr(disk_cache, "host_identity", lambda: "another-cpu +sse2")
    assert disk_cache.source_key([("f.c", SRC.encode())], "c", 2, []) != key
