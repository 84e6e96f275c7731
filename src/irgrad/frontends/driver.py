"""``irgrad cc``: a clang-compatible compiler driver that runs irgrad's pipeline.

Sources (C, C++, Fortran, Rust, .ll/.bc) are compiled to IR good for AD, sent through
:func:`irgrad.pipeline.run_pipeline` (where ``__enzyme_*`` calls are lowered) and turned
into an object file; without ``-c`` every source goes into ONE module (so derivatives can
cross translation units), which is linked with the other inputs (.o, .a, .so, -l...) by
``clang-22`` (``flang-22`` when Fortran is involved). Unknown flags go to clang.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import llvmlite.binding as llvm

from irgrad.errors import UsageError
from irgrad.frontends import compile_source, detect_language, link_modules
from irgrad.llvm.objects import LinkOptions, emit_assembly, emit_object, link
from irgrad.pipeline import PipelineOptions, run_pipeline
from irgrad.toolchain import enzyme_include_dir

# flags whose value is the next argument (when not glued: -I dir / -Idir)
_COMPILE_WITH_VALUE = {"-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter",
                       "-Xclang", "-mllvm", "-MF", "-MT", "-MQ", "-target"}
_PREPROCESSOR = ("-I", "-D", "-U")
_LINK_ONLY_PREFIXES = ("-Wl,", "-fuse-ld=", "-rdynamic", "-static", "-shared", "-pie",
                       "-no-pie", "-nostdlib", "-nodefaultlibs")
_X_LANGUAGES = {"c": "c", "c++": "c++", "f95": "fortran", "f77": "fortran",
                "fortran": "fortran", "ir": "ir", "rust": "rust"}
_LINK_INPUT_SUFFIXES = (".o", ".a", ".so", ".obj")


@dataclass
class Invocation:
    """A parsed ``irgrad cc`` command line."""

    sources: list[tuple[Path, str]] = field(default_factory=list)  # (path, language)
    link_inputs: list[str] = field(default_factory=list)
    output: str | None = None
    compile_only: bool = False  # -c
    assembly: bool = False  # -S
    emit_llvm: bool = False
    opt_level: int = 0
    debug: bool = False
    compile_flags: list[str] = field(default_factory=list)  # to clang (C/C++)
    preprocessor_flags: list[str] = field(default_factory=list)  # also to flang
    libraries: list[str] = field(default_factory=list)
    library_dirs: list[str] = field(default_factory=list)
    link_flags: list[str] = field(default_factory=list)
    use_lld: bool = False
    shared: bool = False
    pre_ad: bool = True


def _opt_level(flag: str) -> int:
    level = flag[2:]
    if level in ("", "1", "g"):
        return 1
    if level in ("0", "2", "3"):
        return int(level)
    if level in ("s", "z"):
        return 2
    if level == "fast":
        return 3
    raise UsageError(f"invalid optimization level '{flag}'")


def parse_cc_args(argv: Sequence[str]) -> Invocation:
    """Parse clang-style arguments into an :class:`Invocation`."""
    inv = Invocation()
    language: str | None = None
    it = iter(argv)
    for arg in it:
        if arg == "-o":
            inv.output = _value(it, arg)
        elif arg.startswith("-o") and len(arg) > 2:
            inv.output = arg[2:]
        elif arg == "-c":
            inv.compile_only = True
        elif arg == "-S":
            inv.assembly = True
        elif arg in ("-emit-llvm", "-flto"):
            inv.emit_llvm = True
        elif arg.startswith("-O"):
            inv.opt_level = _opt_level(arg)
            if arg == "-Ofast":
                inv.compile_flags.append("-ffast-math")
        elif arg == "-g" or arg.startswith("-g"):
            inv.debug = True
            inv.compile_flags.append(arg)
        elif arg == "-x":
            lang = _value(it, arg)
            language = None if lang == "none" else _X_LANGUAGES.get(lang)
            if lang != "none" and language is None:
                raise UsageError(f"language '{lang}' not supported by irgrad cc")
        elif arg == "-L" or arg.startswith("-L"):
            inv.library_dirs.append(arg[2:] or _value(it, arg))
        elif arg == "-l" or arg.startswith("-l"):
            inv.libraries.append(arg[2:] or _value(it, arg))
        elif arg == "-Xlinker":
            inv.link_flags += ["-Xlinker", _value(it, arg)]
        elif arg == "-fuse-ld=lld":
            inv.use_lld = True
        elif arg == "-shared":
            inv.shared = True
        elif arg == "--irgrad-no-pre-ad":
            inv.pre_ad = False
        elif arg.startswith(_LINK_ONLY_PREFIXES):
            inv.link_flags.append(arg)
        elif arg in ("-pthread", "-fopenmp"):
            inv.compile_flags.append(arg)
            inv.link_flags.append(arg)
        elif arg.startswith(_PREPROCESSOR):
            value = arg if len(arg) > 2 else arg + _value(it, arg)
            inv.preprocessor_flags.append(value)
        elif arg in _COMPILE_WITH_VALUE:
            inv.compile_flags += [arg, _value(it, arg)]
        elif arg.startswith("-") and arg != "-":
            inv.compile_flags.append(arg)
        else:
            _add_input(inv, arg, language)
    if not inv.sources and not inv.link_inputs:
        raise UsageError("no input files")
    return inv


def _value(it: Iterator[str], flag: str) -> str:
    try:
        return next(it)
    except StopIteration:
        raise UsageError(f"argument to '{flag}' is missing (expected 1 value)") from None


def _add_input(inv: Invocation, arg: str, language: str | None) -> None:
    path = Path(arg)
    if (language is None and arg.endswith(_LINK_INPUT_SUFFIXES)) or ".so." in path.name:
        inv.link_inputs.append(arg)
        return
    lang = language or detect_language(path)
    if lang is None:
        raise UsageError(f"cannot tell the language of input '{arg}' (use -x)")
    if not path.is_file():
        raise UsageError(f"no such file or directory: '{arg}'")
    inv.sources.append((path, lang))


def _flags_for(inv: Invocation, lang: str) -> list[str]:
    if lang in ("c", "c++"):
        enzyme = enzyme_include_dir()
        # after the user's directories: #include <enzyme/enzyme.h> works unchanged
        fallback = ["-idirafter", str(enzyme)] if enzyme is not None else []
        return [*inv.preprocessor_flags, *inv.compile_flags, *fallback]
    if lang == "fortran":
        return [*inv.preprocessor_flags, *(["-g"] if inv.debug else [])]
    return []


def _compile(inv: Invocation, sources: Sequence[tuple[Path, str]]) -> llvm.ModuleRef:
    modules = [
        compile_source(
            path,
            language=lang,
            opt_level=max(inv.opt_level, 0),
            flags=_flags_for(inv, lang),
            for_ad=True,
        )
        for path, lang in sources
    ]
    name = str(sources[0][0]) if len(sources) == 1 else "<linked>"
    module = link_modules(modules, name)
    options = PipelineOptions(opt_level=inv.opt_level, pre_ad=inv.pre_ad)
    return run_pipeline(module, filename=name, options=options)


def _write(module: llvm.ModuleRef, inv: Invocation, out: str) -> None:
    if inv.emit_llvm:
        data: bytes = str(module).encode() if inv.assembly else module.as_bitcode()
    elif inv.assembly:
        data = emit_assembly(module, opt_level=inv.opt_level).encode()
    else:
        data = emit_object(module, opt_level=inv.opt_level)
    if out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        Path(out).write_bytes(data)


def _suffix(inv: Invocation) -> str:
    if inv.emit_llvm:
        return ".ll" if inv.assembly else ".bc"
    return ".s" if inv.assembly else ".o"


_OBJECT_MARKERS = {
    "fortran": (b"_FortranA", b"_QQmain"),
    "c++": (b"__gxx_personality_v0", b"_ZSt", b"_ZNSt"),
    "rust": (b"rust_eh_personality", b"_ZN3std", b"_RNv"),
}


def _object_languages(inputs: Sequence[str]) -> set[str]:
    """Languages whose runtime a link input (.o/.a) needs, guessed from its symbol names."""
    langs: set[str] = set()
    for name in inputs:
        path = Path(name)
        if path.suffix not in (".o", ".obj") or not path.is_file():
            continue
        data = path.read_bytes()
        langs |= {lang for lang, marks in _OBJECT_MARKERS.items() if any(m in data for m in marks)}
    return langs


def run_cc(argv: Sequence[str]) -> int:
    """Run ``irgrad cc`` with clang-style arguments; returns the exit status."""
    inv = parse_cc_args(argv)
    if inv.compile_only or inv.assembly:
        if not inv.sources:
            raise UsageError("no source files to compile")
        if inv.output is not None and len(inv.sources) > 1:
            raise UsageError("cannot specify -o when generating multiple output files")
        for path, lang in inv.sources:
            module = _compile(inv, [(path, lang)])
            _write(module, inv, inv.output or path.with_suffix(_suffix(inv)).name)
        return 0
    if inv.emit_llvm:
        raise UsageError("-emit-llvm needs -c or -S")
    output = inv.output or "a.out"
    langs = {lang for _, lang in inv.sources} | _object_languages(inv.link_inputs)
    with tempfile.TemporaryDirectory(prefix="irgrad-cc-") as tmp:
        objects: list[str] = []
        if inv.sources:
            module = _compile(inv, inv.sources)
            obj = Path(tmp) / "irgrad-module.o"
            emit_object(module, obj, opt_level=inv.opt_level)
            objects.append(str(obj))
        options = LinkOptions(
            libraries=inv.libraries,
            library_dirs=inv.library_dirs,
            extra_flags=inv.link_flags,
            fortran="fortran" in langs,
            cplusplus="c++" in langs,
            rust="rust" in langs,
            use_lld=inv.use_lld,
            shared=inv.shared,
            debug=inv.debug,
        )
        link([*objects, *inv.link_inputs], output, options)
    return 0
