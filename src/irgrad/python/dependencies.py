"""The files a compiled library depends on besides its sources: headers, Fortran
``include`` files, the other files of a Rust crate.

The disk cache (:mod:`irgrad.python.disk_cache`) records them with a hash of their
contents when it stores a library, and hashes them again before it reuses one, so an
edited header is a cache miss. Each front end is asked for the list where it can give
one: ``clang-22 -M`` (C, C++; exactly the headers the preprocessor opens) and ``rustc
--emit=dep-info`` (Rust). flang-22 has no such option, so Fortran sources are scanned for
``include '...'`` lines and ``#include "..."`` directives, followed recursively through
the source's directory and the ``-I`` directories.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from irgrad.toolchain import run_tool

_FORTRAN_INCLUDE = re.compile(
    r"""^\s*(?:\#\s*include\s*["<]([^">]+)[">]|include\s*['"]([^'"]+)['"])""",
    re.IGNORECASE | re.MULTILINE)


def source_dependencies(paths: Sequence[Path], language: str,
                        flags: Sequence[str]) -> list[Path]:
    """The files (other than ``paths``) that compiling ``paths`` as ``language`` with
    ``flags`` reads, sorted and without duplicates."""
    found: set[Path] = set()
    for path in paths:
        if language in ("c", "c++"):
            found.update(_clang_dependencies(path, language, flags))
        elif language == "fortran":
            found.update(_fortran_includes(path, flags))
        elif language == "rust":
            found.update(_rust_dependencies(path, flags))
    sources = {p.resolve() for p in paths}
    return sorted(p for p in found if p not in sources)


def _parse_make_rule(text: str) -> list[Path]:
    """The prerequisites of a Makefile rule as compilers write them (``out: a b \\``)."""
    text = text.replace("\\\n", " ")
    deps: list[Path] = []
    for line in text.splitlines():
        if ":" not in line or line.startswith("#"):
            continue
        _, _, rest = line.partition(": ")
        words = re.findall(r"(?:\\ |[^\s])+", rest)
        deps.extend(Path(w.replace("\\ ", " ")) for w in words)
    return deps


def _clang_dependencies(path: Path, language: str, flags: Sequence[str]) -> list[Path]:
    driver = "clang++" if language == "c++" else "clang"
    lang = "c++" if language == "c++" else "c"
    proc = run_tool(driver, ["-M", "-x", lang, *flags, str(path), "-MT", "unit",
                             "-Wno-unused-command-line-argument"],
                    what=f"{driver}-22 could not list the headers of {path}")
    return [p.resolve() for p in _parse_make_rule(proc.stdout.decode(errors="replace"))]


def _rust_dependencies(path: Path, flags: Sequence[str]) -> list[Path]:
    with tempfile.TemporaryDirectory(prefix="irgrad-rs-deps-") as tmp:
        out = Path(tmp) / "crate.d"
        run_tool("rustc", ["--crate-type=lib", f"--emit=dep-info={out}", *flags, str(path)],
                 what=f"rustc could not list the files of {path}")
        return [p.resolve() for p in _parse_make_rule(out.read_text(errors="replace"))]


def _fortran_includes(path: Path, flags: Sequence[str]) -> list[Path]:
    dirs = [Path(f[2:]) for f in flags if f.startswith("-I") and len(f) > 2]
    dirs += [Path(flags[i + 1]) for i, f in enumerate(flags[:-1]) if f == "-I"]
    found: list[Path] = []
    work = [path]
    seen: set[Path] = set()
    while work:
        p = work.pop()
        try:
            text = p.read_text(errors="replace")
        except OSError:
            continue
        for m in _FORTRAN_INCLUDE.finditer(text):
            name = m.group(1) or m.group(2)
            for d in (p.parent, *dirs):
                candidate = (d / name).resolve()
                if candidate.is_file():
                    if candidate not in seen:
                        seen.add(candidate)
                        found.append(candidate)
                        work.append(candidate)
                    break
    return found


__all__ = ["source_dependencies"]
