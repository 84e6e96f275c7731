"""The on-disk cache of libraries built by ``irgrad.compile``, on :mod:`irgrad.build_cache`.

A library is reused only when everything that decides its code is unchanged:

* the **sources** (names and contents), the language, the flags and the optimization level;
* the **files the sources read**: headers, Fortran ``include`` files, the other files of a
  Rust crate (:mod:`irgrad.python.dependencies` asks the front end for the list), by the
  hash of their contents, so an edited header is a miss;
* the **compiler** (the front end executable's path, size and modification time) and the
  version of llvmlite (the LLVM that optimizes and emits the code);
* **irgrad** itself: its version and the size and modification time of every module
  (code changed in development is never reused);
* the **host CPU** (name and features): libraries are compiled for the machine that
  loads them (``-march=native``), so a cache shared between machines keeps one entry
  per kind of machine.

Lookup is two steps, like ccache's direct mode. The *source key* (everything but the
dependency contents) names a **manifest** listing the dependency files; their current
hashes complete the *library key*, which names the **library entry** (``library.json``,
the front end's ``module.ll`` and the primal shared library). Each derivative built later
is an entry of its own, keyed by the library key and the request. A hit reads the
manifest, hashes the listed files and reads the entry: no compiler runs.

Entries live in a :class:`~irgrad.build_cache.BuildCache`: written atomically, checked
(SHA-256 of the payload) on every read -- a corrupt or truncated entry is deleted and
rebuilt, never loaded -- and bounded in size, least recently used entries going first.
The cache lives in ``$IRGRAD_CACHE_DIR/libraries``, else
``$XDG_CACHE_HOME/irgrad/libraries``, else ``~/.cache/irgrad/libraries``;
``irgrad.compile(..., cache_dir=...)`` overrides it, ``cache_dir=False`` turns it off,
and ``$IRGRAD_LIBRARY_CACHE_SIZE`` bounds it (bytes or ``500M``/``2G``; default 2G).

A library is loaded from a private working directory that holds the files extracted from
its entries (``dlopen`` needs files; a derivative links against the primal library next
to it); the directory is removed when the :class:`Workspace` is.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import weakref
from collections.abc import Sequence
from pathlib import Path

from irgrad.build_cache import (
    DEFAULT_MAX_BYTES,
    BuildCache,
    cache_key,
    file_identity,
    irgrad_fingerprint,
    parse_size,
)

_FORMAT = "irgrad-library-2"
_FRONT_ENDS = {"c": "clang", "c++": "clang++", "fortran": "flang", "rust": "rustc"}


def default_cache_dir() -> Path:
    env = os.environ.get("IRGRAD_CACHE_DIR")
    if env:
        return Path(env) / "libraries"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "irgrad" / "libraries"


def _max_bytes() -> int:
    size = os.environ.get("IRGRAD_LIBRARY_CACHE_SIZE")
    return parse_size(size) if size else DEFAULT_MAX_BYTES


@functools.cache
def host_identity() -> str:
    """The CPU this process runs on (name and features): libraries are compiled for it,
    so a cache directory shared between machines never hands one another's code."""
    import llvmlite.binding as llvm

    return f"{llvm.get_host_cpu_name()} {llvm.get_host_cpu_features().flatten()}"


@functools.cache
def toolchain_identity() -> str:
    """The front ends (path, size, mtime of clang-22, clang++-22, flang-22, rustc) and
    llvmlite's LLVM library (found without importing llvmlite); a missing tool is named
    as such."""
    from irgrad.errors import ToolchainError
    from irgrad.toolchain import find_tool

    spec = importlib.util.find_spec("llvmlite")
    origin = Path(spec.origin).parent if spec is not None and spec.origin else None
    libs = sorted((origin / "binding").glob("libllvmlite*")) if origin is not None else []
    parts = [file_identity(p) for p in libs] or ["llvmlite: missing"]
    for tool in _FRONT_ENDS.values():
        try:
            parts.append(file_identity(find_tool(tool)))
        except (ToolchainError, OSError):
            parts.append(f"{tool}: missing")
    return "\n".join(parts)


def source_key(sources: Sequence[tuple[str, bytes]], language: str, opt_level: int,
               flags: Sequence[str]) -> str:
    """Everything that decides a library except the contents of its dependencies."""
    parts: list[str | bytes] = [
        _FORMAT, irgrad_fingerprint(), toolchain_identity(), host_identity(),
        json.dumps([language, opt_level, list(flags)]),
    ]
    for name, data in sources:
        parts += [name, data]
    return cache_key(*parts)


def hash_files(paths: Sequence[Path]) -> list[list[str]] | None:
    """``[[path, sha256], ...]`` of ``paths``; None when one cannot be read."""
    out = []
    for p in paths:
        try:
            out.append([str(p), hashlib.sha256(Path(p).read_bytes()).hexdigest()])
        except OSError:
            return None
    return out


class LibraryCache:
    """The libraries and derivatives of one cache directory (None: caching is off)."""

    def __init__(self, root: Path | None) -> None:
        self.store = BuildCache(root, _max_bytes()) if root is not None else None

    # -- libraries -----------------------------------------------------------------------
    def _manifest_key(self, skey: str) -> str:
        return cache_key(_FORMAT, "manifest", skey)

    def _library_key(self, skey: str, dependencies: list[list[str]]) -> str:
        return cache_key(_FORMAT, "library", skey, json.dumps(dependencies))

    def find_library(self, skey: str) -> tuple[str, dict[str, bytes]] | None:
        """(library key, blobs) of the library with source key ``skey`` whose dependencies
        are unchanged, or None."""
        if self.store is None:
            return None
        manifest = self.store.get(self._manifest_key(skey))
        if manifest is None or "dependencies" not in manifest:
            return None
        try:
            listed = [Path(p) for p, _ in json.loads(manifest["dependencies"])]
        except (ValueError, TypeError):
            return None
        now = hash_files(listed)
        if now is None:
            return None
        lkey = self._library_key(skey, now)
        blobs = self.store.get(lkey)
        return (lkey, blobs) if blobs is not None else None

    def library_key(self, skey: str, dependencies: Sequence[Path]) -> str:
        hashes = hash_files(dependencies)
        return self._library_key(skey, hashes if hashes is not None else [])

    def put_library(self, skey: str, dependencies: Sequence[Path],
                    blobs: dict[str, bytes]) -> str:
        """Store a library built now (the manifest first: it names the new entry)."""
        hashes = hash_files(dependencies) or []
        lkey = self._library_key(skey, hashes)
        if self.store is not None:
            self.store.put(lkey, blobs)
            self.store.put(self._manifest_key(skey),
                           {"dependencies": json.dumps(hashes).encode()})
        return lkey

    # -- derivatives ---------------------------------------------------------------------
    def _derivative_key(self, lkey: str, request: str) -> str:
        return cache_key(_FORMAT, "derivative", lkey, request)

    def find_derivative(self, lkey: str, request: str) -> dict[str, bytes] | None:
        if self.store is None:
            return None
        return self.store.get(self._derivative_key(lkey, request))

    def put_derivative(self, lkey: str, request: str, blobs: dict[str, bytes]) -> None:
        if self.store is not None:
            self.store.put(self._derivative_key(lkey, request), blobs)


class Workspace:
    """A private directory holding the files one loaded library needs (removed when the
    workspace is collected, or at exit)."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="irgrad-lib-"))
        # (a finalizer also runs at interpreter exit)
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self.path), True)

    def file(self, name: str) -> Path:
        return self.path / name

    def exists(self, name: str) -> bool:
        return (self.path / name).is_file()

    def write(self, name: str, data: bytes) -> Path:
        path = self.path / name
        path.write_bytes(data)
        return path


__all__ = [
    "LibraryCache",
    "Workspace",
    "default_cache_dir",
    "hash_files",
    "host_identity",
    "source_key",
    "toolchain_identity",
]
