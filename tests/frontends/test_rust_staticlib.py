"""A Rust staticlib built by rustc with ``-C linker-plugin-lto``, linked into a C program
that differentiates it (``rust/staticlib/``), at -O0..-O3: the library's bitcode carries
rustc's allocator shims, which inline the default allocator's functions
(``__rustc::__rdl_alloc``, ``__rdl_realloc``, ``__rdl_dealloc``, v0-mangled) into the
differentiated function; irgrad knows them as the shims they stand for. At
``-C opt-level=0``/``1`` rustc shares the standard library's generics from their native
copies unless ``-Z share-generics=no`` is given: the library is built with it there (what
the note on a native generic says to do). The C program checks the gradient against
central differences and forward against reverse mode, and prints OK.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from irgrad.analysis.known_functions import allocator, deallocator, free_pointer_arg
from irgrad.analysis.rust_runtime import rust_allocator_fields, rust_runtime_name
from irgrad.frontends.rust import rust_native_hint
from warm_cli import irgrad_command

HERE = Path(__file__).resolve().parent / "rust" / "staticlib"
LEVELS = (0, 1, 2, 3)
RDL = "_RNvCsfLfy6EI15iL_7___rustc{}"


def _staticlib(level: int, out: Path, *, share_generics: bool = False) -> None:
    flags = ["-Z", "share-generics=no"] if level < 2 and not share_generics else []
    proc = subprocess.run(["rustc", "--crate-type=staticlib", "-C", f"opt-level={level}",
                           "-C", "linker-plugin-lto", "-C", "panic=abort", *flags,
                           str(HERE / "model.rs"), "-o", str(out)],
                          capture_output=True, text=True, check=False, timeout=600,
                          env={**os.environ, "RUSTC_BOOTSTRAP": "1"})
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.parametrize("level", LEVELS)
def test_rust_staticlib_from_c(level: int, tmp_path: Path) -> None:
    _staticlib(level, tmp_path / "libmodel.a")
    exe = tmp_path / "prog"
    proc = subprocess.run([*irgrad_command(), "cc", f"-O{level}", str(HERE / "main.c"),
                           "-L", str(tmp_path), "-lmodel", "-lm", "-o", str(exe)],
                          capture_output=True, text=True, check=False, timeout=600,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), run.stdout + run.stderr


def test_shared_generic_note_says_what_helps(tmp_path: Path) -> None:
    """Built the usual way at opt-level 0 (rustc shares the standard library's generics as
    native code), the link stops with a note that names the flag that helps, not the
    -C linker-plugin-lto the build already has."""
    _staticlib(0, tmp_path / "libmodel.a", share_generics=True)
    proc = subprocess.run([*irgrad_command(), "cc", "-O0", str(HERE / "main.c"),
                           "-L", str(tmp_path), "-lmodel", "-lm", "-o", str(tmp_path / "p")],
                          capture_output=True, text=True, check=False, timeout=600,
                          cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-4000:]
    assert "is defined only as native code" in proc.stderr
    assert "-Z share-generics=no" in proc.stderr, proc.stderr[-4000:]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("spelled", "shim"), [
    ("11___rdl_alloc", "__rust_alloc"), ("18___rdl_alloc_zeroed", "__rust_alloc_zeroed"),
    ("13___rdl_realloc", "__rust_realloc"), ("13___rdl_dealloc", "__rust_dealloc"),
])
def test_default_allocator_is_the_shim(spelled: str, shim: str) -> None:
    name = RDL.format(spelled)
    assert rust_runtime_name(name) == shim
    assert rust_runtime_name("__" + spelled.lstrip("0123456789_")) == shim  # unmangled
    if shim == "__rust_dealloc":
        assert free_pointer_arg(name) == 0
        d = deallocator(name)
        assert d is not None and d.size_arg == 1
        return
    a = allocator(name)
    assert a is not None and a.name == name
    fields = rust_allocator_fields(name)
    assert fields is not None and fields["free_function"] == RDL.format("13___rdl_dealloc")


def test_shims_keep_their_own_deallocator() -> None:
    fields = rust_allocator_fields(RDL.format("12___rust_alloc"))
    assert fields is not None and fields["free_function"] == RDL.format("14___rust_dealloc")
    plain = rust_allocator_fields("__rdl_realloc")
    assert plain is not None and plain["free_function"] == "__rdl_dealloc"


def test_native_generic_hint_names_share_generics() -> None:
    """A standard-library generic instantiated elsewhere (what a -O0 staticlib calls) gets
    the remedy that works; other symbols get none."""
    generic = ("_RNvMs2_NtCslNYArtu3iFV_5alloc7raw_vecNtB5_11RawVecInner10deallocate"
               "CsduwmD7cSIQq_5gimli")
    hint = rust_native_hint(generic)
    assert hint is not None and "-Z share-generics=no" in hint and "RUSTC_BOOTSTRAP=1" in hint
    for other in ("_RNvNtCslNYArtu3iFV_5alloc7raw_vec12handle_error",
                  "_RNvCs123_5mycrate3foo", "dgemm_", "_ZN3std2io5stdio6_print17h0123E"):
        assert rust_native_hint(other) is None, other
