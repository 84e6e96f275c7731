"""The build cache in a real rebuild: after ``touch`` of one file make recompiles only
that file, and irgrad finds its object (and the link's native code) in the cache; after
an edit only that file is compiled; a clean rebuild is all cache hits. Asserted on the
``-v`` build log."""

from __future__ import annotations

import re
from pathlib import Path

from build_helpers import copy_project, run, run_program

UNITS = ("main.c", "energy.c", "params.c", "lib/spring.c", "lib/tripwire.c")


def _make(project: Path, env: dict[str, str]) -> str:
    return run(["make", "CC=irgrad-cc", "CFLAGS=-O2 -v", "LDFLAGS=-v"], project, env)


def _cache_lines(log: str, outcome: str, what: str) -> list[str]:
    return re.findall(rf"^irgrad: cache {outcome}: {what} (\S+)", log, re.M)


def test_rebuild_after_touch_and_edit(tmp_path: Path, env: dict[str, str]) -> None:
    project = copy_project(tmp_path / "springs")
    first = _make(project, env)
    assert sorted(_cache_lines(first, "miss", "compile")) == sorted(UNITS)
    assert _cache_lines(first, "miss", "link") == ["prog"]
    run_program(project / "prog")

    (project / "energy.c").touch()
    touched = _make(project, env)
    assert _cache_lines(touched, "hit", "compile") == ["energy.c"]
    assert _cache_lines(touched, "miss", "compile") == []
    assert _cache_lines(touched, "hit", "link") == ["prog"]
    run_program(project / "prog")

    params = project / "params.c"
    params.write_text(params.read_text().replace("1.5 + 0.25 * i", "1.25 + 0.5 * i"))
    edited = _make(project, env)
    assert _cache_lines(edited, "miss", "compile") == ["params.c"]
    assert _cache_lines(edited, "hit", "compile") == []
    assert _cache_lines(edited, "miss", "link") == ["prog"]
    run_program(project / "prog")

    run(["make", "clean"], project, env)
    clean = _make(project, env)
    assert sorted(_cache_lines(clean, "hit", "compile")) == sorted(UNITS)
    assert _cache_lines(clean, "miss", "compile") == []
    assert _cache_lines(clean, "hit", "link") == ["prog"]
    run_program(project / "prog")
