"""Debug info that irgrad added for its own use, taken out again.

``irgrad cc`` compiles with line tables even without ``-g`` so that diagnostics name file
and line; the output must still look as the user asked. LLVM's StripDebugInfo is not
reachable through llvmlite (its ``strip`` pass also renames local symbols), so this runs
``opt-22 --strip-debug`` on the module's bitcode.
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm

from irgrad.llvm.load import parse_llvm
from irgrad.toolchain import run_tool

_FLAG_RE = r'!\{i32 \d+, !"{name}", i32 (\d+)\}'


def strip_debug_info(module: llvm.ModuleRef, filename: str = "<input>") -> llvm.ModuleRef:
    """``module`` without debug info (a new module)."""
    proc = run_tool("opt", ["--strip-debug", "-", "-o", "-"], input=module.as_bitcode(),
                    what="opt-22 --strip-debug failed")
    return parse_llvm(proc.stdout, filename)


def module_flag(text: str, name: str) -> int | None:
    """The integer value of module flag ``name`` in module text ``text``, if present."""
    match = re.search(_FLAG_RE.replace("{name}", re.escape(name)), text)
    return int(match.group(1)) if match else None


def has_debug_info(text: str) -> bool:
    return "\n!llvm.dbg.cu = " in text


__all__ = ["has_debug_info", "module_flag", "strip_debug_info"]
