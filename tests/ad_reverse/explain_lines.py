"""Reading the explain report in tests: which loads of a marked source line were taped,
and which were re-read, recomputed or copied instead (with the report's reason)."""

from __future__ import annotations

from pathlib import Path

import irgrad


def report_of(tmp_path: Path, source: str, level: int, *derivatives: str) -> str:
    """The explain report of ``source`` (C) at ``-O<level>``, keeping only the
    derivatives of the named functions."""
    src = tmp_path / "prog.c"
    src.write_text(source)
    return "\n".join(r for r in irgrad.explain_ad(src, opt_level=level)
                     if any(f" of {name} " in r for name in derivatives))


def marked_loads(text: str, source: str, marker: str, kind: str = "load double"
                 ) -> tuple[list[str], list[tuple[str, str]]]:
    """The report's ``kind`` instructions located on the line of ``source`` containing
    ``marker``: those cached on the tape, and (line, reason) of those that were not."""
    line = next(k for k, ln in enumerate(source.splitlines(), 1) if marker in ln)
    where = f"prog.c:{line}:"
    cached, _, recomputed = text.partition("recomputed in the reverse pass")
    taped = [ln for ln in cached.splitlines() if where in ln and kind in ln
             and "copy of the range read by" not in ln]  # (a copy's bytes, listed too)
    lines = recomputed.splitlines()
    rest = [(ln, lines[k + 1] if k + 1 < len(lines) else "") for k, ln in enumerate(lines)
            if where in ln and kind in ln]
    return taped, rest
