"""Real builds with the drop-in compilers: make and CMake projects, LTO objects from
clang/flang, archives. The irgrad console scripts are those of the running interpreter's
environment (``irgrad-cc`` beside ``sys.executable``); every test gets a build cache of its
own unless it shares one on purpose."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPRINGS = HERE / "springs"
BIN = Path(sys.executable).parent
LEVELS = ["-O0", "-O1", "-O2", "-O3"]


def build_env(cache: Path) -> dict[str, str]:
    """The environment of a build: irgrad's scripts first on PATH, a private cache."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["IRGRAD_CACHE_DIR"] = str(cache)
    env.pop("IRGRAD_BUILD_CACHE", None)
    env.pop("MAKEFLAGS", None)
    return env


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 600) -> str:
    """Run ``cmd``; it must succeed. Returns stdout + stderr."""
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{' '.join(cmd)} failed ({proc.returncode}):\n{out}"
    return out


def run_program(path: Path) -> str:
    """Run a built program: it checks its own derivatives and aborts when one is wrong."""
    proc = subprocess.run([str(path)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, f"{path} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}"
    assert proc.stdout.startswith("ok"), proc.stdout
    return proc.stdout


def copy_project(dest: Path, src: Path = SPRINGS) -> Path:
    shutil.copytree(src, dest)
    return dest
