"""Reading LLVM modules (.ll text or .bc bitcode) through llvmlite, always verified.

LLVM's diagnostics (``<string>:3:14: error: expected type``) become
:class:`~irgrad.errors.LLVMError` with the real file name, line and column; a module that
fails LLVM's verifier becomes an LLVMError naming what the verifier said. Nothing returned
from here can crash LLVM's passes or JIT because of malformed IR.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import llvmlite.binding as llvm

from irgrad.errors import LLVMError, SourceLocation
from irgrad.llvm.target import initialize

_BITCODE_MAGIC = b"BC\xc0\xde"
_BITCODE_WRAPPER_MAGIC = b"\xde\xc0\x17\x0b"
_DIAG_RE = re.compile(r"^(?:<string>|[^:\n]*):(\d+):(\d+): (?:error|warning): (.*)$", re.M)


def is_bitcode(data: bytes) -> bool:
    """True when ``data`` starts like LLVM bitcode (raw or with the wrapper header)."""
    return data[:4] in (_BITCODE_MAGIC, _BITCODE_WRAPPER_MAGIC)


def parse_llvm(data: str | bytes, filename: str = "<input>") -> llvm.ModuleRef:
    """Parse ``data`` (IR text, or bitcode bytes) into a verified llvmlite module."""
    initialize()
    if isinstance(data, bytes) and is_bitcode(data):
        try:
            module = llvm.parse_bitcode(data)
        except RuntimeError as exc:
            raise LLVMError(_bitcode_message(str(exc)), SourceLocation(filename)) from None
        verify(module, filename)
        return module
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise LLVMError(
                "input is neither LLVM bitcode nor UTF-8 LLVM IR text", SourceLocation(filename)
            ) from None
    else:
        text = data
    try:
        module = llvm.parse_assembly(text)
    except RuntimeError as exc:
        raise _text_error(str(exc), filename) from None
    verify(module, filename, source_text=text)
    return module


def load_file(path: str | Path) -> llvm.ModuleRef:
    """Read and parse an .ll/.bc file; ``"-"`` reads standard input."""
    if str(path) == "-":
        return parse_llvm(sys.stdin.buffer.read(), "<stdin>")
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise LLVMError(f"cannot read '{p}': {exc.strerror}", SourceLocation(str(p))) from None
    return parse_llvm(data, str(p))


def verify(module: llvm.ModuleRef, filename: str = "<input>", *, source_text: str = "") -> None:
    """Run LLVM's verifier; a failure becomes an LLVMError quoting LLVM's message.

    When the verifier quotes an instruction that appears once in ``source_text``, the
    error points at that line.
    """
    try:
        module.verify()
    except RuntimeError as exc:
        message = str(exc).strip()
        location = _locate_quoted_line(message, source_text, filename)
        raise LLVMError(f"LLVM verifier: {message}", location) from None


def module_text(module: llvm.ModuleRef) -> str:
    """The module as LLVM 22 IR text."""
    return str(module)


def _text_error(raw: str, filename: str) -> LLVMError:
    match = _DIAG_RE.search(raw)
    if match is None:
        body = raw.replace("LLVM IR parsing error", "").strip()
        return LLVMError(body or "cannot parse LLVM IR", SourceLocation(filename))
    line, col, message = int(match.group(1)), int(match.group(2)), match.group(3).strip()
    snippet = raw[match.end() :].strip("\n")
    text = f"{message}\n{snippet}" if snippet.strip() else message
    return LLVMError(text, SourceLocation(filename, line, col))


def _bitcode_message(raw: str) -> str:
    body = raw.replace("LLVM bitcode parsing error", "").strip()
    return f"cannot read LLVM bitcode: {body}" if body else "cannot read LLVM bitcode"


def _locate_quoted_line(message: str, source_text: str, filename: str) -> SourceLocation:
    if source_text:
        lines = source_text.splitlines()
        for quoted in message.splitlines()[1:]:
            needle = quoted.strip()
            if len(needle) < 4:
                continue
            hits = [i for i, line in enumerate(lines) if line.strip() == needle]
            if len(hits) == 1:
                row = hits[0]
                col = len(lines[row]) - len(lines[row].lstrip()) + 1
                return SourceLocation(filename, row + 1, col)
    return SourceLocation(filename)
