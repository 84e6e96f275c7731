"""The build: the library exports every objective and manual derivative, rebuilds are
cached, a missing compiler is a clear error, and the Enzyme-style call sites compile."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from adbench import build
from adbench.native import AdbenchLib
from irgrad.toolchain import enzyme_include_dir


def test_library_exports_objectives_and_manual_derivatives(lib: AdbenchLib) -> None:
    for name in [
        "gmm_objective",
        "gmm_objective_grad_manual",
        "lstm_objective",
        "lstm_objective_grad_manual",
        "compute_reproj_error",
        "compute_zach_weight_error",
        "ba_objective",
        "ba_jacobian_manual",
        "hand_objective",
        "hand_objective_complicated",
        "hand_jacobian_manual",
        "hand_jacobian_complicated_manual",
    ]:
        assert lib.has(name), name
    assert not lib.has("gmm_objective_grad_enzyme")
    with pytest.raises(AttributeError, match="gmm_objective_grad_enzyme"):
        lib._fn("gmm_objective_grad_enzyme")


def test_build_is_cached(lib: AdbenchLib) -> None:
    assert build.build_library(lib.path.parent) == lib.path


def test_missing_compiler_is_a_build_error(tmp_path: Path) -> None:
    with pytest.raises(build.BuildError, match="no-such-clang"):
        build.build_library(tmp_path, cc="no-such-clang")


def test_bad_source_is_a_build_error(tmp_path: Path) -> None:
    with pytest.raises(build.BuildError, match="error"):
        build.build_library(tmp_path, flags=[*build.CFLAGS, "-Dfree=)"])


@pytest.mark.parametrize("source", build.ENZYME_SOURCES)
def test_enzyme_call_sites_compile(tmp_path: Path, source: str) -> None:
    """The gradient entry points are valid C against src/irgrad/include/enzyme/enzyme.h; the
    __enzyme_autodiff calls stay unresolved until irgrad lowers them."""
    ll = tmp_path / "out.ll"
    subprocess.run(
        [
            build.CC,
            "-O1",
            "-S",
            "-emit-llvm",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{build.C_DIR}",
            f"-I{enzyme_include_dir()}",
            str(build.C_DIR / source),
            "-o",
            str(ll),
        ],
        check=True,
    )
    text = ll.read_text()
    entry = "@__enzyme_fwddiff(" if source.endswith("_fwd.c") else "@__enzyme_autodiff("
    assert "declare" in text and entry in text
    assert "@enzyme_const" in text and "@enzyme_dupnoneed" in text
