"""Rust through rustc (bitcode read by llvmlite, whatever LLVM rustc bundles as long as
LLVM 22 reads it).

For AD every generic function the crate instantiates must be in its own IR: with rustc's
default *shared generics* (on at ``-C opt-level=0`` and ``1``), ``Vec<f64>::push`` calls
``RawVecInner::grow_amortized`` instantiated once in the standard library's native code,
which irgrad cannot differentiate. IR for AD is therefore compiled with
``-Z share-generics=no``; a stable rustc takes that flag with ``RUSTC_BOOTSTRAP=1`` (set
for this one rustc run only), a nightly one as it is.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from irgrad.toolchain import run_tool

_MAIN_RE = re.compile(r"^\s*(pub\s+)?fn\s+main\s*\(", re.M)


def rust_crate_type(source: str | Path) -> str:
    """``bin`` when the source defines ``fn main``, otherwise ``lib``."""
    try:
        text = Path(source).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "lib"
    return "bin" if _MAIN_RE.search(text) else "lib"


def rustc_ir_flags(opt_level: int, for_ad: bool) -> list[str]:
    """rustc flags: ``-C no-prepopulate-passes`` is rustc's ``-disable-llvm-passes``."""
    flags = ["-C", f"opt-level={opt_level}"]
    if for_ad:
        flags += ["-C", "no-prepopulate-passes", "-Z", "share-generics=no"]
    return flags


# the environment rustc runs in for AD: -Z flags on a stable toolchain (module doc)
RUSTC_AD_ENV = {"RUSTC_BOOTSTRAP": "1"}


def compile_rust(
    source: str | Path,
    *,
    opt_level: int = 2,
    flags: Sequence[str] = (),
    for_ad: bool = True,
    crate_type: str | None = None,
    panic_abort: bool = False,
) -> bytes:
    """Bitcode of one Rust crate root."""
    kind = crate_type or rust_crate_type(source)
    with tempfile.TemporaryDirectory(prefix="irgrad-rs-") as tmp:
        out = Path(tmp) / (Path(source).stem + ".bc")
        args = [f"--crate-type={kind}", "--emit=llvm-bc", *rustc_ir_flags(opt_level, for_ad)]
        # one codegen unit: a single bitcode file for the crate
        args += ["-C", "codegen-units=1"]
        if panic_abort:
            args += ["-C", "panic=abort"]
        args += [*flags, str(source), "-o", str(out)]
        run_tool("rustc", args, what=f"rustc could not compile {source}",
                 env=RUSTC_AD_ENV if for_ad else None)
        return out.read_bytes()
