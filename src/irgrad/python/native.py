"""From IR text to a loaded shared library, for the Python API.

``build_shared`` runs irgrad's pipeline (pre-AD optimization, lowering of ``__enzyme_*``
calls, post-AD optimization), emits a position-independent object and links it with
``clang-22 -shared -Wl,-Bsymbolic`` (each library keeps its own copy of the user's
functions; symbols of different libraries never interpose). ``load_shared`` preloads the
language runtimes the library needs (the Fortran runtime is only a static archive, so
irgrad's JIT support builds a shared copy once) and dlopens it with ctypes.
"""

from __future__ import annotations

import ctypes
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from irgrad.errors import LLVMError

if TYPE_CHECKING:  # llvmlite is imported only to build (loading from the cache is cheap)
    import llvmlite.binding as llvm

_CXX_PREFIXES = ("_Z", "__cxa_", "__gxx_")
_RUST_PREFIXES = ("_RN", "rust_", "__rust", "_ZN4core", "_ZN3std", "_ZN5alloc")


def runtimes_of(module: llvm.ModuleRef, language: str) -> list[str]:
    """Runtimes (``c++``, ``fortran``, ``rust``) the module's external references need."""
    declared = [fn.name for fn in module.functions if fn.is_declaration]
    found: set[str] = set()
    if language == "rust" or any(n.startswith(_RUST_PREFIXES) for n in declared):
        found.add("rust")
    if language == "fortran" or any(n.startswith("_Fortran") for n in declared):
        found.add("fortran")
    if language == "c++" or any(n.startswith(_CXX_PREFIXES) for n in declared):
        found.add("c++")
    return sorted(found)


def build_shared(
    text: str,
    output: Path,
    *,
    filename: str,
    opt_level: int,
    runtimes: list[str],
    soname: str | None = None,
    link_with: list[Path] | None = None,
) -> Path:
    """Compile IR ``text`` through the pipeline into the shared library ``output``.

    ``soname`` names the library for the dynamic loader; ``link_with`` are libraries it
    needs (found next to it at run time: rpath ``$ORIGIN``).
    """
    from irgrad.llvm.load import parse_llvm
    from irgrad.llvm.objects import LinkOptions, emit_object, link
    from irgrad.pipeline import PipelineOptions, run_pipeline

    needs_ad = "__enzyme_" in text
    options = PipelineOptions(opt_level=opt_level, through_ir_model=needs_ad)
    module = run_pipeline(parse_llvm(text, filename), filename=filename, options=options)
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="irgrad-so-", dir=output.parent) as tmp:
        obj = Path(tmp) / "module.o"
        emit_object(module, obj, opt_level=opt_level)
        built = Path(tmp) / output.name
        inputs: list[str | Path] = [obj, *(link_with or [])]
        rpaths: list[str] = ["$ORIGIN"] if link_with else []
        flags = ["-Wl,-Bsymbolic"] + ([f"-Wl,-soname,{soname}"] if soname else [])
        if "fortran" in runtimes:  # flang's runtime as a shared library, found by rpath
            runtime = fortran_runtime()
            inputs.append(runtime)
            rpaths.append(str(runtime.parent))
        link(
            inputs,
            built,
            LinkOptions(
                shared=True,
                cplusplus="c++" in runtimes,
                rust="rust" in runtimes,
                extra_flags=flags,
                rpaths=rpaths,
            ),
        )
        os.replace(built, output)
    return output


def fortran_runtime() -> Path:
    """The shared copy of flang's runtime that irgrad's JIT support builds (once)."""
    from irgrad.llvm import jit

    jit.load_fortran_runtime()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "irgrad"
    found = sorted(cache.glob("libflang_rt-*.so"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise LLVMError(f"the shared Fortran runtime was not found in {cache}")
    return found[-1]


def load_shared(path: Path) -> ctypes.CDLL:
    """dlopen a library built by :func:`build_shared` (its runtimes are DT_NEEDED)."""
    try:
        return ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
    except OSError as exc:
        raise LLVMError(
            f"loading the compiled library failed: {exc} (every function the code calls "
            "must be defined in the sources or in a library loaded into the process)"
        ) from None


__all__ = ["build_shared", "load_shared", "runtimes_of"]
