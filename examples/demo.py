"""`make demo`: build a C program that calls Enzyme's API with `irgrad cc` and run it."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    source = ROOT / "examples" / "rosenbrock.c"
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "rosenbrock"
        cmd = [sys.executable, "-m", "irgrad", "cc", "-O2", str(source), "-o", str(exe), "-lm"]
        print("$ irgrad cc -O2 examples/rosenbrock.c -o rosenbrock -lm", flush=True)
        built = subprocess.run(cmd)
        if built.returncode != 0:
            return built.returncode
        print("$ ./rosenbrock", flush=True)
        return subprocess.run([str(exe)]).returncode


if __name__ == "__main__":
    raise SystemExit(main())
