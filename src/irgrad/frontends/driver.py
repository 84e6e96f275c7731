"""``irgrad cc`` (and ``irgrad-cc``, ``irgrad-c++``, ``irgrad-fortran``): a drop-in compiler
driver that differentiates at link time.

- ``-c`` (with or without ``-flto``) writes an LTO object: LLVM bitcode in the ``.o``,
  ``__enzyme_*`` calls kept (:mod:`irgrad.frontends.compile_step`).
- Linking (no ``-c``/``-S``) compiles the sources given, takes every bitcode object and
  archive member a linker would take, differentiates them as one module and hands the
  result to the system linker with the native inputs (:mod:`irgrad.frontends.link_step`).
- ``-S`` (assembly) and ``-emit-llvm`` without ``-flto`` differentiate each translation
  unit on its own and write assembly / IR, as before there was a link step.
- ``-E``, ``-M``, ``--version``, ``-print-*`` and friends are answered by clang itself.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import llvmlite.binding as llvm

from irgrad import __version__
from irgrad.build_cache import BuildCache
from irgrad.errors import UsageError
from irgrad.frontends import compile_source
from irgrad.frontends.build_log import BuildLog
from irgrad.frontends.cc_args import Invocation, parse_cc_args
from irgrad.frontends.compile_step import LINE_TABLES, compile_unit, language_flags
from irgrad.llvm.debug_info import strip_debug_info
from irgrad.llvm.objects import emit_assembly
from irgrad.toolchain import enzyme_include_dir, find_tool, observe_commands

_DRIVERS = {"cc": "clang", "c++": "clang++", "fortran": "flang"}


def run_cc(argv: Sequence[str], personality: str = "cc") -> int:
    """Run the driver with clang-style arguments; returns the exit status."""
    inv = parse_cc_args(argv, personality)
    if inv.passthrough:
        return _passthrough(inv)
    log = BuildLog(inv.verbose)
    log.note(f"irgrad {__version__} ({_DRIVERS[personality]}-22 drop-in): {' '.join(argv)}")
    cache = BuildCache.from_environment()
    with observe_commands(log.command if inv.verbose else None):
        if inv.compile_only or inv.assembly:
            return _compile_only(inv, log, cache)
        if inv.emit_llvm:
            raise UsageError("-emit-llvm needs -c or -S")
        # the AD engine is imported only by the steps that differentiate: a build's
        # compile steps (`irgrad cc -c`, once per source file) start without it
        from irgrad.frontends.link_step import run_link

        return run_link(inv, log, cache)


def _compile_only(inv: Invocation, log: BuildLog, cache: BuildCache | None) -> int:
    if not inv.sources:
        raise UsageError("no source files to compile")
    if inv.output is not None and len(inv.sources) > 1:
        raise UsageError("cannot specify -o when generating multiple output files")
    per_unit_ad = inv.assembly or (inv.emit_llvm and not inv.lto)
    for path, lang in inv.sources:
        out = inv.output or path.with_suffix(_suffix(inv)).name
        if per_unit_ad:
            _write(_differentiate_unit(inv, log, path, lang), inv, out)
            continue
        data = compile_unit(path, lang, inv, log, cache, output=out)
        if inv.assembly:  # -S -emit-llvm -flto: the LTO object as text
            data = str(llvm.parse_bitcode(data)).encode()
        _write_bytes(data, out)
    return 0


def _differentiate_unit(inv: Invocation, log: BuildLog, path: Path, lang: str) -> llvm.ModuleRef:
    """One translation unit through the whole pipeline (for -S and -emit-llvm)."""
    from irgrad.pipeline import PipelineOptions, explain_sink, run_pipeline

    line_tables = [] if inv.debug or lang in ("ir", "rust") else [LINE_TABLES]
    with log.stage(f"compile {path} ({lang})"):
        module = compile_source(path, language=lang, opt_level=inv.level,
                                flags=[*language_flags(inv, lang), *line_tables], for_ad=True)
    options = PipelineOptions(
        opt_level=inv.level, pre_ad=inv.pre_ad, print_analyses=tuple(inv.print_analyses),
        analysis_sink=lambda s: print(s, file=sys.stdout, flush=True),
        explain_sink=explain_sink(inv.explain_ad),
    )
    with log.stage(f"pipeline {path} (pre-AD, AD, optimize)"):
        module = run_pipeline(module, filename=str(path), options=options)
    if line_tables:
        module = strip_debug_info(module, str(path))
    return module


def _write(module: llvm.ModuleRef, inv: Invocation, out: str) -> None:
    if inv.emit_llvm:
        data: bytes = str(module).encode() if inv.assembly else module.as_bitcode()
    else:
        data = emit_assembly(module, opt_level=inv.level).encode()
    _write_bytes(data, out)


def _write_bytes(data: bytes, out: str) -> None:
    if out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        Path(out).write_bytes(data)


def _suffix(inv: Invocation) -> str:
    if inv.emit_llvm:
        return ".ll" if inv.assembly else ".bc"
    return ".s" if inv.assembly else ".o"


def _passthrough(inv: Invocation) -> int:
    """``-E``, ``-M``, ``--version``, ``-v`` alone, ``-print-*``: clang answers."""
    tool = _DRIVERS[inv.personality]
    extra = [] if tool == "flang" else ["-idirafter", str(enzyme_include_dir())]
    if any(a in ("--version", "-dumpversion", "-dumpfullversion", "-dumpmachine")
           or a.startswith(("-print-", "--print-")) for a in inv.argv):
        extra = []  # nothing is compiled: no unused-flag warning
    version = "--version" in inv.argv
    status = subprocess.run([find_tool(tool), *inv.argv, *extra], check=False).returncode
    if version or (inv.verbose and not inv.inputs):
        print(f"irgrad {__version__}: {tool}-22 with automatic differentiation at link time "
              f"(`irgrad --version` lists the toolchain)", flush=True)
    return status


__all__ = ["Invocation", "parse_cc_args", "run_cc"]
