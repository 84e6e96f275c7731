"""Helpers for the analysis tests: parse .ll text, compile C through the pre-AD pipeline."""

from __future__ import annotations

import tempfile
from pathlib import Path

from irgrad import ir
from irgrad.frontends.c import compile_c
from irgrad.ir.function import BasicBlock, Function
from irgrad.ir.instructions import Instruction
from irgrad.llvm import canonicalize, module_text, parse_llvm


def parse(text: str) -> ir.Module:
    return ir.parse_module(text)


def parse_fn(text: str, name: str = "f") -> Function:
    fn = parse(text).get_function(name)
    assert fn is not None
    return fn


def c_module(source: str) -> ir.Module:
    """C source -> clang-22 -O2 -disable-llvm-passes -> irgrad's pre-AD pipeline -> our IR."""
    with tempfile.TemporaryDirectory(prefix="irgrad-analysis-") as tmp:
        path = Path(tmp) / "kernel.c"
        path.write_text(source)
        bitcode = compile_c(path)
    module = canonicalize(parse_llvm(bitcode))
    return ir.parse_module(module_text(module))


def block(fn: Function, name: str) -> BasicBlock:
    for bb in fn.blocks:
        if bb.name == name:
            return bb
    raise KeyError(name)


def inst(fn: Function, name: str) -> Instruction:
    for i in fn.instructions():
        if i.name == name:
            return i
    raise KeyError(name)


