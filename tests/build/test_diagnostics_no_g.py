"""Diagnostics of the link step name the right file and line without ``-g`` (irgrad
compiles with line tables for its own use and strips them from the output), and a
derivative that needs code that exists only natively names the library that lacks IR."""

from __future__ import annotations

import subprocess
from pathlib import Path

from build_helpers import run, run_program

MAIN_C = """\
#include <enzyme/enzyme.h>
#include <stdio.h>
double potential(double x);
int main(void) {
  double dx = __enzyme_autodiff((void *)potential, 0.5);
  printf("ok %f\\n", dx);
  return 0;
}
"""
PHYSICS_C = """\
#include <math.h>
double measured_force(double x);  /* defined in force.c */

double potential(double x) {
  double e = x * x;
  e += measured_force(x) * sin(x);
  return e;
}
"""
FORCE_C = "double measured_force(double x) { return 3.0 * x; }\n"


def _link(project: Path, env: dict[str, str], *inputs: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["irgrad-cc", *inputs, "-lm", "-o", "prog"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def _project(tmp_path: Path, env: dict[str, str]) -> Path:
    (tmp_path / "main.c").write_text(MAIN_C)
    (tmp_path / "physics.c").write_text(PHYSICS_C)
    (tmp_path / "force.c").write_text(FORCE_C)
    for name in ("main", "physics"):
        run(["irgrad-cc", "-O2", "-c", f"{name}.c"], tmp_path, env)
    return tmp_path


def test_two_file_diagnostic_names_file_and_line(tmp_path: Path, env: dict[str, str]) -> None:
    project = _project(tmp_path, env)
    proc = _link(project, env, "main.o", "physics.o")
    assert proc.returncode == 2, proc.stderr
    first = proc.stderr.splitlines()[0]
    # the call that has no derivative is on line 6 of physics.c (the request is in main.c)
    assert first.startswith(f"{project / 'physics.c'}:6:"), proc.stderr
    assert "No derivative found for measured_force in function potential" in first
    assert "note: no input of this link defines 'measured_force'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_native_only_library_is_named(tmp_path: Path, env: dict[str, str]) -> None:
    project = _project(tmp_path, env)
    run(["clang-22", "-O2", "-c", "force.c"], project, env)  # native code, no IR
    run(["ar", "rcs", "libforce.a", "force.o"], project, env)
    proc = _link(project, env, "main.o", "physics.o", "-L.", "-lforce")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"{project / 'physics.c'}:6:"), proc.stderr
    assert ("'measured_force' is defined only as native code, in libforce.a(force.o), "
            "which has no LLVM IR") in proc.stderr
    assert "irgrad cc -c" in proc.stderr  # how to rebuild it


def test_line_tables_do_not_reach_the_output(tmp_path: Path, env: dict[str, str]) -> None:
    project = _project(tmp_path, env)
    for debug in ([], ["-g"]):
        for name in ("main", "physics", "force"):
            run(["irgrad-cc", "-O1", *debug, "-c", f"{name}.c"], project, env)
        run(["irgrad-cc", "main.o", "physics.o", "force.o", "-lm", "-o", "prog"], project, env)
        run_program(project / "prog")
        sections = run(["readelf", "-S", "prog"], project, env)
        assert (".debug_line" in sections) == bool(debug), sections
