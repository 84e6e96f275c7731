"""A derivative that crashes is reported by the runner's child-process probe, not fatal
to the run; a working library passes the probe."""

from __future__ import annotations

import subprocess
from pathlib import Path

from adbench import build
from adbench.instances import GOLDEN
from adbench.probe import probe

CRASHING = r"""
void gmm_objective(int d, int k, int n, const double *a, const double *m, const double *q,
                   const double *x, double g, int wm, double *err) { *err = 1.0; }
void gmm_objective_grad_enzyme(int d, int k, int n, const double *a, const double *m,
                               const double *q, const double *x, double g, int wm,
                               double *da, double *dm, double *dq) {
    *(volatile double *)0 = 1.0;
}
"""


def _shared(tmp_path: Path, source: str) -> Path:
    c = tmp_path / "lib.c"
    c.write_text(source)
    out = tmp_path / "lib.so"
    subprocess.run([build.CC, "-O1", "-shared", "-fPIC", str(c), "-o", str(out)], check=True)
    return out


def test_probe_reports_a_crashing_derivative(tmp_path: Path) -> None:
    gmm = GOLDEN[0]
    assert gmm.workload == "gmm"
    msg = probe(_shared(tmp_path, CRASHING), gmm)
    assert msg is not None and "SIGSEGV" in msg


def test_probe_passes_a_working_library(tmp_path: Path) -> None:
    lib = build.build_irgrad_library("gmm", tmp_path)
    assert probe(lib, GOLDEN[0]) is None


def test_probe_reports_a_missing_entry_point(tmp_path: Path) -> None:
    lib = _shared(tmp_path, "void unrelated(void) {}\n")
    msg = probe(lib, GOLDEN[0])
    assert msg is not None and "gmm_objective" in msg
