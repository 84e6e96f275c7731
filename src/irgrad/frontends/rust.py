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


# a function of Rust's standard library crates (v0-mangled), and the crate that
# instantiated a generic one (v0 ends such a symbol with ``C[s<hash>_]<len><crate>``)
_STD_SYMBOL = re.compile(r"^_RN\w*?C(?:s[0-9a-zA-Z]*_)?(?:5alloc|4core|3std)\d")
_INSTANTIATING_CRATE = re.compile(r"C(?:s[0-9a-zA-Z]*_)?(\d+)_?([A-Za-z_]\w*)$")


def _instantiated_elsewhere(symbol: str) -> bool:
    """Is ``symbol`` an instance of a generic function (it names its instantiating
    crate)?"""
    for start in range(len(symbol) - 1, 2, -1):
        if symbol[start] != "C":
            continue
        m = _INSTANTIATING_CRATE.fullmatch(symbol, start)
        if m is not None and len(m.group(2)) == int(m.group(1)):
            return True
    return False


def rust_native_hint(symbol: str) -> str | None:
    """What makes a standard-library function an input defines only as native code
    differentiable, when ``symbol`` is one (None: another symbol).

    A crate built with ``-C linker-plugin-lto`` at ``-C opt-level=0``/``1`` (or ``s``,
    ``z``) still calls the standard library's generics (``RawVecInner::deallocate``,
    ``grow_amortized``) through the native copies rustc shares between crates; rebuilding
    with ``-C linker-plugin-lto`` again changes nothing. ``-Z share-generics=no`` gives the
    crate copies of its own in its bitcode."""
    if _STD_SYMBOL.match(symbol) is None or not _instantiated_elsewhere(symbol):
        return None
    return ("a generic function of Rust's standard library that the crate calls through "
            "rustc's shared native copy (rustc shares generics at -C opt-level=0, 1, s "
            "and z): build the crate with `-Z share-generics=no` besides `-C "
            "linker-plugin-lto` (on a stable rustc, with RUSTC_BOOTSTRAP=1 in rustc's "
            "environment), or at -C opt-level=2 or 3")
