"""What the BLAS rules emit (post-AD -O0, so every derivative function is still there):

* an inactive operand gets no adjoint work: with ``A`` constant and alpha a constant,
  the reverse of a gemm is one gemm (for ``dB``) and the scaling of ``dC`` by beta; an
  active alpha adds its own gemm and dot products;
* an input the reverse pass needs is copied to the tape only when it may be overwritten:
  nothing is copied when ``A`` and ``B`` are left alone; when ``B`` is scaled after the
  call, exactly one array (B) is copied.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from warm_cli import irgrad_command

# the module-scoped fixture builds every case once: keep the tests on the worker that
# built them (spread over two workers, both built them all)
pytestmark = pytest.mark.xdist_group("blas_golden")

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def functions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("golden")
    ll = tmp / "in.ll"
    cc = subprocess.run(["clang-22", "-S", "-emit-llvm", "-O2", "-Xclang",
                         "-disable-llvm-passes", "-fno-discard-value-names",
                         str(HERE / "work_and_caching.c"), "-o", str(ll)],
                        capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr
    opt = subprocess.run([*irgrad_command(), "opt", "-O0", "-S", str(ll)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    out: dict[str, str] = {}
    for m in re.finditer(r"^define [^@]*@([\w.]+)\(.*?^}", opt.stdout, re.M | re.S):
        out[m.group(1)] = m.group(0)
    return out


def _callee(functions: dict[str, str], caller: str, prefix: str) -> str:
    """The body of the function ``caller`` calls whose name starts with ``prefix``."""
    names = re.findall(rf"call [^@]*@({prefix}[\w.]*)\(", functions[caller])
    assert len(names) == 1, (caller, prefix, names)
    return functions[names[0]]


def _count(body: str, callee: str) -> int:
    return len(re.findall(rf"call [^@]*@{callee}\(", body))


def test_inactive_operands_do_no_adjoint_work(functions: dict[str, str]) -> None:
    rev = _callee(functions, "diffe_kept", "reverse_cblas_dgemm")
    assert _count(rev, "cblas_dgemm") == 1  # dB only: no dA (A const), no d alpha
    assert _count(rev, "cblas_ddot") == 0
    assert _count(rev, "cblas_dscal") == 1  # dC *= beta (one column at a time)
    active_alpha = _callee(functions, "diffe_scaled", "reverse_cblas_dgemm")
    assert _count(active_alpha, "cblas_dgemm") == 3  # op(A)op(B) for d alpha, dA, dB
    assert _count(active_alpha, "cblas_ddot") == 1  # <op(A)op(B), dC>, by columns


def test_not_overwritten_inputs_are_not_cached(functions: dict[str, str]) -> None:
    aug = _callee(functions, "diffe_kept", "augmented_cblas_dgemm")
    assert "memcpy" not in aug and "malloc" not in aug
    aug = _callee(functions, "diffe_overwritten", "augmented_cblas_dgemm")
    assert _count(aug, "llvm.memcpy.p0.p0.i64") == 1  # B (needed for dA), not A
    rev = _callee(functions, "diffe_overwritten", "reverse_cblas_dgemm")
    assert _count(rev, "free") == 2  # the copy and the tape
