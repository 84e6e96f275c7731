"""Compile our C objectives and hand-written derivatives into one shared library.

    .venv/bin/python bench/adbench/build.py [--out DIR]

Flags: clang-22 -O3 -march=native, no fast-math, clang's default FP contraction
(``-ffp-contract=on``: a*b+c inside one expression may fuse), so the numbers stay
comparable with the AD tools compiled the same way. The Enzyme-style gradient sources
(``*_grad_enzyme.c``) are listed in ENZYME_SOURCES; they need the irgrad compiler
(``irgrad cc``) and are not part of this library.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

C_DIR = Path(__file__).resolve().parent / "c"
CC = "clang-22"
CFLAGS = ["-O3", "-march=native", "-ffp-contract=on", "-fPIC"]
WARNINGS = ["-Wall", "-Wextra", "-Werror"]

OBJECTIVE_SOURCES = ["gmm.c", "lstm.c", "ba.c", "hand.c"]
MANUAL_SOURCES = ["gmm_manual.c", "lstm_manual.c", "ba_manual.c", "hand_manual.c"]
ENZYME_SOURCES = [
    "gmm_grad_enzyme.c",
    "lstm_grad_enzyme.c",
    "ba_grad_enzyme.c",
    "hand_grad_enzyme.c",
    "hand_grad_enzyme_fwd.c",
]
HEADERS = ["gmm.h", "lstm.h", "ba.h", "hand.h"]


class BuildError(RuntimeError):
    """The C compiler is missing or rejected our sources."""


def _digest(sources: list[str], cc: str, flags: list[str]) -> str:
    h = hashlib.sha256()
    h.update(" ".join([cc, *flags]).encode())
    for name in sorted({*sources, *HEADERS}):
        h.update(name.encode())
        h.update((C_DIR / name).read_bytes())
    return h.hexdigest()[:16]


def build_library(
    out_dir: Path | str | None = None,
    sources: list[str] | None = None,
    cc: str = CC,
    flags: list[str] | None = None,
) -> Path:
    """Compile ``sources`` (default: objectives + manual derivatives) into
    ``out_dir/libadbench-<hash>.so`` and return its path; an existing build with the
    same sources and flags is reused."""
    sources = list(sources if sources is not None else OBJECTIVE_SOURCES + MANUAL_SOURCES)
    flags = list(flags if flags is not None else CFLAGS)
    compiler = shutil.which(cc)
    if compiler is None:
        raise BuildError(f"C compiler {cc!r} not found on PATH (scripts/setup.sh installs it)")
    out = Path(out_dir) if out_dir is not None else Path(tempfile.gettempdir()) / "adbench-build"
    out.mkdir(parents=True, exist_ok=True)
    lib = out / f"libadbench-{_digest(sources, cc, flags)}.so"
    if lib.exists():
        return lib
    tmp = lib.with_suffix(f".{os.getpid()}.tmp")
    cmd = [
        compiler,
        *flags,
        *WARNINGS,
        "-shared",
        f"-I{C_DIR}",
        *(str(C_DIR / s) for s in sources),
        "-o",
        str(tmp),
        "-lm",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(cmd)}\n{proc.stderr}")
    tmp.replace(lib)
    return lib


IRGRAD_SOURCES: dict[str, list[str]] = {
    "gmm": ["gmm.c", "gmm_grad_enzyme.c"],
    "lstm": ["lstm.c", "lstm_grad_enzyme.c"],
    "ba": ["ba.c", "ba_grad_enzyme.c"],
    "hand": ["hand.c", "hand_grad_enzyme.c", "hand_grad_enzyme_fwd.c"],
}
IRGRAD_SRC = Path(__file__).resolve().parents[2] / "src" / "irgrad"


def irgrad_executable() -> str:
    """The ``irgrad`` script next to the running interpreter (the venv's), else PATH's."""
    local = Path(sys.executable).parent / "irgrad"
    found = str(local) if local.exists() else shutil.which("irgrad")
    if found is None:
        raise BuildError("irgrad not found next to the interpreter or on PATH (pip install -e .)")
    return found


def build_irgrad_library(
    workload: str, out_dir: Path | str | None = None, pre_ad: bool = True
) -> Path:
    """Compile one workload's objective and Enzyme-style entry points with
    ``irgrad cc -O3 -march=native`` (``pre_ad=False``: ``--irgrad-no-pre-ad``, AD on the
    unoptimized IR, the same post-AD optimization) into a cached shared library. The
    cache key covers the C sources, the flags and irgrad's own sources."""
    if workload not in IRGRAD_SOURCES:
        raise BuildError(f"unknown workload {workload!r}; expected one of {sorted(IRGRAD_SOURCES)}")
    sources = IRGRAD_SOURCES[workload]
    flags = [*CFLAGS, *([] if pre_ad else ["--irgrad-no-pre-ad"])]
    h = hashlib.sha256(_digest(sources, "irgrad", flags).encode())
    for py in sorted(IRGRAD_SRC.rglob("*.py")):
        h.update(py.read_bytes())
    out = Path(out_dir) if out_dir is not None else Path(tempfile.gettempdir()) / "adbench-build"
    out.mkdir(parents=True, exist_ok=True)
    lib = out / f"libadbench-irgrad-{workload}-{h.hexdigest()[:16]}.so"
    if lib.exists():
        return lib
    tmp = lib.with_suffix(f".{os.getpid()}.tmp")
    cmd = [irgrad_executable(), "cc", *flags, "-shared", f"-I{C_DIR}"]
    cmd += [*(str(C_DIR / s) for s in sources), "-o", str(tmp), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(cmd)}\n{proc.stderr.strip()}")
    tmp.replace(lib)
    return lib


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="output folder")
    args = ap.parse_args(argv)
    try:
        print(build_library(args.out))
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
