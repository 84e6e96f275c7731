"""C and C++ through clang-22 / clang++-22."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from irgrad.toolchain import run_tool


def clang_ir_flags(opt_level: int, for_ad: bool) -> list[str]:
    """clang flags that give IR good for AD (``for_ad``) or clang's optimized IR."""
    if not for_ad:
        return [f"-O{opt_level}"]
    if opt_level == 0:
        # plain -O0, exactly what users pipe into `irgrad opt`: clang marks every function
        # `optnone noinline` (with -disable-O0-optnone it would still add `noinline`, which
        # then could not be told from the user's own); the pre-AD step strips the pair.
        return ["-O0", "-fno-discard-value-names"]
    return [f"-O{opt_level}", "-Xclang", "-disable-llvm-passes", "-fno-discard-value-names"]


def compile_c(
    source: str | Path,
    *,
    cplusplus: bool = False,
    opt_level: int = 2,
    flags: Sequence[str] = (),
    for_ad: bool = True,
) -> bytes:
    """Bitcode of one C (or C++) translation unit."""
    driver = "clang++" if cplusplus else "clang"
    with tempfile.TemporaryDirectory(prefix="irgrad-cc-") as tmp:
        out = Path(tmp) / (Path(source).stem + ".bc")
        args = ["-c", "-emit-llvm", *clang_ir_flags(opt_level, for_ad), *flags]
        args += [str(source), "-o", str(out)]
        run_tool(driver, args, what=f"{driver}-22 could not compile {source}")
        return out.read_bytes()
