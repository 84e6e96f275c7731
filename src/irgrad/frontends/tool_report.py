"""``irgrad --version``: irgrad, llvmlite and its LLVM, and every external tool irgrad
drives — where it was found and its version, or what is missing and how to install it."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import llvmlite.binding as llvm

from irgrad import __version__
from irgrad.errors import ToolchainError
from irgrad.toolchain import TOOLS, enzyme_include_dir, find_tool

# (key, what irgrad uses it for)
_REPORTED = (
    ("clang", "C front end, linker driver"),
    ("clang++", "C++ front end"),
    ("flang", "Fortran front end"),
    ("rustc", "Rust front end"),
    ("opt", "debug-info stripping, IR tests"),
    ("llvm-nm", "symbol tables of link inputs"),
    ("llvm-ar", "archives (irgrad-ar)"),
    ("ld.lld", "-fuse-ld=lld"),
)


def _package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def tool_line(key: str, purpose: str) -> str:
    try:
        path = find_tool(key)
    except ToolchainError as err:
        return f"  {key:<9} MISSING ({purpose}): {err.message}"
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30,
                              check=False)
        lines = [ln.strip() for ln in proc.stdout.splitlines() if ln.strip()]
        version = next((ln for ln in lines if "version" in ln.lower()), lines[0] if lines else "?")
        if key == "rustc":
            version = lines[0] if lines else version
    except (OSError, subprocess.SubprocessError) as exc:
        version = f"cannot run: {exc}"
    env = TOOLS[key].env_var
    return f"  {key:<9} {path}  ({version}; override with {env})"


def version_report() -> str:
    major, minor, patch = llvm.llvm_version_info
    lines = [
        f"irgrad {__version__} (Python {sys.version.split()[0]})",
        f"  llvmlite {_package_version('llvmlite')} (LLVM {major}.{minor}.{patch})",
        f"  numba {_package_version('numba')}, numpy {_package_version('numpy')}",
        f"  headers   {enzyme_include_dir()} (#include <enzyme/enzyme.h>)",
        "tools:",
    ]
    lines += [tool_line(key, purpose) for key, purpose in _REPORTED]
    return "\n".join(lines)


__all__ = ["tool_line", "version_report"]
