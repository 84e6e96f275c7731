"""The on-disk cache of compiled libraries.

Key: SHA-256 of (irgrad version, a fingerprint of irgrad's own compiler modules (sizes and
modification times: code changed in development is never reused), language, optimization level, flags, and every source's name and contents). An
entry is a directory ``<cache>/<key[:2]>/<key>/`` holding

    library.json   signatures of the functions, language, runtimes to preload
    module.ll      the front end's IR (with debug info): derivatives are built from it
    libirgrad-<key16>.so  the optimized module as a shared library (the primal functions;
                   it owns the mutable globals, see :mod:`irgrad.python.shared_globals`)
    d-<req>.so     one shared library per derivative request (function, mode, activities)
    d-<req>.json   its wrapper's calling layout

A second ``irgrad.compile`` of the same input reads library.json and dlopens the primal library
(milliseconds); a derivative asked for again is one dlopen. Files are written to a
temporary name and renamed, so concurrent processes never see half-written entries.

The cache lives in ``$IRGRAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/irgrad/libraries``, else
``~/.cache/irgrad/libraries``; ``irgrad.compile(..., cache_dir=...)`` overrides it and
``cache_dir=False`` turns caching off (a temporary directory per library).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# parts of irgrad whose changes change the compiled code (paths relative to the package)
_FINGERPRINTED = ("ad", "analysis", "ir", "llvm", "frontends")
_FINGERPRINTED_FILES = (
    "pipeline.py", "python/wrappers.py", "python/signature.py", "python/disk_cache.py",
)


def default_cache_dir() -> Path:
    env = os.environ.get("IRGRAD_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "irgrad" / "libraries"


@functools.cache
def irgrad_fingerprint() -> str:
    """irgrad's version plus size/mtime of its compiler modules (stale code never reused)."""
    import irgrad

    root = os.path.dirname(irgrad.__file__)
    h = hashlib.sha256(irgrad.__version__.encode())
    entries: list[str] = []
    for name in _FINGERPRINTED_FILES:
        entries.append(_stat_line(root, name))
    for sub in _FINGERPRINTED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, sub)):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            rel = os.path.relpath(dirpath, root)
            entries += [_stat_line(root, os.path.join(rel, f)) for f in filenames if f.endswith(".py")]
    h.update("\n".join(sorted(entries)).encode())
    return h.hexdigest()


def _stat_line(root: str, rel: str) -> str:
    try:
        st = os.stat(os.path.join(root, rel))
    except OSError:
        return f"{rel}:missing"
    return f"{rel}:{st.st_size}:{st.st_mtime_ns}"


def library_key(
    sources: Sequence[tuple[str, bytes]], language: str, opt_level: int, flags: Sequence[str]
) -> str:
    """The cache key of one library: sources as (name, contents) pairs."""
    h = hashlib.sha256()
    h.update(irgrad_fingerprint().encode())
    h.update(json.dumps([language, opt_level, list(flags)]).encode())
    for name, data in sources:
        h.update(f"\0{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


class CacheEntry:
    """One library's directory in the cache."""

    def __init__(self, root: Path, key: str) -> None:
        self.key = key
        self.path = root / key[:2] / key

    @classmethod
    def temporary(cls, key: str) -> CacheEntry:
        """An entry in a fresh temporary directory (caching turned off)."""
        return cls(Path(tempfile.mkdtemp(prefix="irgrad-lib-")), key)

    def file(self, name: str) -> Path:
        return self.path / name

    def exists(self, name: str) -> bool:
        return (self.path / name).is_file()

    def read_json(self, name: str) -> dict[str, Any] | None:
        try:
            return json.loads((self.path / name).read_text())
        except (OSError, ValueError):
            return None

    def write_json(self, name: str, data: dict[str, Any]) -> None:
        self.write_bytes(name, json.dumps(data, indent=1).encode())

    def write_bytes(self, name: str, data: bytes) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path, prefix=f".{name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        final = self.path / name
        os.replace(tmp, final)
        return final

    def publish(self, name: str, built: Path) -> Path:
        """Move a file built elsewhere into the entry (atomically)."""
        self.path.mkdir(parents=True, exist_ok=True)
        final = self.path / name
        os.replace(built, final)
        return final


__all__ = ["CacheEntry", "default_cache_dir", "irgrad_fingerprint", "library_key"]
