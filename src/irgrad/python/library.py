"""``irgrad.compile``: foreign code as a Python library with derivatives.

    lib = irgrad.compile(source=C_CODE, language="c", opt_level=2)
    lib["f"](x, n)                                   # primal call on NumPy arrays
    lib.autodiff("f", Duplicated(x, dx), Const(n))   # reverse mode, dx += df/dx
    lib.fwddiff("f", Duplicated(x, tx), Const(n))    # forward mode, returns the tangent
    lib.gradient("f", wrt=0)(x, n)                   # a new array df/dx

Each derivative is synthesized once per (function, mode, activity pattern) by appending a
wrapper that calls ``__enzyme_autodiff``/``__enzyme_fwddiff`` (:mod:`irgrad.python.wrappers`) to
the front end's module and compiling it through irgrad's pipeline into a shared library;
everything compiled is cached on disk (:mod:`irgrad.python.disk_cache`).
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from irgrad.errors import UsageError
from irgrad.python import derivatives
from irgrad.python.callables import Derivative, Function, WrapperCall, ctype_of
from irgrad.python.disk_cache import LibraryCache, Workspace, default_cache_dir, source_key
from irgrad.python.extents import infer_extents, parse_user_extents
from irgrad.python.native import build_shared, load_shared, runtimes_of
from irgrad.python.shared_globals import derivative_module, export_globals
from irgrad.python.signature import Signature, read_signatures, signature_from_argtypes
from irgrad.python.wrappers import DerivativeRequest, build_wrapper

LANGUAGE_ALIASES = {
    "c": "c", "c++": "c++", "cpp": "c++", "cxx": "c++", "fortran": "fortran",
    "f90": "fortran", "rust": "rust", "ll": "ll", "ir": "ll", "llvm": "ll",
}  # fmt: skip
_SUFFIX = {"c": ".c", "c++": ".cpp", "fortran": ".f90", "rust": ".rs", "ll": ".ll"}


class Library:
    """Functions compiled from C, C++, Fortran, Rust or LLVM IR, with their derivatives."""

    def __init__(
        self, meta: dict[str, Any], files: dict[str, bytes], *, cache: LibraryCache,
        key: str, workspace: Workspace, cache_hit: bool,
    ) -> None:
        self.cache = cache
        self.key = key  # the library key (see irgrad.python.disk_cache)
        self.workspace = workspace
        self._module_text = files["module.ll"].decode()
        workspace.write(meta["primal"], files["primal"])
        self.language: str = meta["language"]
        self.opt_level: int = meta["opt_level"]
        self.runtimes: list[str] = meta["runtimes"]
        self.primal_file: str = meta["primal"]
        self.shared_globals: list[tuple[str, str]] = [tuple(g) for g in meta["shared_globals"]]  # type: ignore[misc]
        self.internal: list[str] = meta.get("internal", [])  # static functions (not callable)
        self.cache_hit = cache_hit  # True when compile() found everything on disk
        self.signatures: dict[str, Signature] = {
            s["symbol"]: Signature.from_json(s) for s in meta["signatures"]
        }
        self._primal: ctypes.CDLL | None = None
        self._functions: dict[str, Function] = {}
        self._derivatives: dict[DerivativeRequest, Derivative] = {}
        self._lock = threading.RLock()
        self.derivatives_built = 0  # derivatives compiled (not loaded from the cache)

    # --- functions ---------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """Symbols of the functions callable from Python."""
        return sorted(self.signatures)

    def resolve(self, name: str) -> str:
        """The symbol of ``name``: itself, or a source name (C++, Fortran's ``name_``)."""
        if name in self.signatures:
            return name
        by_source = [s for s, sig in self.signatures.items() if sig.name == name]
        if len(by_source) == 1:
            return by_source[0]
        if f"{name}_" in self.signatures:
            return f"{name}_"
        if len(by_source) > 1:
            raise UsageError(f"'{name}' is ambiguous: use one of {', '.join(by_source)}")
        if name in self.internal:
            raise UsageError(f"'{name}' has internal linkage (static): it is not exported; "
                             "remove 'static' or call it through an exported function")  # fmt: skip
        shown = ", ".join(self.names[:20]) or "none"
        raise UsageError(f"no function '{name}' in the library (functions: {shown})")

    def function(
        self, name: str, argtypes: Sequence[Any] | None = None, restype: Any = None,
        extents: str | Mapping[str, str] | None = None,
    ) -> Function:
        """The function ``name``; ``argtypes`` (e.g. ``["double*", "int"]``) overrides
        the signature read from debug info, also for its derivatives; ``extents``
        (``"x[n], A[n*m]"``) states how many elements of each array it may access
        (:mod:`irgrad.python.extents`; by default what the code analysis found)."""
        symbol = self.resolve(name)
        with self._lock:
            if argtypes is not None or restype is not None:
                base = self.signatures[symbol]
                types = None if argtypes is None else list(argtypes)
                self.signatures[symbol] = signature_from_argtypes(symbol, base, types, restype)
                self._functions.pop(symbol, None)
            if extents is not None:
                self.signatures[symbol] = _with_user_extents(self.signatures[symbol], extents)
                self._functions.pop(symbol, None)
            if symbol not in self._functions:
                address = ctypes.cast(self._load_primal()[symbol], ctypes.c_void_p).value
                assert address is not None
                self._functions[symbol] = Function(self.signatures[symbol], address, self)
            return self._functions[symbol]

    def __getitem__(self, name: str) -> Function:
        return self.function(name)

    def __getattr__(self, name: str) -> Function:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.function(name)
        except UsageError as exc:
            raise AttributeError(str(exc)) from None

    def __dir__(self) -> list[str]:
        names = {n for s, sig in self.signatures.items() for n in (s, sig.name)}
        return sorted(set(super().__dir__()) | {n for n in names if n.isidentifier()})

    def __contains__(self, name: object) -> bool:
        try:
            return isinstance(name, str) and bool(self.resolve(name))
        except UsageError:
            return False

    def signature(self, name: str | Function) -> Signature:
        if isinstance(name, Function):
            return name.signature
        return self.signatures[self.resolve(name)]

    def _load_primal(self) -> ctypes.CDLL:
        if self._primal is None:
            self._primal = load_shared(self.workspace.file(self.primal_file))
        return self._primal

    # --- derivatives ---------------------------------------------------------------------

    def derivative(self, request: DerivativeRequest) -> Derivative:
        """The compiled wrapper for ``request`` (built once; cached on disk)."""
        found = self._derivatives.get(request)
        if found is not None:
            return found
        with self._lock:
            if request in self._derivatives:
                return self._derivatives[request]
            sig = self.signatures[request.symbol]
            name = f"d-{request.key}"
            text, layout = build_wrapper(sig, request)
            so_path = self.workspace.file(f"{name}.so")
            found = self.cache.find_derivative(self.key, request.key)
            if found is not None and "library" in found:
                self.workspace.write(f"{name}.so", found["library"])
            else:
                filename = f"{sig.name} ({request.mode} derivative)"
                module_text = derivative_module(self._module_text, self.shared_globals,
                                                filename)
                build_shared(
                    module_text + "\n" + text,
                    so_path,
                    filename=filename,
                    opt_level=self.opt_level,
                    runtimes=self.runtimes,
                    link_with=[self.workspace.file(self.primal_file)],
                )
                self.cache.put_derivative(self.key, request.key,
                                          {"library": so_path.read_bytes()})
                self.derivatives_built += 1
            self._load_primal()  # loaded first: the derivative binds to its globals
            handle = load_shared(so_path)
            argtypes = []
            for role, index in layout.params:
                if role in ("primal", "shadow"):
                    arg = sig.args[index]
                    argtypes.append(ctype_of(arg.ir_type, arg.dtype))
                elif role == "seed":
                    argtypes.append(ctype_of(sig.ret_ir_type, sig.ret_dtype))
                else:
                    argtypes.append(ctypes.c_void_p)
            address = ctypes.cast(handle[layout.symbol], ctypes.c_void_p).value
            assert address is not None
            derivative = Derivative(layout, WrapperCall(argtypes, address, (self, handle)))
            self._derivatives[request] = derivative
            return derivative

    def autodiff(self, name: str | Function, *args: Any, seed: float = 1.0,
                 return_primal: bool = False, **kwargs: Any) -> Any:  # fmt: skip
        """Reverse mode (Enzyme's ``__enzyme_autodiff``); arguments by position or by
        parameter name; see :mod:`irgrad.python.derivatives`."""
        return derivatives.autodiff(self, name, args, seed=seed, return_primal=return_primal,
                                    kwargs=kwargs)

    def fwddiff(self, name: str | Function, *args: Any, return_primal: bool = False,
                width: int = 1, **kwargs: Any) -> Any:  # fmt: skip
        """Forward mode (Enzyme's ``__enzyme_fwddiff``; ``width=N``: vector mode, N
        tangents per Duplicated argument); see :mod:`irgrad.python.derivatives`."""
        return derivatives.fwddiff(self, name, args, return_primal=return_primal, width=width,
                                   kwargs=kwargs)

    def gradient(self, name: str | Function, wrt: Any = 0) -> Callable[..., Any]:
        """``g(*args)``: new arrays/numbers d f / d args[wrt] (f returns a float)."""
        return derivatives.gradient(self, name, wrt)

    def vjp(self, name: str | Function, wrt: Any = 0, outputs: Any = None) -> Callable[..., Any]:
        """``v(*args, cotangent)``: vector-Jacobian product (see
        :mod:`irgrad.python.derivatives`)."""
        return derivatives.vjp(self, name, wrt, outputs)

    def jvp(self, name: str | Function, wrt: Any = 0, outputs: Any = None) -> Callable[..., Any]:
        """``j(*args, tangent)``: Jacobian-vector product (see :mod:`irgrad.python.derivatives`)."""
        return derivatives.jvp(self, name, wrt, outputs)

    def __repr__(self) -> str:
        return f"<irgrad.Library {self.language} -O{self.opt_level} {self.names}>"


def _with_user_extents(sig: Signature, spec: str | Mapping[str, str]) -> Signature:
    """``sig`` with the extents the user states replacing those of the same arrays."""
    itemsizes = [np.dtype(a.dtype).itemsize if a.dtype else 1 for a in sig.args]
    given = parse_user_extents(spec, sig.names, [a.kind for a in sig.args], itemsizes,
                               sig.name)
    kept = [(k, es) for k, es in sig.extents if k not in given]
    merged = sorted([*kept, *((k, (e,)) for k, e in given.items())])
    return dataclasses.replace(sig, extents=tuple(merged))


def _normalize_language(language: str | None) -> str | None:
    if language is None:
        return None
    if not isinstance(language, str):
        raise UsageError(f"language= must be a string (c, c++, fortran, rust, ll), not "
                         f"{language!r}")
    found = LANGUAGE_ALIASES.get(language.lower())
    if found is None:
        raise UsageError(
            f"unknown language {language!r} (one of c, c++, fortran, rust, ll)"
        )
    return found


def compile(
    sources: str | Path | Sequence[str | Path] | None = None,
    *,
    source: str | bytes | None = None,
    language: str | None = None,
    flags: Sequence[str] = (),
    opt_level: int = 2,
    cache_dir: str | Path | bool | None = None,
) -> Library:
    """Compile source files (``sources``) or code in a string (``source=``, with
    ``language=``) into a :class:`Library`. ``cache_dir=False`` disables the disk cache."""
    lang = _normalize_language(language)
    if (sources is None) == (source is None):
        raise UsageError("irgrad.compile takes source files or source=... (exactly one)")
    if isinstance(opt_level, bool) or opt_level not in (0, 1, 2, 3):
        raise UsageError(f"opt_level must be 0..3, not {opt_level!r}")
    if isinstance(flags, str | bytes) or not isinstance(flags, Sequence) or not all(
            isinstance(f, str | Path) for f in flags):
        raise UsageError(f"flags must be a sequence of strings, e.g. ['-DN=3'], not "
                         f"{flags!r}")
    flags = [str(f) for f in flags]
    if source is not None:
        if lang is None:
            raise UsageError("source=... needs language= (c, c++, fortran, rust or ll)")
        if isinstance(source, bytes):
            data = source
        elif isinstance(source, str):
            data = source.encode()
        else:
            raise UsageError(f"source= must be the code as a string (or bytes), not "
                             f"{type(source).__name__}")
        inputs: list[tuple[str, bytes]] = [(f"source{_SUFFIX[lang]}", data)]
    else:
        paths = [sources] if isinstance(sources, str | Path) else sources
        if not isinstance(paths, Sequence) or not all(
                isinstance(p, str | Path) for p in paths):
            raise UsageError(f"sources must be a path or a list of paths, not {sources!r}")
        if not paths:
            raise UsageError("irgrad.compile: no source files given")
        inputs = []
        for p in paths:
            path = Path(p)
            if not path.is_file():
                text = str(p)
                hint = " (to compile code in a string, pass source=..., language=...)" if (
                    "\n" in text or "(" in text or ";" in text) else ""  # fmt: skip
                raise UsageError(f"no such file: '{text[:60]}'{hint}")
            inputs.append((str(path.resolve()), path.read_bytes()))
    skey = source_key(inputs, lang or "auto", opt_level, flags)
    if cache_dir is False:
        cache = LibraryCache(None)
    elif cache_dir is None or cache_dir is True:
        cache = LibraryCache(default_cache_dir())
    elif isinstance(cache_dir, str | Path):
        cache = LibraryCache(Path(cache_dir))
    else:
        raise UsageError(f"cache_dir must be a directory, None or False, not {cache_dir!r}")
    workspace = Workspace()
    found = cache.find_library(skey)
    if found is not None:
        key, blobs = found
        meta = _read_meta(blobs)
        if meta is not None:
            return Library(meta, blobs, cache=cache, key=key, workspace=workspace,
                           cache_hit=True)
    key, meta, blobs = _build(cache, skey, workspace, inputs, source is not None, lang,
                              _languages(inputs, lang), flags, opt_level)
    return Library(meta, blobs, cache=cache, key=key, workspace=workspace, cache_hit=False)


def _languages(inputs: list[tuple[str, bytes]], lang: str | None) -> list[str]:
    """The languages of the sources (by ``language=`` or their suffixes)."""
    from irgrad.frontends import detect_language

    if lang is not None:
        return [lang]
    found = {detect_language(name) for name, _ in inputs}
    if None in found:
        raise UsageError("cannot tell the language of a source from its suffix (pass language=)")
    return sorted("ll" if x == "ir" else x for x in found)  # type: ignore[misc]


def _read_meta(blobs: dict[str, bytes]) -> dict[str, Any] | None:
    """The library description of a cache entry, None when the entry is incomplete."""
    if not {"library.json", "module.ll", "primal"} <= set(blobs):
        return None
    try:
        meta = json.loads(blobs["library.json"])
    except ValueError:
        return None
    return meta if isinstance(meta, dict) and "primal" in meta else None


def compile_c(source: str, **kwargs: Any) -> Library:
    """``irgrad.compile(source=source, language="c", **kwargs)``."""
    return compile(source=source, language=kwargs.pop("language", "c"), **kwargs)


def _build(
    cache: LibraryCache,
    skey: str,
    workspace: Workspace,
    inputs: list[tuple[str, bytes]],
    from_string: bool,
    lang: str | None,
    languages: list[str],
    flags: list[str],
    opt_level: int,
) -> tuple[str, dict[str, Any], dict[str, bytes]]:
    from irgrad.frontends import compile_to_ir
    from irgrad.llvm.load import parse_llvm
    from irgrad.python.dependencies import source_dependencies
    from irgrad.toolchain import enzyme_include_dir

    if from_string:
        paths = [workspace.write(inputs[0][0], inputs[0][1])]
    else:
        paths = [Path(name) for name, _ in inputs]
    langs = set(languages)
    extra = ["-g"] if "ll" not in langs else []
    include = enzyme_include_dir()
    if langs <= {"c", "c++"} and include is not None:
        extra += ["-idirafter", str(include)]
    front_lang = None if lang is None else ("ir" if lang == "ll" else lang)
    text = compile_to_ir(paths, language=front_lang, opt_level=opt_level,
                         flags=[*extra, *flags], for_ad=True, host=True)  # fmt: skip
    dependencies: list[Path] = []
    for language in langs:
        same = [p for p in paths if lang is not None or _language_of(p) == language]
        dependencies += source_dependencies(same, language, [*extra, *flags])
    module = parse_llvm(text, str(paths[0]))
    signatures = read_signatures(module, text)
    found = infer_extents(text, str(paths[0]), list(signatures))
    signatures = {s: dataclasses.replace(sig, extents=found.get(s, ()))
                  for s, sig in signatures.items()}
    runtimes = runtimes_of(module, next(iter(langs)) if len(langs) == 1 else "c")  # type: ignore[arg-type]
    key = cache.library_key(skey, dependencies)
    shared = export_globals(module, text, key)  # one copy of mutable globals, in the primal
    text = str(module)
    primal = f"libirgrad-{key[:16]}.so"
    build_shared(text, workspace.file(primal), filename=str(paths[0]), opt_level=opt_level,
                 runtimes=runtimes, soname=primal)  # fmt: skip
    meta = {
        "language": lang or "/".join(sorted(str(x) for x in langs)),
        "opt_level": opt_level,
        "flags": flags,
        "runtimes": runtimes,
        "primal": primal,
        "internal": _internal_functions(module),
        "shared_globals": shared,
        "signatures": [s.to_json() for s in signatures.values()],
    }
    blobs = {"library.json": json.dumps(meta).encode(), "module.ll": text.encode(),
             "primal": workspace.file(primal).read_bytes()}
    cache.put_library(skey, dependencies, blobs)
    return key, meta, blobs


def _language_of(path: Path) -> str | None:
    from irgrad.frontends import detect_language

    found = detect_language(path)
    return "ll" if found == "ir" else found


def _internal_functions(module: Any) -> list[str]:
    """Names of the functions defined with local linkage (C ``static``)."""
    import llvmlite.binding as llvm

    local = (llvm.Linkage.internal, llvm.Linkage.private)
    return sorted(fn.name for fn in module.functions
                  if not fn.is_declaration and fn.linkage in local)  # fmt: skip


__all__ = ["Library", "compile", "compile_c"]
