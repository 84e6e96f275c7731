"""Running modules in-process with LLVM's ORC LLJIT, through ctypes.

Every :class:`JITModule` has its own LLJIT and TargetMachine. Before LLVM sees the module,
every external symbol it declares is looked up (in the module itself, in the process and in
libm / libstdc++ / extra libraries): an unresolved symbol is an LLVMError that names it,
never a silent crash at call time.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import itertools
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm

from irgrad.errors import LLVMError, SourceLocation
from irgrad.llvm.load import parse_llvm
from irgrad.llvm.target import apply_target, create_target_machine

_library_counter = itertools.count()
_CXX_PREFIXES = ("_Z", "__cxa_", "__gxx_", "__dynamic_cast")
_RUST_PREFIXES = ("_RN", "rust_", "__rust", "_ZN4core", "_ZN3std", "_ZN5alloc")


@functools.cache
def load_library(name: str) -> None:
    """Make a shared library's symbols visible to JIT-compiled code (once per process)."""
    path = name if "/" in name else ctypes.util.find_library(name.removeprefix("lib").split(".so")[0]) or name
    try:
        llvm.load_library_permanently(path)
    except RuntimeError as exc:
        raise LLVMError(f"cannot load library '{name}': {exc}") from None


def _is_cplusplus(module: llvm.ModuleRef) -> bool:
    return any(fn.name.startswith(_CXX_PREFIXES) for fn in module.functions)


def _is_rust(module: llvm.ModuleRef) -> bool:
    return any(
        fn.is_declaration and fn.name.startswith(_RUST_PREFIXES) for fn in module.functions
    )


def _is_fortran(module: llvm.ModuleRef) -> bool:
    return any(fn.is_declaration and fn.name.startswith("_Fortran") for fn in module.functions)


@functools.cache
def load_fortran_runtime() -> None:
    """Load flang's runtime (I/O, allocation, intrinsics) into the process.

    flang-22 ships it only as a static archive; it is linked once into a shared library
    in the user's cache directory (``$XDG_CACHE_HOME/irgrad``) and loaded from there.
    """
    from irgrad.errors import ToolchainError
    from irgrad.toolchain import run_tool

    runtime_dir = run_tool("clang", ["--print-runtime-dir"]).stdout.decode().strip()
    archive = Path(runtime_dir) / "libflang_rt.runtime.a"
    if not archive.is_file():
        raise ToolchainError(
            f"Fortran runtime {archive} not found: install it with `apt-get install flang-22`"
        )
    stat = archive.stat()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "irgrad"
    shared = cache / f"libflang_rt-{stat.st_size}-{stat.st_mtime_ns}.so"
    if not shared.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        partial = cache / f"{shared.name}.{os.getpid()}.tmp"
        run_tool(
            "clang",
            ["-shared", "-o", str(partial), "-Wl,--whole-archive", str(archive),
             "-Wl,--no-whole-archive", "-lstdc++", "-lm"],
            what="building a shared Fortran runtime for the JIT failed",
        )
        partial.replace(shared)
    load_library(str(shared))


def load_rust_std() -> None:
    """Load the Rust standard library (libstd-*.so from rustc's sysroot) into the process."""
    from irgrad.toolchain import rust_target_libdir

    libs = sorted(rust_target_libdir().glob("libstd-*.so"))
    if not libs:
        raise LLVMError(f"no Rust standard library (libstd-*.so) in {rust_target_libdir()}")
    load_library(str(libs[0]))


def external_symbols(module: llvm.ModuleRef) -> tuple[dict[str, int], list[str]]:
    """Addresses of the external symbols ``module`` declares, and the ones not found.

    Symbols are looked up in the process (loaded shared libraries and symbols registered
    with ``llvm.add_symbol``, e.g. numba's runtime).
    """
    found: dict[str, int] = {}
    missing: list[str] = []
    text = ""
    declared = [fn for fn in module.functions if fn.is_declaration]
    declared += [gv for gv in module.global_variables if gv.is_declaration]
    for value in declared:
        name = value.name
        if not name or name.startswith("llvm.") or value.linkage == llvm.Linkage.external_weak:
            continue
        address = llvm.address_of_symbol(name)
        if address is None:
            text = text or str(module)
            if _is_referenced(text, name):
                missing.append(name)
        else:
            found[name] = int(address)
    return found, missing


def _is_referenced(text: str, name: str) -> bool:
    """Whether ``@name`` occurs in ``text`` besides its own declaration."""
    plain = len(re.findall(rf"@{re.escape(name)}(?![\w.$-])", text))
    quoted = text.count(f'@"{name}"')
    return plain + quoted > 1


class JITModule:
    """A module compiled in memory; :meth:`get` returns ctypes callables of its functions."""

    def __init__(
        self,
        module: str | bytes | llvm.ModuleRef,
        *,
        filename: str = "<jit>",
        opt_level: int = 2,
        libraries: Sequence[str | Path] = (),
        symbols: dict[str, int] | None = None,
    ) -> None:
        if not isinstance(module, llvm.ModuleRef):
            module = parse_llvm(module, filename)
        # PIC code refers to the personality through DW.ref.* which the JIT cannot resolve
        self._tm = create_target_machine(opt_level, reloc="default", jit=True)
        apply_target(module, self._tm, force=True)
        load_library("m")
        # compiler-rt style helpers the backend may call (__powidf2 for llvm.powi, ...)
        load_library("libgcc_s.so.1")
        if _is_cplusplus(module):
            load_library("libstdc++.so.6")
        if _is_fortran(module):
            load_fortran_runtime()
        if _is_rust(module):
            load_rust_std()
        for lib in libraries:
            load_library(str(lib))
        for name, address in (symbols or {}).items():
            llvm.add_symbol(name, address)
        imports, missing = external_symbols(module)
        if missing:
            raise LLVMError(
                "unresolved external symbol(s) in JIT module: " + ", ".join(sorted(missing)),
                SourceLocation(filename),
            )
        self.filename = filename
        self.defined = {
            fn.name
            for fn in module.functions
            if not fn.is_declaration and fn.linkage == llvm.Linkage.external
        }
        self._lljit = llvm.create_lljit_compiler(self._tm, suppress_errors=True)
        self._name = f"irgrad_jit_{next(_library_counter)}"
        builder = llvm.JITLibraryBuilder().add_ir(str(module)).add_current_process()
        for name, address in imports.items():
            builder.import_symbol(name, address)
        for name in self.defined:
            builder.export_symbol(name)
        try:
            self._tracker = builder.link(self._lljit, self._name)
        except RuntimeError as exc:
            raise LLVMError(f"JIT compilation failed: {exc}", SourceLocation(filename)) from None
        self._keepalive: list[Any] = []

    def address(self, name: str) -> int:
        """The address of the exported function or global ``name``."""
        if name in self.defined:
            return int(self._tracker[name])
        try:
            tracker = self._lljit.lookup(self._name, name)
        except RuntimeError:
            raise LLVMError(
                f"no function or global named '{name}' in JIT module",
                SourceLocation(self.filename),
            ) from None
        self._keepalive.append(tracker)
        return int(tracker[name])

    def get(
        self, name: str, restype: Any = None, argtypes: Sequence[Any] = ()
    ) -> Callable[..., Any]:
        """A ctypes callable for function ``name`` with the given C signature."""
        proto = ctypes.CFUNCTYPE(restype, *argtypes)
        func = proto(self.address(name))
        # keep the JIT (and its code) alive as long as the callable
        func._irgrad_jit = self  # type: ignore[attr-defined]
        return func
