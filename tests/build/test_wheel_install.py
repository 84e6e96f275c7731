"""The wheel, installed outside the repository, carries everything a user needs: the
``enzyme/enzyme.h`` header (for ``irgrad cc`` and for the Python API), the console
scripts, and ``irgrad --version``. Built and installed offline: ``pip wheel
--no-build-isolation --no-deps``, then ``pip install --no-deps`` into a fresh venv that
sees the test environment's packages (llvmlite, numba, numpy) through a ``.pth`` line but
not its editable irgrad."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.xdist_group("wheel")

PROGRAM = r"""
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
double f(double x) { return x * sin(x); }
int main(void) {
  double x = 0.7, d = __enzyme_autodiff((void *)f, x);
  if (fabs(d - (sin(x) + x * cos(x))) > 1e-12) abort();
  printf("ok %.6f\n", d);
  return 0;
}
"""
PYTHON = r"""
import irgrad, numpy as np
from irgrad import Duplicated
src = r'''
#include <enzyme/enzyme.h>
double sq(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i] * x[i]; return s; }
void grad(const double *x, double *dx, int n) { __enzyme_autodiff((void *)sq, enzyme_dup, x, dx, enzyme_const, n); }
'''
lib = irgrad.compile(source=src, language="c", opt_level=2, cache_dir=False)
x = np.array([1.0, -2.0, 0.5]); dx = np.zeros(3)
lib["grad"](x, dx, 3)
assert np.allclose(dx, 2 * x), dx
print("ok", irgrad.__file__)
"""


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}:\n{proc.stdout}{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("wheel")
    checkout = root / "checkout"  # what a clean clone holds of the package
    shutil.copytree(ROOT / "src", checkout / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, checkout / name)
    dist = root / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--no-index", "-q", "-w", str(dist), str(checkout)], root)
    (wheel,) = dist.glob("irgrad-*.whl")
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], root)
    vpy = venv / "bin" / "python"
    site = Path(_run([str(vpy), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     root).strip())
    # the test environment's dependencies, after the venv's own site-packages
    (site / "irgrad-test-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(vpy), "install", "--no-deps",
          "--no-index", "-q", str(wheel)], root)
    env = dict(os.environ)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["IRGRAD_CACHE_DIR"] = str(root / "cache")
    env.pop("PYTHONPATH", None)
    work = root / "work"
    work.mkdir()
    return wheel, work, env


def test_wheel_ships_headers(installed) -> None:
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "irgrad/include/enzyme/enzyme.h" in names
    assert "irgrad/include/enzyme/enzyme" in names  # the C++ interface
    assert "irgrad/include/enzyme/tuple" in names


def test_installed_irgrad_cc_with_enzyme_header(installed) -> None:
    _, work, env = installed
    (work / "p.c").write_text(PROGRAM)
    _run(["irgrad-cc", "-O2", "-c", "p.c"], work, env)
    _run(["irgrad", "cc", "p.o", "-o", "p", "-lm"], work, env)
    assert _run([str(work / "p")], work).startswith("ok ")
    include = Path(_run(["irgrad", "--include-dir"], work, env).strip())
    assert (include / "enzyme" / "enzyme.h").is_file()
    assert ROOT not in include.parents


def test_installed_python_api_with_enzyme_header(installed) -> None:
    _, work, env = installed
    out = _run(["python", "-c", PYTHON], work, env)
    where = Path(out.split()[1])
    assert out.startswith("ok ") and ROOT not in where.parents, out


def test_installed_version_report(installed) -> None:
    _, work, env = installed
    report = _run(["irgrad", "--version"], work, env)
    assert report.startswith("irgrad ")
    assert "llvmlite 0.50" in report and "(LLVM 22." in report
    for tool in ("clang", "flang", "rustc"):
        assert f"  {tool} " in report
    env = dict(env, IRGRAD_FLANG="/nonexistent/flang")
    missing = _run(["irgrad", "--version"], work, env)
    assert "flang     MISSING" in missing and "IRGRAD_FLANG" in missing
