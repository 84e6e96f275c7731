"""The link step of ``irgrad cc``: link-time AD, like Enzyme's LTO plugin.

Every bitcode object and every archive member a linker would take
(:mod:`irgrad.frontends.lto_inputs`) is linked into one module; the pipeline
(:func:`irgrad.pipeline.run_pipeline`: pre-AD, lowering of the ``__enzyme_*`` calls,
optimization) runs on it, native code is emitted, and the system linker links that
object with the native inputs, unchanged. The native object is cached (the link cache),
keyed by the bitcode that went in and the options, so relinking unchanged bitcode only
runs the system linker.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import llvmlite.binding as llvm

from irgrad.build_cache import BuildCache, cache_key, irgrad_fingerprint
from irgrad.errors import DifferentiationError, ToolchainError
from irgrad.frontends import link_modules
from irgrad.frontends.build_log import BuildLog
from irgrad.frontends.cc_args import Invocation
from irgrad.frontends.compile_step import compile_unit
from irgrad.frontends.lto_inputs import (
    LTO_OBJECT,
    BitcodeUnit,
    Item,
    LinkPlan,
    classify_file,
    find_library,
    make_temp_dir,
    plan_link,
)
from irgrad.frontends.rust import rust_native_hint
from irgrad.frontends.sanitizers import instrumented_object, needs_instrumentation
from irgrad.llvm.debug_info import has_debug_info, module_flag, strip_debug_info
from irgrad.llvm.load import parse_llvm
from irgrad.llvm.objects import LinkOptions, emit_object, link_process
from irgrad.llvm.symbols import file_symbols
from irgrad.pipeline import PipelineOptions, explain_text, run_pipeline
from irgrad.toolchain import run_tool

_REBUILD_HINT = (
    "rebuild it with LLVM bitcode: `irgrad cc -c` (or `clang-22 -flto -c`, "
    "`flang-22 -flto -c`, rustc `-C linker-plugin-lto`)"
)
_PRINT_NODE_RE = re.compile(r'^!(\d+) = !\{!"(activity|type)", !"((?:[^"\\]|\\.)*)"\}$', re.M)
_PRINT_LIST_RE = re.compile(r"^!irgrad\.print = !\{([^}]*)\}$", re.M)
_LANGUAGE_SYMBOLS = {
    "fortran": ("_FortranA", "_QQmain"),
    "c++": ("__gxx_personality_v0", "_ZSt", "_ZNSt", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv",
            "__cxa_"),
    "rust": ("rust_eh_personality", "_ZN3std", "_RNvCs"),
}


def run_link(inv: Invocation, log: BuildLog, cache: BuildCache | None) -> int:
    """Compile the sources, resolve the inputs, differentiate, link; returns 0."""
    output = inv.output or "a.out"
    with make_temp_dir() as tmp_name:
        tmp = Path(tmp_name)
        items = _items(inv, log, cache, tmp)
        with log.stage("resolve symbols"):
            plan = plan_link(items, shared=inv.shared, tmp=tmp)
        args = list(plan.system_args)
        if plan.units:
            obj = tmp / "irgrad-lto.o"
            obj.write_bytes(_lto_object(plan, inv, log, cache, output))
            args = [str(obj) if a == LTO_OBJECT else a for a in args]
        langs = _languages(plan.undefined)
        options = LinkOptions(
            fortran=inv.personality == "fortran" or "fortran" in langs,
            cplusplus=inv.personality == "c++" or "c++" in langs,
            rust="rust" in langs,
            use_lld=inv.use_lld,
            shared=inv.shared,
            debug=inv.debug,
            verbose=inv.verbose,
            extra_flags=list(inv.sanitize_flags),  # clang links the sanitizer runtimes
        )
        with log.stage(f"system link {output}"):
            proc = link_process(args, output, options)
        if proc.stderr:
            sys.stderr.buffer.write(proc.stderr)
            sys.stderr.buffer.flush()
    return 0


def _items(inv: Invocation, log: BuildLog, cache: BuildCache | None, tmp: Path) -> list[Item]:
    items: list[Item] = []
    for n, entry in enumerate(inv.inputs):
        if entry.kind == "source":
            path = Path(entry.value)
            data = compile_unit(path, entry.language or "c", inv, log, cache, output=None)
            unit_file = tmp / f"unit{n}.o"
            unit_file.write_bytes(data)
            items.append(Item("bitcode", entry.value,
                              unit=BitcodeUnit(entry.value, data, file_symbols(unit_file))))
        elif entry.kind == "file":
            items.append(classify_file(entry.value))
        elif entry.kind == "library":
            found = find_library(entry.value, inv.library_dirs, inv.static)
            if found is None:
                items.append(Item("flag", f"-l{entry.value}"))
            else:
                item = classify_file(str(found))
                item.arg = f"-l{entry.value}"
                if item.archive is not None:
                    item.archive.arg = item.arg
                items.append(item)
        else:
            items.append(Item("flag", entry.value))
    return items


def _lto_object(
    plan: LinkPlan, inv: Invocation, log: BuildLog, cache: BuildCache | None, output: str
) -> bytes:
    """The native object of all chosen bitcode, differentiated (through the link cache)."""
    key = None
    if cache is not None and not inv.print_analyses and not inv.explain_ad:
        digests = [hashlib.sha256(u.data).hexdigest() for u in plan.units]
        key = cache_key(
            "irgrad-lto-1", irgrad_fingerprint(), llvm.get_host_cpu_name(),
            llvm.get_host_cpu_features().flatten(),
            json.dumps([inv.opt_level, inv.pre_ad, inv.debug, inv.shared, digests,
                        inv.sanitize_flags]),
        )
        blobs = cache.get(key)
        log.cache(blobs is not None, f"link {output} ({len(plan.units)} bitcode objects)", key)
        if blobs is not None and "object" in blobs:
            if "explain" in blobs:  # objects compiled with --explain-ad: the same report
                sys.stderr.write(blobs["explain"].decode())
                sys.stderr.flush()
            return blobs["object"]
    names = [u.name for u in plan.units]
    log.note(f"link-time AD over: {' '.join(names)}")
    with log.stage("link bitcode"):
        modules = [parse_llvm(u.data, u.name) for u in plan.units]
        name = names[0] if len(names) == 1 else f"<link of {output}>"
        module = link_modules(modules, name)
    text = str(module)
    level = inv.opt_level if inv.opt_level is not None else module_flag(text, "irgrad.opt_level")
    level = 2 if level is None else level
    no_pre_ad = not inv.pre_ad or module_flag(text, "irgrad.no_pre_ad") == 1
    strip = not inv.debug and _only_internal_debug_info(plan.units, text)
    prints = _print_requests(text, inv.print_analyses)
    explain = inv.explain_ad or module_flag(text, "irgrad.explain_ad") == 1
    declared = [f.name for f in module.functions if f.is_declaration]
    log.note(f"link options: -O{level}{' --no-pre-ad' if no_pre_ad else ''}"
             f"{' (line tables stripped after AD)' if strip else ''}")
    reports: list[str] = []  # kept with the cached object, replayed on a cache hit

    def report_sink(report: object) -> None:
        reports.append(explain_text(report) + "\n")
        print(reports[-1], end="", file=sys.stderr, flush=True)

    options = PipelineOptions(
        opt_level=level, pre_ad=not no_pre_ad, print_analyses=tuple(prints),
        analysis_sink=lambda s: print(s, file=sys.stdout, flush=True),
        explain_sink=report_sink if explain else None,
    )
    with log.stage("pipeline (pre-AD, AD, optimize)"):
        try:
            module = run_pipeline(module, filename=name, options=options)
        except DifferentiationError as err:
            raise _with_native_origin(err, declared, plan) from None
    if strip:
        with log.stage("strip irgrad's line tables"):
            module = strip_debug_info(module, name)
    if needs_instrumentation(inv.sanitizers):
        with log.stage(f"code generation with -fsanitize={','.join(inv.sanitizers)}"):
            obj = instrumented_object(module, inv.sanitize_flags, inv.sanitizers, level, name)
    else:
        with log.stage("code generation"):
            obj = emit_object(module, opt_level=level)
    if cache is not None and key is not None:
        cache.put(key, {"object": obj, **({"explain": "".join(reports).encode()}
                                          if reports else {})})
    return obj


def _only_internal_debug_info(units: list[BitcodeUnit], text: str) -> bool:
    """True when the debug info in the linked module is only what irgrad added: every unit
    is an irgrad object and none was compiled with -g."""
    if module_flag(text, "irgrad.user_debug") != 0 or not has_debug_info(text):
        return False
    return all(b"irgrad.opt_level" in u.data for u in units)


def _print_requests(text: str, given: list[tuple[str, str]]) -> list[tuple[str, str]]:
    requests = list(given)
    listed = _PRINT_LIST_RE.search(text)
    if listed is not None:
        wanted = {ref.strip().lstrip("!") for ref in listed.group(1).split(",")}
        for m in _PRINT_NODE_RE.finditer(text):
            if m.group(1) in wanted:
                requests.append((m.group(2), m.group(3)))
    unique: list[tuple[str, str]] = []
    for request in requests:
        if request not in unique:
            unique.append(request)
    return unique


def _with_native_origin(
    err: DifferentiationError, declared: list[str], plan: LinkPlan
) -> DifferentiationError:
    """``err`` plus where each function it names is defined without LLVM IR. A function
    that no input defines is noted only when the native libraries of the link (the C
    library, the ``-l`` libraries found in the system's folders, a language's runtime) do
    not define it either; ``__enzyme_*`` entry points are never noted."""
    named = [symbol for symbol in declared
             if re.search(rf"(?<![\w.$]){re.escape(symbol)}(?![\w.$])", err.message)]
    unresolved = [s for s in named if s not in plan.native_definitions
                  and s in plan.undefined and not s.startswith("__enzyme_")]
    provided = _natively_provided(unresolved, plan) if unresolved else set()
    notes = []
    for symbol in named:
        origin = plan.native_definitions.get(symbol)
        if origin is not None:
            hint = rust_native_hint(symbol) or _REBUILD_HINT
            notes.append(f"'{symbol}' is defined only as native code, in {origin}, which has "
                         f"no LLVM IR to differentiate: {hint}")
        elif symbol in unresolved and symbol not in provided:
            notes.append(f"no input of this link defines '{symbol}'")
    if not notes:
        return err
    return DifferentiationError(err.message + "\nnote: " + "\nnote: ".join(notes), err.location)


def _natively_provided(symbols: list[str], plan: LinkPlan) -> set[str]:
    """Those of ``symbols`` that a library the system linker adds defines: a language
    runtime's (flang's ``_FortranA*``, libstdc++'s), or one the C library, ``libm`` (for
    C++ and Fortran) or a ``-lNAME`` not found in the ``-L`` folders exports."""
    langs = _languages(plan.undefined)
    runtime = tuple(p for lang in langs for p in _LANGUAGE_SYMBOLS[lang])
    provided = {s for s in symbols if s.startswith(runtime)} if runtime else set()
    rest = set(symbols) - provided
    if not rest:
        return provided
    names = ["c", *(["m"] if langs & {"c++", "fortran"} else []),
             *(["stdc++"] if "c++" in langs else []),
             *(["omp"] if "-fopenmp" in plan.system_args else []),  # __kmpc_*, omp_*
             *(a[2:] for a in plan.system_args if a.startswith("-l") and len(a) > 2)]
    try:
        folders = _system_library_folders()
        for name in dict.fromkeys(names):
            for path in _library_files(name, folders):
                table = file_symbols(path, dynamic=_is_shared(path))
                rest -= {d.partition("@")[0] for d in table.defined}  # gamma@@GLIBC_2.2.5
                if not rest:
                    break
    except (OSError, ToolchainError):  # only a note is at stake
        pass
    return provided | (set(symbols) - rest)


def _system_library_folders() -> list[Path]:
    """The folders the system linker searches for ``-lNAME`` (clang's ``libraries:``)."""
    proc = run_tool("clang", ["-print-search-dirs"])
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("libraries: ="):
            return [Path(p) for p in line.removeprefix("libraries: =").split(":") if p]
    return []


def _library_files(name: str, folders: list[Path]) -> list[Path]:
    """The files ``-lNAME`` stands for: the shared library (else the archive) in the
    first folder that has one; a linker script (glibc's ``libc.so``) by the files it
    names."""
    for folder in folders:
        for candidate in (f"lib{name}.so", f"lib{name}.a"):
            path = folder / candidate
            if not path.is_file():
                continue
            with path.open("rb") as f:
                head = f.read(8)
            if head.startswith(b"\x7fELF") or head.startswith(b"!<arch>"):
                return [path]
            script = path.read_text("utf-8", "replace")
            return [Path(p) for p in re.findall(r"(/[^\s()]+)", script) if Path(p).is_file()]
    return []


def _is_shared(path: Path) -> bool:
    return ".so" in path.name and not path.name.endswith(".a")


def _languages(undefined: set[str]) -> set[str]:
    """Language runtimes the program still needs, from its undefined symbols."""
    return {lang for lang, prefixes in _LANGUAGE_SYMBOLS.items()
            if any(s.startswith(prefixes) for s in undefined)}


__all__ = ["run_link"]
