"""Tokenizer for LLVM IR text: one compiled regular expression, run by ``findall``.

Tokens are plain strings (no per-token objects); the parser classifies them by their first
character. Positions are recomputed only when an error needs them (:func:`token_offset`).
Some constructs are single raw tokens because they are kept as text: top-level metadata
lines (``!0 = ...``), attribute group lines, ``uselistorder`` lines, debug records
(``#dbg_value(...)``), inline specialized metadata (``!DIExpression(...)``) and
``keyword(...)`` groups such as ``memory(argmem: readwrite)`` or ``range(i32 0, 10)``.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager

_TOKEN_PATTERN = r"""
[ \t\r\n]*                                           # whitespace is part of the match
(?: ;[^\n]*                                          # comment: empty group, dropped
| (  [%@$][-\w.$]+                                   # local / global / comdat name
   | ^![^\n]*                                        # top-level metadata line (raw)
   | [%@$!]?"[^"]*":?                                # string / quoted name / quoted label
   | c"[^"]*"                                        # c"..." array
   | c?"[^"]*                                        # unterminated string (error)
   | [su]0x[0-9A-Fa-f]+                              # hex integer
   | uselistorder(?:_bb)?[ \t][^\n]*                 # use-list order directive (raw)
   | ^attributes[ \t][^\n]*                          # attribute group line (raw)
   | [A-Za-z_][\w.]*(?:\((?:[^()\n"]|"[^"]*"|\([^()\n]*\))*\)|:(?![\w:])
                       |[-$][-\w.$]*:(?![\w:]))?
                                                     # keyword, keyword(...) group, label:
   | 0x[KLMHR]?[0-9A-Fa-f]+                          # hex float
   | \d+:(?![\w:])                                   # numbered label
   | -?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?                # number
   | \{[ \t]*(?:;[^\n]*)?\n(?:[^\n]*\n)*?\}          # function body (one raw token)
   | \#dbg_\w+\([^\n]*\)                             # debug record (raw)
   | \#\d+                                           # attribute group reference
   | ![A-Za-z]\w*\((?:[^()\n"]|"[^"]*"|\([^()\n]*\))*\)  # !DIExpression(...) etc.
   | ![-\w.$\\]+                                     # metadata name / number
   | !\{                                             # inline metadata node start
   | \.\.\.                                          # varargs
   | [-\w.$]+:(?![\w:])                              # other labels
   | \S                                              # punctuation / anything else
  )
)
"""

TOKEN_RE = re.compile(_TOKEN_PATTERN, re.M | re.X)

KEYWORD_GROUP_RE = re.compile(r"([A-Za-z_][\w.]*)\((.*)\)\Z", re.S)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building or walking many IR objects.

    IR graphs are full of reference cycles (values <-> uses), so allocation-triggered
    collections rescan the whole growing graph again and again; pausing them during a
    parse makes it several times faster. Nothing is leaked: collection resumes after.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[str]:
    """The tokens of ``text[start:end]`` (comments and whitespace dropped)."""
    if end is None:
        end = len(text)
    return list(filter(None, TOKEN_RE.findall(text, start, end)))


def token_offset(text: str, index: int, start: int = 0) -> int:
    """Character offset of token number ``index`` of ``tokenize(text, start)``."""
    k = 0
    last = len(text)
    for m in TOKEN_RE.finditer(text, start):
        if m.group(1):
            if k == index:
                return m.start(1)
            k += 1
    return last


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def split_keyword_group(token: str) -> tuple[str, str] | None:
    """``'memory(read)'`` -> ``('memory', 'read')``; None for other tokens."""
    m = KEYWORD_GROUP_RE.match(token)
    if m is None:
        return None
    return m.group(1), m.group(2)


def unescape(body: str) -> bytes:
    """Decode LLVM string escapes (``\\22``, ``\\\\``) into bytes."""
    if "\\" not in body:
        return body.encode("utf-8")
    out = bytearray()
    k = 0
    n = len(body)
    while k < n:
        c = body[k]
        if c == "\\" and k + 1 < n:
            if body[k + 1] == "\\":
                out.append(0x5C)
                k += 2
                continue
            if k + 2 < n and _is_hex(body[k + 1 : k + 3]):
                out.append(int(body[k + 1 : k + 3], 16))
                k += 3
                continue
        out.extend(c.encode("utf-8"))
        k += 1
    return bytes(out)


def _is_hex(s: str) -> bool:
    return len(s) == 2 and all(c in "0123456789abcdefABCDEF" for c in s)


def escape_bytes(data: bytes) -> str:
    """LLVM's spelling of bytes inside ``c"..."`` (printable ASCII except ``"`` and ``\\``)."""
    out = []
    for b in data:
        if 32 <= b < 127 and b != 0x22 and b != 0x5C:
            out.append(chr(b))
        else:
            out.append(f"\\{b:02X}")
    return "".join(out)


def unquote_name(token_body: str) -> str:
    """Name inside ``"..."`` after a sigil, with escapes decoded."""
    return unescape(token_body).decode("utf-8", errors="surrogateescape")


__all__ = [
    "TOKEN_RE",
    "escape_bytes",
    "gc_paused",
    "line_col",
    "split_keyword_group",
    "token_offset",
    "tokenize",
    "unescape",
    "unquote_name",
]
