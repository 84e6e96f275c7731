"""The disk cache: a second compile of the same input is a cache hit (library and
derivatives are loaded, not rebuilt); any change of what decides the code -- source,
included headers, flags, level, language, compiler -- is a miss; a corrupt entry is
rebuilt; the cache stays within its size bound."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import irgrad
from irgrad import Const, Duplicated
from irgrad.python.disk_cache import toolchain_identity

SRC = "double f(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i]; return s; }\n"


def test_second_compile_uses_the_cache(tmp_path: Path) -> None:
    start = time.perf_counter()
    first = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path)
    cold = time.perf_counter() - start
    assert not first.cache_hit
    x = np.arange(1.0, 5.0)
    dx = np.zeros(4)
    first.autodiff("f", Duplicated(x, dx), Const(4))
    assert first.derivatives_built == 1
    start = time.perf_counter()
    second = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path)
    warm = time.perf_counter() - start
    assert second.cache_hit
    assert second.key == first.key
    assert second["f"](x, 4) == pytest.approx(float(np.sum(x**3)))
    dx2 = np.zeros(4)
    second.autodiff("f", Duplicated(x, dx2), Const(4))
    assert second.derivatives_built == 0  # the derivative's library came from the cache
    np.testing.assert_array_equal(dx2, 3 * x**2)
    np.testing.assert_array_equal(dx, dx2)
    print(f"\ncompile: cold {cold * 1e3:.1f} ms, cached {warm * 1e3:.2f} ms (loaded machine)")


def test_cache_key_covers_source_flags_level_and_language(tmp_path: Path) -> None:
    base = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path)
    assert irgrad.compile(source=SRC, language="c", cache_dir=tmp_path).cache_hit
    variants = [
        {"source": SRC.replace("x[i] * x[i] * x[i]", "x[i]"), "language": "c"},
        {"source": SRC, "language": "c", "flags": ["-DUNUSED=1"]},
        {"source": SRC, "language": "c", "opt_level": 0},
        {"source": SRC, "language": "c++"},
    ]
    keys = {base.key}
    for kwargs in variants:
        lib = irgrad.compile(cache_dir=tmp_path, **kwargs)  # type: ignore[arg-type]
        assert not lib.cache_hit, kwargs
        keys.add(lib.key)
    assert len(keys) == len(variants) + 1


def test_files_are_keyed_by_contents(tmp_path: Path) -> None:
    path = tmp_path / "k.c"
    path.write_text(SRC)
    cache = tmp_path / "cache"
    assert not irgrad.compile(path, cache_dir=cache).cache_hit
    assert irgrad.compile([path], cache_dir=cache).cache_hit
    path.write_text(SRC.replace("double s = 0", "double s = 1"))
    lib = irgrad.compile(path, cache_dir=cache)
    assert not lib.cache_hit
    assert lib["f"](np.zeros(2), 2) == 1.0


def test_an_edited_header_is_a_miss(tmp_path: Path) -> None:
    """The headers a source includes are part of the key (by their contents), also when
    included from an -I directory, and a restored header finds its library again."""
    include = tmp_path / "include"
    include.mkdir()
    header = include / "model.h"
    header.write_text("#define WEIGHT 2.0\n")
    (include / "inner.h").write_text('#include "model.h"\n')
    path = tmp_path / "m.c"
    path.write_text('#include "inner.h"\n'
                    "double f(const double *x, int n) { double s = 0;"
                    " for (int i = 0; i < n; i++) s += WEIGHT * x[i]; return s; }\n")
    cache = tmp_path / "cache"
    flags = [f"-I{include}"]
    x = np.ones(3)
    first = irgrad.compile(path, flags=flags, cache_dir=cache)
    assert not first.cache_hit and first["f"](x, 3) == 6.0
    assert irgrad.compile(path, flags=flags, cache_dir=cache).cache_hit
    header.write_text("#define WEIGHT 5.0\n")  # only the nested header changes
    edited = irgrad.compile(path, flags=flags, cache_dir=cache)
    assert not edited.cache_hit
    assert edited["f"](x, 3) == 15.0
    np.testing.assert_array_equal(edited.gradient("f")(x, 3), np.full(3, 5.0))
    header.write_text("#define WEIGHT 2.0\n")
    restored = irgrad.compile(path, flags=flags, cache_dir=cache)
    assert restored.cache_hit and restored["f"](x, 3) == 6.0


def test_the_compiler_is_part_of_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    cache = tmp_path / "cache"
    assert not irgrad.compile(source=SRC, language="c", cache_dir=cache).cache_hit
    wrapper = tmp_path / "clang-wrapper"
    clang = shutil.which("clang-22") or "/usr/lib/llvm-22/bin/clang"
    wrapper.write_text(f'#!/bin/sh\nexec "{clang}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("IRGRAD_CLANG", str(wrapper))
    toolchain_identity.cache_clear()
    try:
        other = irgrad.compile(source=SRC, language="c", cache_dir=cache)
        assert not other.cache_hit  # another compiler: its code is not reused
        assert other["f"](np.ones(2), 2) == 2.0
    finally:
        monkeypatch.delenv("IRGRAD_CLANG")
        toolchain_identity.cache_clear()
    assert irgrad.compile(source=SRC, language="c", cache_dir=cache).cache_hit


def _entries(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*") if p.is_file() and not p.name.startswith(".tmp")]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty"])
def test_a_corrupt_entry_is_rebuilt_never_loaded(tmp_path: Path, damage: str) -> None:
    lib = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path)
    lib.gradient("f")(np.ones(3), 3)
    for path in _entries(tmp_path):
        data = bytearray(path.read_bytes())
        if damage == "flip":
            data[len(data) // 2] ^= 0xFF
        elif damage == "truncate":
            data = data[: len(data) // 2]
        else:
            data = bytearray()
        path.write_bytes(bytes(data))
    again = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path)
    assert not again.cache_hit
    assert again["f"](np.ones(3), 3) == 3.0
    np.testing.assert_array_equal(again.gradient("f")(np.ones(3), 3), np.full(3, 3.0))
    assert again.derivatives_built == 1
    assert irgrad.compile(source=SRC, language="c", cache_dir=tmp_path).cache_hit


def test_the_cache_is_bounded_least_recently_used_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path / "probe")
    size = sum(p.stat().st_size for p in _entries(tmp_path / "probe"))
    assert one.cache_hit is False and size > 0
    # room for about two libraries
    monkeypatch.setenv("IRGRAD_LIBRARY_CACHE_SIZE", str(int(size * 2.5)))
    cache = tmp_path / "cache"
    sources = [SRC.replace("double s = 0", f"double s = {k}") for k in range(4)]
    for src in sources:
        assert not irgrad.compile(source=src, language="c", cache_dir=cache).cache_hit
        time.sleep(0.02)  # distinct modification times
    assert sum(p.stat().st_size for p in _entries(cache)) <= size * 2.5
    assert irgrad.compile(source=sources[-1], language="c", cache_dir=cache).cache_hit
    assert not irgrad.compile(source=sources[0], language="c", cache_dir=cache).cache_hit


def test_cache_can_be_off(tmp_path: Path) -> None:
    off = irgrad.compile(source=SRC, language="c", cache_dir=False)
    assert not off.cache_hit
    assert off["f"](np.ones(3), 3) == 3.0
    assert not irgrad.compile(source=SRC, language="c", cache_dir=False).cache_hit


def test_environment_variable_and_new_process(tmp_path: Path) -> None:
    script = (
        "import time, numpy as np; t = time.perf_counter(); import irgrad\n"
        f"lib = irgrad.compile(source={SRC!r}, language='c')\n"
        "g = lib.gradient('f')(np.arange(3.0), 3)\n"
        "print(lib.cache_hit, lib.derivatives_built, g.tolist(), "
        "round((time.perf_counter() - t) * 1e3, 1))\n"
    )
    env = {**os.environ, "IRGRAD_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                       text=True, check=True).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][:2] == ["False", "1"] and runs[1][:2] == ["True", "0"]
    assert runs[0][2:5] == runs[1][2:5] == ["[0.0,", "3.0,", "12.0]"]
    assert _entries(tmp_path / "libraries")
    print(f"\nnew process, import + compile + gradient: cold {runs[0][-1]} ms, "
          f"cached {runs[1][-1]} ms (loaded machine)")
