"""irgrad.build_cache: keys, atomic entries, corrupt entries rebuilt (never loaded), the
size bound with least-recently-used eviction; and the archive reader on GNU, thin and
BSD-named archives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from irgrad.build_cache import BuildCache, cache_key, parse_size
from irgrad.llvm.archive import read_archive


def test_key_separates_parts() -> None:
    assert cache_key("ab", "c") != cache_key("a", "bc")
    assert cache_key(b"x", 1, None) == cache_key("x", "1", None)
    assert cache_key("x", None) != cache_key("x", "")


def test_put_get_and_corrupt_entry(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    key = cache_key("unit")
    assert cache.get(key) is None
    cache.put(key, {"object": b"\x01\x02", "stderr": b"warning"})
    assert cache.get(key) == {"object": b"\x01\x02", "stderr": b"warning"}
    path = cache.path_of(key)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # one flipped bit in the payload
    path.write_bytes(bytes(data))
    assert cache.get(key) is None and not path.exists()  # deleted, to be rebuilt
    path.write_bytes(b"IRGRAD-CACHE-1\n{truncated")
    assert cache.get(key) is None and not path.exists()
    assert not list(path.parent.glob(".tmp-*"))  # no partial files left behind


def test_lru_eviction(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    keys = [cache_key("entry", i) for i in range(4)]
    for i, key in enumerate(keys[:3]):
        cache.put(key, {"object": bytes(800)})
        os.utime(cache.path_of(key), ns=(i * 10**9, i * 10**9))
    size = cache.path_of(keys[0]).stat().st_size
    cache.max_bytes = int(3 * size / 0.9) + 1  # room for three entries, not four
    assert cache.get(keys[0]) is not None  # used now: the most recent
    cache.put(keys[3], {"object": bytes(800)})  # over the bound: the oldest goes
    assert cache.get(keys[1]) is None
    assert all(cache.get(k) is not None for k in (keys[0], keys[2], keys[3]))
    assert cache.total_bytes() <= cache.max_bytes


def test_parse_size() -> None:
    assert parse_size("512M") == 512 << 20 and parse_size("2G") == 2 << 30
    assert parse_size("1000") == 1000
    with pytest.raises(ValueError, match="not a size"):
        parse_size("lots")


def _header(name: str, size: int) -> bytes:
    return f"{name:<16}{0:<12}{0:<6}{0:<6}{644:<8}{size:<10}`\n".encode()


def test_archive_gnu_long_names_and_bsd(tmp_path: Path) -> None:
    long = "a_member_with_a_long_name.o"
    table = f"{long}/\n".encode()
    data = b"!<arch>\n" + _header("//", len(table)) + table + b"\n" * (len(table) % 2)
    data += _header("/0", 3) + b"abc\n"  # odd size: padded
    data += _header("short.o/", 2) + b"xy"
    data += _header("#1/8", 8 + 1) + b"bsd.o\0\0\0" + b"z" + b"\n"
    (tmp_path / "lib.a").write_bytes(data)
    members = read_archive(tmp_path / "lib.a")
    assert [(m.name, m.data) for m in members] == [(long, b"abc"), ("short.o", b"xy"),
                                                   ("bsd.o", b"z")]


def test_thin_archive_reads_member_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.o").write_bytes(b"member")
    names = b"sub/m.o/\n"
    data = b"!<thin>\n" + _header("//", len(names)) + names + b"\n" + _header("/0", 6)
    (tmp_path / "t.a").write_bytes(data)
    (member,) = read_archive(tmp_path / "t.a")
    assert (member.name, member.data, member.path) == ("sub/m.o", b"member", tmp_path / "sub" / "m.o")
