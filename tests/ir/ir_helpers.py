"""Helpers for the IR tests: LLVM (llvmlite) round-trip checks and clang-22 output."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import llvmlite.binding as llvm

from irgrad import ir

llvm.initialize_native_target()
llvm.initialize_native_asmprinter()

INPUTS = Path(__file__).parent / "inputs"


def llvm_print(text: str) -> str:
    """LLVM's own print of ``text`` (parsed and verified in a fresh context)."""
    mod = llvm.parse_assembly(text, context=llvm.create_context())
    mod.verify()
    return str(mod)


def check_roundtrip(text: str, name: str = "<input>") -> str:
    """print∘parse is stable, LLVM accepts our output and prints it like the original."""
    for lazy in (True, False):
        m = ir.parse_module(text, name, lazy=lazy)
        out = ir.print_module(m)
        again = ir.print_module(ir.parse_module(out, name + ".out", lazy=False))
        assert again == ir.print_module(ir.parse_module(again, name + ".again", lazy=False))
        if not lazy:
            assert out == again, f"{name}: print(parse(print(parse(x)))) != print(parse(x))"
        assert llvm_print(out) == llvm_print(text), f"{name} (lazy={lazy}): LLVM print differs"
    return out


def clang_ir(source: str, opt: str = "-O2", lang: str = "c", extra: tuple[str, ...] = ()) -> str:
    clang = shutil.which("clang-22")
    assert clang is not None, "clang-22 is required (scripts/setup.sh installs it)"
    res = subprocess.run(
        [clang, "-x", lang, opt, "-S", "-emit-llvm", *extra, "-o", "-", "-"],
        input=source, capture_output=True, text=True, check=False,
    )
    assert res.returncode == 0, res.stderr
    return res.stdout
