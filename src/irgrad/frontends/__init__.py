"""Front ends: source files of any supported language to ONE LLVM 22 module.

``compile_to_ir(["a.c", "b.cpp", "k.f90"])`` compiles every source with its front end
(clang-22, clang++-22, flang-22, rustc), reads the results through llvmlite (verified) and
links them into one module, returned as LLVM 22 IR text. ``for_ad=True`` asks each front end
for IR that is good input for AD (optimization level hints but no LLVM passes); irgrad's
pre-AD pipeline runs later, in :mod:`irgrad.pipeline`. Python functions come in through
numba instead: :mod:`irgrad.numba.capture`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import llvmlite.binding as llvm

from irgrad.errors import LLVMError, SourceLocation, UsageError
from irgrad.frontends.c import compile_c
from irgrad.frontends.fortran import compile_fortran
from irgrad.frontends.rust import compile_rust
from irgrad.llvm.load import parse_llvm

LANGUAGES = ("c", "c++", "fortran", "rust", "ir")

_SUFFIXES: dict[str, str] = {
    ".c": "c",
    ".i": "c",
    ".cc": "c++",
    ".cpp": "c++",
    ".cxx": "c++",
    ".c++": "c++",
    ".C": "c++",
    ".ii": "c++",
    ".f": "fortran",
    ".for": "fortran",
    ".f77": "fortran",
    ".f90": "fortran",
    ".f95": "fortran",
    ".f03": "fortran",
    ".f08": "fortran",
    ".F": "fortran",
    ".F90": "fortran",
    ".F95": "fortran",
    ".rs": "rust",
    ".ll": "ir",
    ".bc": "ir",
}


def detect_language(path: str | Path) -> str | None:
    """The language of a source file from its suffix, or None when unknown."""
    suffix = Path(path).suffix
    return _SUFFIXES.get(suffix) or _SUFFIXES.get(suffix.lower())


_TARGET_FLAGS = ("-march=", "-mcpu=", "-mtune=", "--target=", "-target", "--target")


def host_flags(language: str, flags: Sequence[str]) -> list[str]:
    """The front end's flags that compile for the machine this process runs on
    (``-march=native``; rustc: ``-C target-cpu=native``), unless ``flags`` name a target
    already. For code built and loaded in this process (the Python API's libraries): its
    primal and its derivatives use the host's instructions alike."""
    if language == "rust":
        named = any("target-cpu" in f for f in flags)
        return [] if named else ["-C", "target-cpu=native"]
    if language in ("c", "c++", "fortran"):
        return [] if any(f.startswith(_TARGET_FLAGS) for f in flags) else ["-march=native"]
    return []


def compile_source(
    source: str | Path,
    *,
    language: str | None = None,
    opt_level: int = 2,
    flags: Sequence[str] = (),
    for_ad: bool = True,
    host: bool = False,
) -> llvm.ModuleRef:
    """One source file as a verified llvmlite module (``host``: compiled for this
    machine, :func:`host_flags`)."""
    lang = language or detect_language(source)
    if lang is None:
        raise UsageError(
            f"cannot tell the language of '{source}' from its suffix (pass language=)",
            SourceLocation(str(source)),
        )
    if lang not in LANGUAGES:
        raise UsageError(f"unknown language '{lang}' (one of {', '.join(LANGUAGES)})")
    if opt_level not in (0, 1, 2, 3):
        raise UsageError(f"optimization level must be 0..3, not {opt_level}")
    if not Path(source).is_file():
        raise UsageError(f"no such file: '{source}'", SourceLocation(str(source)))
    name = str(source)
    if host:
        flags = [*flags, *host_flags(lang, flags)]
    if lang in ("c", "c++"):
        data = compile_c(
            source, cplusplus=lang == "c++", opt_level=opt_level, flags=flags, for_ad=for_ad
        )
    elif lang == "fortran":
        data = compile_fortran(source, opt_level=opt_level, flags=flags, for_ad=for_ad)
    elif lang == "rust":
        data = compile_rust(source, opt_level=opt_level, flags=flags, for_ad=for_ad)
    else:
        data = Path(source).read_bytes()
    return parse_llvm(data, name)


# Enzyme's registrations are per translation unit (Enzyme reads them before LTO links
# the units): two units may each register a static function under the same name
_REGISTRATION_PREFIXES = ("__enzyme_register_", "__enzyme_inactivefn",
                          "__enzyme_inactivenoblockfn", "__enzyme_inactive_global",
                          "__enzyme_function_like", "__enzyme_allocation_like")


def _distinct_registrations(modules: Sequence[llvm.ModuleRef]) -> None:
    """Rename a registration a unit defines under a name an earlier unit defined too
    (``__enzyme_register_derivative_f.1``): each still names its own unit's functions."""
    seen: set[str] = set()
    for k, m in enumerate(modules):
        for gv in m.global_variables:
            name = gv.name
            if not name.startswith(_REGISTRATION_PREFIXES) or gv.is_declaration:
                continue
            if name in seen:
                gv.name = f"{name}.unit{k}"
            seen.add(name)


def link_modules(modules: Sequence[llvm.ModuleRef], filename: str = "<linked>") -> llvm.ModuleRef:
    """Link verified modules into the first one (the others are consumed). Each
    module's registrations stay its own: linked, they keep their names up to a suffix."""
    if not modules:
        raise UsageError("no input modules to link")
    _distinct_registrations(modules)
    dest = modules[0]
    for other in modules[1:]:
        try:
            dest.link_in(other)
        except RuntimeError as exc:
            raise LLVMError(f"linking modules failed: {exc}", SourceLocation(filename)) from None
    if len(modules) > 1:
        try:
            dest.verify()
        except RuntimeError as exc:
            raise LLVMError(f"LLVM verifier (after linking): {exc}", SourceLocation(filename)) from None
    return dest


def compile_to_ir(
    sources: Sequence[str | Path] | str | Path,
    *,
    language: str | None = None,
    opt_level: int = 2,
    flags: Sequence[str] = (),
    for_ad: bool = True,
    host: bool = False,
) -> str:
    """LLVM 22 IR text of one module made from all ``sources`` (linked together)."""
    if isinstance(sources, str | Path):
        sources = [sources]
    modules = [
        compile_source(s, language=language, opt_level=opt_level, flags=flags, for_ad=for_ad,
                       host=host)
        for s in sources
    ]
    return str(link_modules(modules))


__all__ = ["LANGUAGES", "compile_source", "compile_to_ir", "detect_language", "host_flags",
           "link_modules"]
