"""``irgrad cc -c``: one translation unit to an LTO object — LLVM bitcode in a ``.o`` file,
like ``clang -flto -c`` writes, with the ``__enzyme_*`` calls left in place for the link
step (:mod:`irgrad.frontends.link_step`) to lower across every file and library.

Each object also carries what irgrad needs at link time, as module flags (merged with
LLVM's ``Max`` behaviour when modules are linked) and named metadata:

    irgrad.opt_level    the -O level the unit was compiled at (the link uses the highest)
    irgrad.user_debug   1 when the user asked for debug info (-g)
    irgrad.line_tables  1 when irgrad added line tables for its own diagnostics
    irgrad.no_pre_ad    1 for -Xirgrad --no-pre-ad
    !irgrad.print       the -Xirgrad --print-activity=F / --print-type-analysis=F requests

Without ``-g``, units are compiled with ``-gline-tables-only`` so that every diagnostic
names file and line; the link step strips that debug info from the output again.

C and C++ units go through the build cache (:mod:`irgrad.build_cache`), keyed by the
preprocessed source, the flags, the working directory, irgrad's fingerprint and the
compiler's identity: an unchanged unit is not compiled again (``-v`` shows the hits).
Fortran (``include`` files and module files are not in its preprocessed text) and Rust
(a crate spans files) are compiled every time.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import llvmlite.binding as llvm

from irgrad.build_cache import BuildCache, cache_key, file_identity, irgrad_fingerprint
from irgrad.frontends.build_log import BuildLog
from irgrad.frontends.c import check_enzyme_attributes, clang_ir_flags
from irgrad.frontends.cc_args import Invocation
from irgrad.frontends.fortran import compile_fortran
from irgrad.frontends.rust import compile_rust
from irgrad.llvm.load import parse_llvm
from irgrad.toolchain import enzyme_include_dir, find_tool, run_tool

LINE_TABLES = "-gline-tables-only"


def language_flags(inv: Invocation, lang: str) -> list[str]:
    """The user's flags that apply to a source of language ``lang``."""
    if lang in ("c", "c++"):
        # after the user's directories: #include <enzyme/enzyme.h> works unchanged
        fallback = ["-idirafter", str(enzyme_include_dir())]
        return [*inv.preprocessor_flags, *inv.compile_flags, *fallback]
    if lang == "fortran":
        debug = [f for f in inv.compile_flags if f.startswith("-g")]
        return [*inv.preprocessor_flags, *debug]
    return []


def compile_unit(
    path: Path, lang: str, inv: Invocation, log: BuildLog, cache: BuildCache | None,
    *, output: str | None,
) -> bytes:
    """The LTO object (bitcode bytes) of one source file. ``output`` is the object's
    path (for dependency files), None when the object stays in memory."""
    with log.stage(f"compile {path} ({lang})"):
        if lang in ("c", "c++"):
            return _compile_c(path, lang, inv, log, cache, output)
        if lang == "fortran":
            module_dir = _flag_value(inv.fortran_flags, "-module-dir") or "."
            flags = [*language_flags(inv, lang), *([] if inv.debug else [LINE_TABLES])]
            log.note(f"cache: not used for {path} (Fortran include and module files)")
            data = compile_fortran(
                path, opt_level=inv.level, flags=flags, for_ad=True, module_dir=module_dir
            )
        elif lang == "rust":
            flags = [] if inv.debug else ["-C", "debuginfo=line-tables-only"]
            log.note(f"cache: not used for {path} (a Rust crate spans files)")
            data = compile_rust(path, opt_level=inv.level, flags=flags, for_ad=True)
        else:  # LLVM IR given as a source
            data = path.read_bytes()
        return tag_module(parse_llvm(data, str(path)), inv, line_tables=lang != "ir")


def _compile_c(
    path: Path, lang: str, inv: Invocation, log: BuildLog, cache: BuildCache | None,
    output: str | None,
) -> bytes:
    driver = "clang++" if lang == "c++" else "clang"
    args = [*clang_ir_flags(inv.level, True), *([] if inv.debug else [LINE_TABLES])]
    args += ["-x", "c++" if lang == "c++" else "c", *language_flags(inv, lang)]
    # clang's -v output (search paths, which CMake reads) comes from the first clang run
    verbose = ["-v"] if inv.verbose else []
    deps = dependency_args(inv, output)
    key = None
    if cache is not None:
        pre = run_tool(driver, ["-E", *args, *verbose, *deps, str(path), "-o", "-",
                                "-Wno-unused-command-line-argument"],
                       what=f"{driver}-22 could not preprocess {path}")
        _forward(pre.stderr if inv.verbose else b"")
        deps, verbose = [], []  # done by the preprocessing run
        key = cache_key(
            "irgrad-compile-1", irgrad_fingerprint(), file_identity(find_tool(driver)),
            os.getcwd(), str(path), json.dumps(args), _options_key(inv), pre.stdout,
        )
        blobs = cache.get(key)
        log.cache(blobs is not None, f"compile {path}", key)
        if blobs is not None and "object" in blobs:
            _forward(blobs.get("stderr", b""))
            check_enzyme_attributes(blobs.get("stderr", b""))
            return blobs["object"]
    with tempfile.TemporaryDirectory(prefix="irgrad-cc-") as tmp:
        out = Path(tmp) / "unit.bc"
        proc = run_tool(driver, ["-c", "-emit-llvm", *args, *verbose, *deps, str(path), "-o", str(out)],
                        what=f"{driver}-22 could not compile {path}")
        data = out.read_bytes()
    _forward(proc.stderr)
    check_enzyme_attributes(proc.stderr)
    obj = tag_module(parse_llvm(data, str(path)), inv, line_tables=True)
    if cache is not None and key is not None:
        cache.put(key, {"object": obj, "stderr": proc.stderr})
    return obj


def dependency_args(inv: Invocation, output: str | None) -> list[str]:
    """The user's -MD/-MMD/-MF/-MT/-MQ/-MP flags, completed the way clang completes them
    for ``-c -o OUTPUT`` (the depfile beside the object, the object as target)."""
    flags = list(inv.dependency_flags)
    if not flags or output is None:
        return []
    if ("-MD" in flags or "-MMD" in flags) and "-MF" not in flags:
        flags += ["-MF", str(Path(output).with_suffix(".d"))]
    if "-MT" not in flags and "-MQ" not in flags:
        flags += ["-MT", output]
    return flags


def _options_key(inv: Invocation) -> str:
    return json.dumps([inv.level, inv.debug, inv.pre_ad, inv.print_analyses, inv.explain_ad])


def tag_module(module: llvm.ModuleRef, inv: Invocation, *, line_tables: bool) -> bytes:
    """``module`` as bitcode, with irgrad's link-time flags and requests (module doc)."""
    flags = {
        "irgrad.opt_level": inv.level,
        "irgrad.user_debug": int(inv.debug),
        "irgrad.line_tables": int(line_tables and not inv.debug),
        "irgrad.no_pre_ad": int(not inv.pre_ad),
        "irgrad.explain_ad": int(inv.explain_ad),
    }
    lines = [f'target datalayout = "{module.data_layout}"', f'target triple = "{module.triple}"']
    nodes = [f'!{{i32 7, !"{name}", i32 {value}}}' for name, value in flags.items()]
    prints = [f'!{{!"{kind}", !"{_escape(fn)}"}}' for kind, fn in inv.print_analyses]
    refs = ", ".join(f"!{i}" for i in range(len(nodes)))
    lines.append(f"!llvm.module.flags = !{{{refs}}}")
    if prints:
        refs = ", ".join(f"!{len(nodes) + i}" for i in range(len(prints)))
        lines.append(f"!irgrad.print = !{{{refs}}}")
    lines += [f"!{i} = {node}" for i, node in enumerate([*nodes, *prints])]
    tags = llvm.parse_assembly("\n".join(lines) + "\n")
    module.link_in(tags)
    return module.as_bitcode()


def _escape(name: str) -> str:
    return "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}" for c in name)


def _flag_value(flags: list[str], name: str) -> str | None:
    value = None
    for i, flag in enumerate(flags[:-1]):
        if flag == name:
            value = flags[i + 1]
    return value


def _forward(stderr: bytes) -> None:
    if stderr:
        sys.stderr.buffer.write(stderr)
        sys.stderr.buffer.flush()


__all__ = ["LINE_TABLES", "compile_unit", "dependency_args", "language_flags", "tag_module"]
