"""CMake with ``CC=irgrad-cc``: compiler detection (identified as Clang), the archiver
found next to the compiler (``irgrad-llvm-ar``), depfiles, a static library, and the
springs program at -O0..-O3 — one configure (Ninja Multi-Config, one configuration per
level), four builds."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_helpers import BIN, LEVELS, build_env, copy_project, run, run_program

from irgrad.llvm.load import is_bitcode

pytestmark = pytest.mark.xdist_group("cmake")
CONFIGS = {level: f"O{level[2:]}" for level in LEVELS}  # -O2 -> configuration "O2"


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], str]:
    root = tmp_path_factory.mktemp("cmake")
    project = copy_project(root / "springs")
    env = build_env(root / "cache")
    env["CC"] = "irgrad-cc"
    flags = [f"-DCMAKE_C_FLAGS_{name.upper()}={level}" for level, name in CONFIGS.items()]
    log = run(["cmake", "-S", ".", "-B", "build", "-G", "Ninja Multi-Config",
               f"-DCMAKE_CONFIGURATION_TYPES={';'.join(CONFIGS.values())}", *flags],
              project, env)
    return project, env, log


def test_cmake_detects_clang_and_irgrad_tools(configured) -> None:
    project, _, log = configured
    assert "The C compiler identification is Clang 22" in log
    cache = (project / "build" / "CMakeCache.txt").read_text()
    assert f"CMAKE_AR:FILEPATH={BIN / 'irgrad-llvm-ar'}" in cache
    assert f"CMAKE_C_COMPILER:FILEPATH={BIN / 'irgrad-cc'}" in cache


@pytest.mark.parametrize("level", LEVELS)
def test_cmake_project(configured, level: str) -> None:
    project, env, _ = configured
    config = CONFIGS[level]
    run(["cmake", "--build", "build", "--config", config], project, env)
    objects = project / "build" / "CMakeFiles" / "prog.dir" / config
    assert is_bitcode((objects / "energy.c.o").read_bytes())
    # ninja read the depfile irgrad-cc wrote (-MD -MT -MF): the header is a dependency
    deps = run(["ninja", "-f", f"build-{config}.ninja", "-t", "deps",
                f"CMakeFiles/prog.dir/{config}/energy.c.o"], project / "build", env)
    assert "springs.h" in deps, deps
    run_program(project / "build" / config / "prog")
