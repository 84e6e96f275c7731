"""``irgrad cc -fsanitize=...``: sanitizers over the differentiated program.

Clang's sanitizers come in two kinds. UndefinedBehaviorSanitizer's checks are written by
clang's front end into the IR of each unit, so they pass through irgrad's pipeline like
the rest of the program (their handlers, ``__ubsan_handle_*``, carry no derivatives).
AddressSanitizer (and the other memory sanitizers) are LLVM passes that run after
optimization -- which irgrad's own code generation through llvmlite does not run. So for
those the differentiated, optimized module goes through clang-22 once more: every
function definition (derivatives included: they read and write shadow memory) gets the
``sanitize_*`` attribute clang's front end gives the user's functions, and clang compiles
the bitcode with the same ``-fsanitize`` flags, which runs the instrumentation. The link
then uses the flags too, so clang links the sanitizer runtimes (Debian's
``libclang-rt-22-dev``).
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import llvmlite.binding as llvm

from irgrad import ir
from irgrad.errors import ToolchainError
from irgrad.llvm.load import parse_llvm
from irgrad.toolchain import find_tool

# sanitizers implemented as LLVM passes, and the function attribute each one looks for
PASS_SANITIZERS = {
    "address": "sanitize_address",
    "kernel-address": "sanitize_address",
    "hwaddress": "sanitize_hwaddress",
    "memory": "sanitize_memory",
    "thread": "sanitize_thread",
}


def front_end_flag(flag: str) -> str | None:
    """``flag`` as the compile step of a unit gets it: without the pass sanitizers, which
    run on the differentiated module (clang -O0 would otherwise instrument each unit before
    irgrad sees it, and the instrumentation keeps the addresses of Enzyme's markers).
    None: nothing is left to give."""
    if not flag.startswith("-fsanitize="):
        return flag
    kept = [s for s in flag.split("=", 1)[1].split(",") if s and s not in PASS_SANITIZERS]
    return "-fsanitize=" + ",".join(kept) if kept else None


def needs_instrumentation(sanitizers: Sequence[str]) -> bool:
    """Whether some sanitizer asked for runs as an LLVM pass after optimization."""
    return any(s in PASS_SANITIZERS for s in sanitizers)


def mark_functions(module: llvm.ModuleRef, sanitizers: Sequence[str],
                   name: str) -> llvm.ModuleRef:
    """Give every function definition the attributes of the pass sanitizers."""
    attrs = sorted({PASS_SANITIZERS[s] for s in sanitizers if s in PASS_SANITIZERS})
    model = ir.parse_module(str(module))
    for fn in model.functions:
        if fn.is_declaration:
            continue
        for a in attrs:
            if a not in fn.fn_attrs:
                fn.fn_attrs.append(a)
    return parse_llvm(ir.print_module(model), name)


def instrumented_object(module: llvm.ModuleRef, sanitize_flags: Sequence[str],
                        sanitizers: Sequence[str], opt_level: int, name: str) -> bytes:
    """Native code of ``module`` compiled by clang-22 with the sanitizer passes."""
    marked = mark_functions(module, sanitizers, name)
    with tempfile.TemporaryDirectory(prefix="irgrad-san-") as tmp:
        bc = Path(tmp) / "module.bc"
        obj = Path(tmp) / "module.o"
        bc.write_bytes(marked.as_bitcode())
        cmd = [find_tool("clang"), "-c", "-x", "ir", str(bc), f"-O{opt_level}",
               "-march=native", "-fPIC", *sanitize_flags, "-o", str(obj),
               "-Wno-unused-command-line-argument"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise ToolchainError(f"instrumenting {name} for {','.join(sanitizers)} failed: "
                                 f"{proc.stderr.strip()[-2000:]}")
        return obj.read_bytes()


__all__ = ["PASS_SANITIZERS", "instrumented_object", "mark_functions",
           "needs_instrumentation"]
