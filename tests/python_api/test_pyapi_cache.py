"""The disk cache: a second compile of the same input is a cache hit (library and
derivatives are loaded, not rebuilt); any change of source, flags or level is a miss."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import irgrad
from irgrad import Const, Duplicated

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
    assert second["f"](x, 4) == pytest.approx(float(np.sum(x**3)))
    dx2 = np.zeros(4)
    second.autodiff("f", Duplicated(x, dx2), Const(4))
    assert second.derivatives_built == 0  # the derivative's library came from the cache
    np.testing.assert_array_equal(dx2, 3 * x**2)
    np.testing.assert_array_equal(dx, dx2)
    print(f"\ncompile: cold {cold * 1e3:.1f} ms, cached {warm * 1e3:.2f} ms (loaded machine)")


def test_cache_key_covers_source_flags_and_level(tmp_path: Path) -> None:
    base = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path)
    assert irgrad.compile(source=SRC, language="c", cache_dir=tmp_path).cache_hit
    variants = [
        {"source": SRC.replace("x[i] * x[i] * x[i]", "x[i]"), "language": "c"},
        {"source": SRC, "language": "c", "flags": ["-DUNUSED=1"]},
        {"source": SRC, "language": "c", "opt_level": 0},
        {"source": SRC, "language": "c++"},
    ]
    entries = {base.entry.path}
    for kwargs in variants:
        lib = irgrad.compile(cache_dir=tmp_path, **kwargs)  # type: ignore[arg-type]
        assert not lib.cache_hit, kwargs
        entries.add(lib.entry.path)
    assert len(entries) == len(variants) + 1


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


def test_incomplete_entry_is_rebuilt_and_cache_can_be_off(tmp_path: Path) -> None:
    lib = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path)
    (lib.entry.path / lib.primal_file).unlink()
    again = irgrad.compile(source=SRC, language="c", cache_dir=tmp_path)
    assert not again.cache_hit
    assert again["f"](np.ones(3), 3) == 3.0
    off = irgrad.compile(source=SRC, language="c", cache_dir=False)
    assert not off.cache_hit
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
    assert any(tmp_path.rglob("library.json"))
    print(f"\nnew process, import + compile + gradient: cold {runs[0][-1]} ms, "
          f"cached {runs[1][-1]} ms (loaded machine)")


def test_fingerprint_names_existing_parts_of_irgrad() -> None:
    """The cache key hashes these files' sizes and mtimes; a path left stale by a move would
    hash as "missing" forever, and edits to the moved module would reuse stale libraries."""
    from irgrad.python.disk_cache import _FINGERPRINTED, _FINGERPRINTED_FILES

    root = Path(irgrad.__file__).parent
    for rel in _FINGERPRINTED_FILES:
        assert (root / rel).is_file(), rel
    for rel in _FINGERPRINTED:
        assert (root / rel).is_dir() and any((root / rel).glob("*.py")), rel
