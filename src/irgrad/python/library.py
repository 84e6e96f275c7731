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
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from irgrad.errors import UsageError
from irgrad.python import derivatives
from irgrad.python.callables import Derivative, Function, WrapperCall, ctype_of
from irgrad.python.disk_cache import CacheEntry, default_cache_dir, irgrad_fingerprint, library_key
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
        self, entry: CacheEntry, meta: dict[str, Any], *, cache_hit: bool
    ) -> None:
        self.entry = entry
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
        self, name: str, argtypes: Sequence[Any] | None = None, restype: Any = None
    ) -> Function:
        """The function ``name``; ``argtypes`` (e.g. ``["double*", "int"]``) overrides
        the signature read from debug info, also for its derivatives."""
        symbol = self.resolve(name)
        with self._lock:
            if argtypes is not None or restype is not None:
                base = self.signatures[symbol]
                types = None if argtypes is None else list(argtypes)
                self.signatures[symbol] = signature_from_argtypes(symbol, base, types, restype)
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
            self._primal = load_shared(self.entry.file(self.primal_file))
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
            so_path = self.entry.file(f"{name}.so")
            if not (self.entry.exists(f"{name}.so") and self.entry.exists(f"{name}.json")):
                filename = f"{sig.name} ({request.mode} derivative)"
                module_text = derivative_module(
                    self.entry.file("module.ll").read_text(), self.shared_globals, filename
                )
                build_shared(
                    module_text + "\n" + text,
                    so_path,
                    filename=filename,
                    opt_level=self.opt_level,
                    runtimes=self.runtimes,
                    link_with=[self.entry.file(self.primal_file)],
                )
                self.entry.write_json(f"{name}.json", {"symbol": layout.symbol})
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
                 return_primal: bool = False) -> Any:  # fmt: skip
        """Reverse mode (Enzyme's ``__enzyme_autodiff``); see :mod:`irgrad.python.derivatives`."""
        return derivatives.autodiff(self, name, args, seed=seed, return_primal=return_primal)

    def fwddiff(self, name: str | Function, *args: Any, return_primal: bool = False,
                width: int = 1) -> Any:  # fmt: skip
        """Forward mode (Enzyme's ``__enzyme_fwddiff``; ``width=N``: vector mode, N
        tangents per Duplicated argument); see :mod:`irgrad.python.derivatives`."""
        return derivatives.fwddiff(self, name, args, return_primal=return_primal, width=width)

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


def _normalize_language(language: str | None) -> str | None:
    if language is None:
        return None
    found = LANGUAGE_ALIASES.get(language.lower())
    if found is None:
        raise UsageError(
            f"unknown language {language!r} (one of c, c++, fortran, rust, ll)"
        )
    return found


def compile(
    sources: str | Path | Sequence[str | Path] | None = None,
    *,
    source: str | None = None,
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
    if opt_level not in (0, 1, 2, 3):
        raise UsageError(f"opt_level must be 0..3, not {opt_level!r}")
    if isinstance(flags, str):
        raise UsageError("flags must be a sequence of strings, e.g. ['-DN=3']")
    flags = [str(f) for f in flags]
    if source is not None:
        if lang is None:
            raise UsageError("source=... needs language= (c, c++, fortran, rust or ll)")
        inputs: list[tuple[str, bytes]] = [(f"source{_SUFFIX[lang]}", source.encode())]
    else:
        paths = [sources] if isinstance(sources, str | Path) else list(sources or [])
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
    key = library_key(inputs, lang or "auto", opt_level, flags)
    if cache_dir is False:
        entry = CacheEntry.temporary(key)
    else:
        root = default_cache_dir() if cache_dir in (None, True) else Path(cache_dir)  # type: ignore[arg-type]
        entry = CacheEntry(root, key)
    meta = entry.read_json("library.json")
    if meta is not None and meta.get("fingerprint") == irgrad_fingerprint() and (
        entry.exists(meta.get("primal", "?")) and entry.exists("module.ll")
    ):
        return Library(entry, meta, cache_hit=True)
    meta = _build(entry, key, inputs, source is not None, lang, flags, opt_level)
    return Library(entry, meta, cache_hit=False)


def compile_c(source: str, **kwargs: Any) -> Library:
    """``irgrad.compile(source=source, language="c", **kwargs)``."""
    return compile(source=source, language=kwargs.pop("language", "c"), **kwargs)


def _build(
    entry: CacheEntry,
    key: str,
    inputs: list[tuple[str, bytes]],
    from_string: bool,
    lang: str | None,
    flags: list[str],
    opt_level: int,
) -> dict[str, Any]:
    from irgrad.frontends import compile_to_ir, detect_language
    from irgrad.llvm.load import parse_llvm
    from irgrad.toolchain import enzyme_include_dir

    if from_string:
        entry.path.mkdir(parents=True, exist_ok=True)
        paths = [entry.write_bytes(inputs[0][0], inputs[0][1])]
    else:
        paths = [Path(name) for name, _ in inputs]
    langs = {lang or detect_language(p) for p in paths}
    if None in langs:
        raise UsageError("cannot tell the language of a source from its suffix (pass language=)")
    extra = ["-g"] if "ll" not in langs else []
    include = enzyme_include_dir()
    if langs <= {"c", "c++"} and include is not None:
        extra += ["-idirafter", str(include)]
    front_lang = None if lang is None else ("ir" if lang == "ll" else lang)
    text = compile_to_ir(paths, language=front_lang, opt_level=opt_level,
                         flags=[*extra, *flags], for_ad=True)  # fmt: skip
    module = parse_llvm(text, str(paths[0]))
    signatures = read_signatures(module, text)
    runtimes = runtimes_of(module, next(iter(langs)) if len(langs) == 1 else "c")  # type: ignore[arg-type]
    shared = export_globals(module, text, key)  # one copy of mutable globals, in the primal
    text = str(module)
    entry.write_bytes("module.ll", text.encode())
    primal = f"libirgrad-{key[:16]}.so"
    build_shared(text, entry.file(primal), filename=str(paths[0]), opt_level=opt_level,
                 runtimes=runtimes, soname=primal)  # fmt: skip
    meta = {
        "fingerprint": irgrad_fingerprint(),
        "language": lang or "/".join(sorted(str(x) for x in langs)),
        "opt_level": opt_level,
        "flags": flags,
        "runtimes": runtimes,
        "primal": primal,
        "internal": _internal_functions(module),
        "shared_globals": shared,
        "signatures": [s.to_json() for s in signatures.values()],
    }
    entry.write_json("library.json", meta)  # written last: marks the entry complete
    return meta


def _internal_functions(module: Any) -> list[str]:
    """Names of the functions defined with local linkage (C ``static``)."""
    import llvmlite.binding as llvm

    local = (llvm.Linkage.internal, llvm.Linkage.private)
    return sorted(fn.name for fn in module.functions
                  if not fn.is_declaration and fn.linkage in local)  # fmt: skip


__all__ = ["Library", "compile", "compile_c"]
