"""``make CC=irgrad-cc``: three translation units and a static library, compiled in
separate ``-c`` steps to LTO objects and differentiated at the link step. The call site
(main.c), the differentiated function (energy.c) and its callee (libspring.a) are in
different files; the program checks its derivatives against finite differences and the
analytic gradient, and a library member nobody needs must stay out of the link."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_helpers import LEVELS, copy_project, run, run_program

from irgrad.llvm.load import is_bitcode


@pytest.mark.parametrize("level", LEVELS)
def test_make_project(tmp_path: Path, env: dict[str, str], level: str) -> None:
    project = copy_project(tmp_path / "springs")
    run(["make", "CC=irgrad-cc", f"OPT={level}"], project, env)
    for obj in ("main.o", "energy.o", "params.o", "lib/spring.o"):
        assert is_bitcode((project / obj).read_bytes()), obj
    run_program(project / "prog")


def test_make_project_with_irgrad_ar(tmp_path: Path, env: dict[str, str]) -> None:
    project = copy_project(tmp_path / "springs")
    run(["make", "CC=irgrad-cc", "AR=irgrad-ar", "OPT=-O2"], project, env)
    index = run(["irgrad-llvm-ar", "t", "lib/libspring.a"], project, env)
    assert index.split() == ["spring.o", "tripwire.o"]
    run_program(project / "prog")
