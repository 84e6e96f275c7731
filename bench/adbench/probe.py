"""Run one irgrad-built library on one instance in a child process first: a derivative
that crashes (a bug in the generated code) must not take the whole runner down.

    python -m bench.adbench.probe LIB WORKLOAD PATH   # exit 0 when every call returned
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from .instances import Instance

REPO = Path(__file__).resolve().parents[2]


def probe(lib: Path, inst: Instance, timeout_s: float = 600.0) -> str | None:
    """None when the library's objective and derivatives return on ``inst``, else why not."""
    cmd = [sys.executable, "-m", "bench.adbench.probe", str(lib), inst.workload, inst.path]
    try:
        proc = subprocess.run(
            cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return f"no result within {timeout_s:.0f} s"
    if proc.returncode == 0:
        return None
    if proc.returncode < 0:
        return f"crashed ({signal.Signals(-proc.returncode).name}) in the generated code"
    tail = proc.stderr.strip().splitlines()
    return f"failed: {tail[-1] if tail else proc.returncode}"


def main(argv: list[str]) -> int:
    from .native import AdbenchLib
    from .tools import _enzyme, _native_objective

    lib_path, workload, path = argv
    inp = Instance(workload, path, path).load()
    lib = AdbenchLib(lib_path)
    _native_objective(lib, inp)()
    for fn in _enzyme(lib, inp).values():
        fn()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
