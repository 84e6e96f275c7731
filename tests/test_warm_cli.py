"""The suite's warm ``python -m irgrad`` (tests/warm_cli.py) behaves like the real one:
same output, exit status, working directory, environment and standard streams."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from warm_cli import irgrad_command, irgrad_shell, server_pid

PROGRAM = """\
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
static double square(double x) { return x * x; }
int main(void) {
  double d = __enzyme_autodiff((void *)square, 3.0);
  printf("%g\\n", d);
  return 0;
}
"""


def _both(args: list[str], cwd: Path, **kw: object) -> tuple[subprocess.CompletedProcess[str],
                                                             subprocess.CompletedProcess[str]]:
    cold = subprocess.run([sys.executable, "-m", "irgrad", *args], cwd=cwd, capture_output=True,
                          text=True, check=False, **kw)  # type: ignore[call-overload]
    warm = subprocess.run([*irgrad_command(), *args], cwd=cwd, capture_output=True, text=True,
                          check=False, **kw)  # type: ignore[call-overload]
    return cold, warm


def test_relative_paths_stdin_and_output_match(tmp_path: Path) -> None:
    (tmp_path / "p.c").write_text(PROGRAM)
    ir = subprocess.run(["clang-22", "-S", "-emit-llvm", "-O1", "-Xclang",
                         "-disable-llvm-passes", "p.c", "-o", "-"], cwd=tmp_path,
                        capture_output=True, text=True, check=True).stdout
    cold, warm = _both(["opt", "-", "-S"], tmp_path, input=ir)
    assert cold.returncode == warm.returncode == 0, warm.stderr
    assert cold.stdout == warm.stdout and "__enzyme_autodiff" not in warm.stdout
    # a relative output path lands in the client's working directory
    cold, warm = _both(["cc", "p.c", "-O2", "-o", "p"], tmp_path)
    assert warm.returncode == 0, warm.stderr
    run = subprocess.run([str(tmp_path / "p")], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "6"


def test_errors_and_exit_status_match(tmp_path: Path) -> None:
    cold, warm = _both(["opt", "missing.ll", "-S"], tmp_path)
    assert cold.returncode == warm.returncode == 2
    assert cold.stderr == warm.stderr and "missing.ll" in warm.stderr


def test_environment_is_the_clients(tmp_path: Path) -> None:
    (tmp_path / "p.c").write_text(PROGRAM)
    env = {"PATH": "/usr/bin:/bin", "IRGRAD_BUILD_CACHE_DIR": str(tmp_path / "cache"),
           "HOME": str(tmp_path)}
    warm = subprocess.run([*irgrad_command(), "cc", "-v", "p.c", "-O1", "-o", "p"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert warm.returncode == 0, warm.stderr
    assert (tmp_path / "cache").is_dir()  # the cache the client's environment names


def test_shell_pipeline(tmp_path: Path) -> None:
    (tmp_path / "p.c").write_text(PROGRAM)
    pipe = (f"clang-22 -S -emit-llvm -O2 -Xclang -disable-llvm-passes p.c -o - | "
            f"{irgrad_shell()} opt - -S | lli-22")
    run = subprocess.run(["bash", "-o", "pipefail", "-c", pipe], cwd=tmp_path,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "6"


def test_a_killed_client_takes_its_command_along(tmp_path: Path) -> None:
    proc = subprocess.Popen([*irgrad_command(), "opt", "-", "-S"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # the server has forked the command's process
    assert _commands_running() == 1
    proc.kill()
    assert proc.wait() < 0
    deadline = time.monotonic() + 10
    while _commands_running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _commands_running() == 0
    # the server still serves
    cold, warm = _both(["--version"], tmp_path)
    assert warm.returncode == 0 and warm.stdout == cold.stdout


def _commands_running() -> int:
    children = Path(f"/proc/{server_pid()}/task/{server_pid()}/children").read_text()
    return len(children.split())
