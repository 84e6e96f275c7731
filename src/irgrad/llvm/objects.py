"""Native code from modules: object files, assembly, and linking with the system linker.

Objects come from a TargetMachine (position independent, so they link into PIE
executables and shared libraries). Linking goes through ``clang-22`` as the driver — or
``flang-22`` when any Fortran object is present, so the Fortran runtime comes along — with
``-fuse-ld=lld`` on request. Rust objects link against the Rust standard library found
through ``rustc``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import llvmlite.binding as llvm

from irgrad.errors import LLVMError, ToolchainError
from irgrad.llvm.target import apply_target, create_target_machine
from irgrad.toolchain import run_tool, rust_target_libdir


def emit_object(
    module: llvm.ModuleRef, path: str | Path | None = None, *, opt_level: int = 2
) -> bytes:
    """Native object code of ``module`` (also written to ``path`` when given)."""
    tm = create_target_machine(opt_level, reloc="pic", codemodel="default")
    apply_target(module, tm)
    try:
        data = bytes(tm.emit_object(module))
    except RuntimeError as exc:
        raise LLVMError(f"code generation failed: {exc}") from None
    if path is not None:
        Path(path).write_bytes(data)
    return data


def emit_assembly(module: llvm.ModuleRef, *, opt_level: int = 2) -> str:
    """Native assembly text of ``module``."""
    tm = create_target_machine(opt_level, reloc="pic", codemodel="default")
    apply_target(module, tm)
    try:
        return str(tm.emit_assembly(module))
    except RuntimeError as exc:
        raise LLVMError(f"code generation failed: {exc}") from None


@dataclass
class LinkOptions:
    """What a link needs besides its inputs (mirrors the linker flags of clang)."""

    libraries: Sequence[str] = ()
    library_dirs: Sequence[str] = ()
    extra_flags: Sequence[str] = ()
    fortran: bool = False
    cplusplus: bool = False
    rust: bool = False
    use_lld: bool = False
    shared: bool = False
    debug: bool = False
    verbose: bool = False  # clang -v (build systems read the linker command it prints)
    rpaths: list[str] = field(default_factory=list)


def link(inputs: Sequence[str | Path], output: str | Path, options: LinkOptions | None = None) -> Path:
    """Link objects/archives/shared libraries into an executable (or ``.so`` when shared)."""
    link_process(inputs, output, options)
    return Path(output)


def link_process(
    inputs: Sequence[str | Path], output: str | Path, options: LinkOptions | None = None
) -> subprocess.CompletedProcess[bytes]:
    """:func:`link`, returning the linker driver's process (its stderr holds warnings and
    the ``-v`` output). ``inputs`` may mix files with ``-l``/``-L``/``-Wl,`` flags: their
    order is kept."""
    opts = options or LinkOptions()
    driver = "flang" if opts.fortran else ("clang++" if opts.cplusplus else "clang")
    args: list[str] = [str(p) for p in inputs]
    args += ["-o", str(output)]
    if opts.shared:
        args.append("-shared")
    if opts.use_lld:
        args.append("-fuse-ld=lld")
    if opts.debug:
        args.append("-g")
    if opts.verbose:
        args.append("-v")
    args += [f"-L{d}" for d in opts.library_dirs]
    args += list(opts.extra_flags)
    args += [lib if lib.startswith("-l") else f"-l{lib}" for lib in opts.libraries]
    if opts.rust:
        args += rust_link_flags()
    if opts.fortran and opts.cplusplus:
        args.append("-lstdc++")
    rpaths = list(opts.rpaths)
    args += [f"-Wl,-rpath,{r}" for r in rpaths]
    args.append("-lm")
    if driver != "flang":
        args.append("-Wno-unused-command-line-argument")
    return run_tool(driver, args, what=f"linking {output} failed")


def rust_link_flags() -> list[str]:
    """Linker flags for objects compiled from Rust: the dynamic std library and its rpath."""
    libdir = rust_target_libdir()
    std = sorted(libdir.glob("libstd-*.so"))
    if not std:
        raise ToolchainError(f"no Rust standard library (libstd-*.so) in {libdir}")
    return [
        f"-L{libdir}",
        f"-l:{std[0].name}",
        f"-Wl,-rpath,{libdir}",
        "-lpthread",
        "-ldl",
        "-lgcc_s",
    ]
