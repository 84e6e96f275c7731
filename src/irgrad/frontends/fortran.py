"""Fortran through flang-22.

flang has no ``-disable-llvm-passes``; IR for AD is flang's output at ``-O{n}`` with
vectorization and unrolling turned off (``-fno-vectorize -fno-slp-vectorize
-fno-unroll-loops``) — the same shape irgrad's pre-AD pipeline produces.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from irgrad.toolchain import run_tool


def flang_ir_flags(opt_level: int, for_ad: bool) -> list[str]:
    """flang flags for IR good for AD (``for_ad``) or flang's optimized IR."""
    flags = [f"-O{opt_level}"]
    if for_ad:
        flags += ["-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops"]
    return flags


def compile_fortran(
    source: str | Path,
    *,
    opt_level: int = 2,
    flags: Sequence[str] = (),
    for_ad: bool = True,
    module_dir: str | Path | None = None,
) -> bytes:
    """LLVM IR text (UTF-8 bytes) of one Fortran source file. The ``.mod`` files of the
    modules it defines go to ``module_dir`` (where other files' ``use`` finds them), by
    default to a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="irgrad-fc-") as tmp:
        out = Path(tmp) / (Path(source).stem + ".ll")
        args = ["-S", "-emit-llvm", *flang_ir_flags(opt_level, for_ad), *flags]
        args += ["-module-dir", str(module_dir or tmp), str(source), "-o", str(out)]
        run_tool("flang", args, what=f"flang-22 could not compile {source}")
        return out.read_bytes()
