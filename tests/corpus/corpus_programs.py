"""The round-trip corpus: our own C, C++, Fortran and Rust programs and how to compile them.

Each :class:`Case` is one program at one optimization level (optionally with ``-g``). Its
LLVM 22 text comes from irgrad's front end (``irgrad.frontends.compile_to_ir`` with
``for_ad=False``, i.e. what ``clang-22 -O{n} -S -emit-llvm`` and friends print).
Shared by ``test_roundtrip.py`` and ``gen_ll.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent

# directory -> (file suffix, front-end language name)
LANGUAGE_DIRS: dict[str, tuple[str, str]] = {
    "c": (".c", "c"),
    "cpp": (".cpp", "c++"),
    "fortran": (".f90", "fortran"),
    "rust": (".rs", "rust"),
}

OPT_LEVELS = (0, 2, 3)

# programs that are also compiled with -g (debug records, DI metadata): (dir/stem, levels)
DEBUG_VARIANTS: dict[str, tuple[int, ...]] = {
    "c/debug_kernel": (0, 2, 3),
    "c/particles": (0, 2),
    "c/recursion": (0,),
    "c/complex_fft": (2,),
    "cpp/templates": (0, 2),
    "cpp/exceptions": (2,),
    "fortran/stencil_loops": (0, 2),
    "rust/iterators": (0, 2),
}

# minimum number of programs per language the corpus must hold (the requirement)
MINIMUM_PROGRAMS = {"c": 30, "cpp": 5, "fortran": 5, "rust": 5}


@dataclass(frozen=True)
class Case:
    """One program compiled at one optimization level, with or without debug info."""

    source: Path
    language: str
    opt_level: int
    debug: bool = False

    @property
    def program(self) -> str:
        """``dir/stem``, e.g. ``c/matmul``."""
        return f"{self.source.parent.name}/{self.source.stem}"

    @property
    def id(self) -> str:
        return f"{self.program}-O{self.opt_level}{'-g' if self.debug else ''}"

    @property
    def flags(self) -> tuple[str, ...]:
        return ("-g",) if self.debug else ()


def programs(directory: str) -> list[Path]:
    """The source files of one language directory, sorted."""
    suffix, _ = LANGUAGE_DIRS[directory]
    return sorted((CORPUS_DIR / directory).glob(f"*{suffix}"))


def all_cases() -> list[Case]:
    """Every (program, level) case, plus the -g variants, in a stable order."""
    cases: list[Case] = []
    for directory, (_, language) in LANGUAGE_DIRS.items():
        for src in programs(directory):
            for level in OPT_LEVELS:
                cases.append(Case(src, language, level))
            key = f"{directory}/{src.stem}"
            for level in DEBUG_VARIANTS.get(key, ()):
                cases.append(Case(src, language, level, debug=True))
    return cases


def compile_case(case: Case) -> str:
    """LLVM 22 IR text of ``case`` produced by irgrad's front end (the real optimized output)."""
    from irgrad.frontends import compile_to_ir

    return compile_to_ir(
        [case.source],
        language=case.language,
        opt_level=case.opt_level,
        flags=case.flags,
        for_ad=False,
    )
