"""Objects from other compilers' LTO mode go through the same link step: ``clang-22
-flto -c`` objects with the library as a thin archive, ``flang-22 -flto`` and
``clang++-22 -flto`` objects in a mixed Fortran/C/C++ link; and units that each register
a rule under the same name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from build_helpers import HERE, LEVELS, copy_project, run, run_program

from irgrad.toolchain import enzyme_include_dir


@pytest.mark.parametrize("level", LEVELS)
def test_clang_flto_objects_and_thin_archive(tmp_path: Path, env: dict[str, str], level: str) -> None:
    project = copy_project(tmp_path / "springs")
    include = f"-I{enzyme_include_dir()}"
    for name in ("main", "energy", "params"):
        run(["clang-22", "-flto", level, "-I.", include, "-c", f"{name}.c"], project, env)
    for name in ("spring", "tripwire"):
        run(["clang-22", "-flto", level, "-c", f"lib/{name}.c", "-o", f"lib/{name}.o"], project, env)
    run(["llvm-ar-22", "rcsT", "lib/libspring.a", "lib/spring.o", "lib/tripwire.o"], project, env)
    assert (project / "lib" / "libspring.a").read_bytes().startswith(b"!<thin>\n")
    # linked from another folder: the thin archive's members are found beside it
    run(["irgrad-cc", "springs/main.o", "springs/energy.o", "springs/params.o",
         "springs/lib/libspring.a", "-lm", "-o", "prog"], tmp_path, env)
    run_program(tmp_path / "prog")


def test_flang_and_clangxx_flto_objects(tmp_path: Path, env: dict[str, str]) -> None:
    project = copy_project(tmp_path / "mixed", HERE / "mixed")
    run(["clang-22", "-flto", "-O2", f"-I{enzyme_include_dir()}", "-c", "main.c"], project, env)
    run(["flang-22", "-flto", "-O2", "-c", "physics.f90"], project, env)
    run(["clang++-22", "-flto", "-O2", "-c", "poly.cpp"], project, env)
    run(["llvm-ar-22", "rcs", "libcxxpoly.a", "poly.o"], project, env)
    run(["irgrad-cc", "main.o", "physics.o", "-L.", "-lcxxpoly", "-lm", "-o", "prog"], project, env)
    run_program(project / "prog")


@pytest.mark.parametrize("level", ["-O0", "-O3"])
def test_mixed_fortran_c_cxx_with_make(tmp_path: Path, env: dict[str, str], level: str) -> None:
    """A Fortran function differentiated from a C call site in another file; its callee
    is in a C++ static library; each unit compiled by its own drop-in driver."""
    project = copy_project(tmp_path / "mixed", HERE / "mixed")
    run(["make", "CC=irgrad-cc", "CXX=irgrad-c++", "FC=irgrad-fortran", f"OPT={level}"],
        project, env)
    run_program(project / "prog")


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_units_register_rules_under_one_name(tmp_path: Path, env: dict[str, str],
                                             level: str) -> None:
    """Two units each register a gradient of their own static ``soft_clip`` under the
    same global name (``__enzyme_register_gradient_soft_clip``): the link keeps both
    registrations (each for its unit's function, both counted as run) instead of failing
    on a symbol defined twice."""
    project = copy_project(tmp_path / "unit_rules", HERE / "unit_rules")
    for name in ("smooth", "fidelity", "main"):
        run(["irgrad-cc", level, "-c", f"{name}.c"], project, env)
    run(["irgrad-cc", level, "smooth.o", "fidelity.o", "main.o", "-lm", "-o", "prog"],
        project, env)
    run_program(project / "prog")


def test_tools_present() -> None:
    for tool in ("make", "cmake", "ninja", "ar", "clang-22", "flang-22", "llvm-ar-22"):
        assert shutil.which(tool), f"{tool} is missing: scripts/setup.sh installs it"
