"""``irgrad.explain_ad``: the explain report of a program's derivatives from Python.

The same report as ``irgrad cc --explain-ad`` / ``irgrad opt --explain-ad``: for each
reverse-mode derivative the program asks for (its ``__enzyme_*`` calls), what is cached on
the tape (source line, bytes per execution, totals for trip counts known at compile time),
what is recomputed and why, and the tape's peak size.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from irgrad.errors import UsageError


def explain_ad(source: str | Path, *, language: str | None = None, opt_level: int = 2,
               flags: Sequence[str] = ()) -> list[str]:
    """The explain reports (one string per derivative) of a source file (C, C++, Fortran,
    Rust or LLVM IR, by suffix or ``language=``), or of LLVM IR given as a string."""
    from irgrad.frontends import compile_source
    from irgrad.frontends.compile_step import LINE_TABLES
    from irgrad.llvm.load import parse_llvm
    from irgrad.pipeline import PipelineOptions, run_pipeline

    if isinstance(opt_level, bool) or opt_level not in (0, 1, 2, 3):
        raise UsageError(f"opt_level must be 0..3, not {opt_level!r}")
    reports: list[str] = []
    options = PipelineOptions(opt_level=opt_level,
                              explain_sink=lambda r: reports.append(r.render()))
    text = str(source)
    if isinstance(source, str) and ("\n" in text or "define " in text):
        module = parse_llvm(text, "<string>")  # IR text
        name = "<string>"
    else:
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"no such file: '{text[:60]}'")
        lang = language or None
        extra = [] if lang in ("ir", "ll") or path.suffix in (".ll", ".bc", ".rs") else [
            LINE_TABLES]
        module = compile_source(path, language=lang, opt_level=opt_level,
                                flags=[*flags, *extra], for_ad=True, host=True)
        name = str(path)
    run_pipeline(module, filename=name, options=options)
    return reports


__all__ = ["explain_ad"]
