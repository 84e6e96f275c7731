"""A content-addressed cache of build artifacts (compiled objects, linked code).

An entry is named by a key, the SHA-256 of everything that determines its contents
(:func:`cache_key`), and holds a few named blobs (an object file and the compiler's
warnings, say). It lives in one file, ``<root>/<key[:2]>/<key>``::

    IRGRAD-CACHE-1\\n
    {"blobs": [["object", 1234], ["stderr", 0]], "sha256": "<of the payload>"}\\n
    <payload: the blobs, concatenated>

- Writes are atomic (a temporary file in the same directory, then ``os.replace``), so a
  concurrent reader sees the old entry, the new one, or none — never half of one.
- A read checks the header and the payload's SHA-256: a truncated or corrupt entry is
  deleted and reported as a miss (it is rebuilt, never loaded).
- The cache is bounded: after a write, when the entries add up to more than
  ``max_bytes``, the least recently used ones (a hit refreshes an entry's mtime) are
  deleted until the total is below 90% of the bound.

The build cache lives in ``$IRGRAD_BUILD_CACHE_DIR``, else ``$IRGRAD_CACHE_DIR/build``,
else ``$XDG_CACHE_HOME/irgrad/build``, else ``~/.cache/irgrad/build``;
``IRGRAD_BUILD_CACHE=0`` turns it off and ``IRGRAD_BUILD_CACHE_SIZE`` (bytes, or with a
``K``/``M``/``G`` suffix) bounds it (default 2G).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

_MAGIC = b"IRGRAD-CACHE-1\n"
DEFAULT_MAX_BYTES = 2 << 30
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def cache_key(*parts: str | bytes | int | None) -> str:
    """SHA-256 (hex) of ``parts``; each part is length-prefixed, so no two different
    sequences of parts give the same bytes to hash."""
    h = hashlib.sha256()
    for part in parts:
        if part is None:
            data = b"\x00none"
        elif isinstance(part, bytes):
            data = part
        else:
            data = str(part).encode()
        h.update(f"{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


@functools.cache
def irgrad_fingerprint() -> str:
    """irgrad's version plus the size and mtime of every module of the package, so code
    changed in development never reuses an entry built by the old code."""
    import irgrad

    root = os.path.dirname(irgrad.__file__)
    entries: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            if name.endswith((".py", ".h")):
                path = os.path.join(dirpath, name)
                st = os.stat(path)
                entries.append(f"{os.path.relpath(path, root)}:{st.st_size}:{st.st_mtime_ns}")
    return cache_key(irgrad.__version__, "\n".join(sorted(entries)))


def file_identity(path: str | Path) -> str:
    """What identifies an installed executable cheaply: its path, size and mtime."""
    st = os.stat(path)
    return f"{Path(path).resolve()}:{st.st_size}:{st.st_mtime_ns}"


def parse_size(text: str) -> int:
    """``"512M"`` -> bytes; a bare number is bytes. ValueError for anything else."""
    value = text.strip().upper().removesuffix("B")
    unit = value[-1:] if value[-1:] in _UNITS else ""
    number = value[: len(value) - len(unit)]
    if not number.isdigit():
        raise ValueError(f"not a size: {text!r} (expected e.g. 500M or 2G)")
    return int(number) * _UNITS[unit]


class BuildCache:
    """A bounded, content-addressed store of named blobs (see the module docstring)."""

    def __init__(self, root: str | Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes

    @classmethod
    def from_environment(cls) -> BuildCache | None:
        """The user's build cache, or None when ``IRGRAD_BUILD_CACHE=0``."""
        if os.environ.get("IRGRAD_BUILD_CACHE", "1").strip().lower() in ("0", "no", "off", "false"):
            return None
        size = os.environ.get("IRGRAD_BUILD_CACHE_SIZE")
        return cls(default_build_cache_dir(), parse_size(size) if size else DEFAULT_MAX_BYTES)

    def path_of(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> dict[str, bytes] | None:
        """The blobs stored under ``key``, or None (missing or corrupt: then deleted)."""
        path = self.path_of(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        blobs = _decode(data)
        if blobs is None:
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # most recently used
        return blobs

    def put(self, key: str, blobs: Mapping[str, bytes]) -> None:
        """Store ``blobs`` under ``key`` atomically, then keep the cache within its bound.
        A cache that cannot be written (read-only, disk full) is skipped silently: the
        build itself has succeeded."""
        path = self.path_of(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(_encode(blobs))
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            return
        self.evict()

    def entries(self) -> Iterator[tuple[Path, int, int]]:
        """Every entry as (path, size, mtime_ns)."""
        try:
            shards = list(os.scandir(self.root))
        except OSError:
            return
        for shard in shards:
            if not shard.is_dir() or len(shard.name) != 2:
                continue
            try:
                files = list(os.scandir(shard.path))
            except OSError:
                continue
            for entry in files:
                if entry.name.startswith(".tmp-"):
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    continue
                yield Path(entry.path), st.st_size, st.st_mtime_ns

    def total_bytes(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def evict(self) -> int:
        """Delete least recently used entries while the cache is over its bound; returns
        how many were deleted."""
        entries = list(self.entries())
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return 0
        target = int(self.max_bytes * 0.9)
        removed = 0
        for path, size, _ in sorted(entries, key=lambda e: e[2]):
            if total <= target:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size
                removed += 1
        return removed


def default_build_cache_dir() -> Path:
    env = os.environ.get("IRGRAD_BUILD_CACHE_DIR")
    if env:
        return Path(env)
    env = os.environ.get("IRGRAD_CACHE_DIR")
    if env:
        return Path(env) / "build"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "irgrad" / "build"


def _encode(blobs: Mapping[str, bytes]) -> bytes:
    payload = b"".join(blobs.values())
    header = {
        "blobs": [[name, len(data)] for name, data in blobs.items()],
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    return _MAGIC + json.dumps(header).encode() + b"\n" + payload


def _decode(data: bytes) -> dict[str, bytes] | None:
    if not data.startswith(_MAGIC):
        return None
    end = data.find(b"\n", len(_MAGIC))
    if end < 0:
        return None
    try:
        header = json.loads(data[len(_MAGIC) : end])
        layout = [(str(name), int(size)) for name, size in header["blobs"]]
        digest = str(header["sha256"])
    except (ValueError, KeyError, TypeError):
        return None
    payload = data[end + 1 :]
    if sum(size for _, size in layout) != len(payload):
        return None
    if hashlib.sha256(payload).hexdigest() != digest:
        return None
    blobs: dict[str, bytes] = {}
    offset = 0
    for name, size in layout:
        blobs[name] = payload[offset : offset + size]
        offset += size
    return blobs


__all__ = [
    "BuildCache",
    "cache_key",
    "default_build_cache_dir",
    "file_identity",
    "irgrad_fingerprint",
    "parse_size",
]
