"""Error types shared by every part of irgrad.

Every error a user can cause carries a location (file, line, column when known) and
formats as ``file:line:col: error: message`` like a compiler diagnostic. The CLI prints
that line and exits with status 2; it never shows a traceback for these.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """A place in an input file (1-based line and column; 0 when unknown)."""

    filename: str = "<input>"
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        parts = [self.filename]
        if self.line:
            parts.append(str(self.line))
            if self.column:
                parts.append(str(self.column))
        return ":".join(parts)


class IRGradError(Exception):
    """Base class of every error irgrad reports to a user."""

    def __init__(self, message: str, location: SourceLocation | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def format(self) -> str:
        prefix = f"{self.location}: " if self.location is not None else ""
        return f"{prefix}error: {self.message}"

    def __str__(self) -> str:
        return self.format()


class IRParseError(IRGradError):
    """Text that is not valid LLVM IR (what was expected, and where)."""


class IRVerifyError(IRGradError):
    """A module that parses but breaks an IR rule (names the offending instruction)."""


class LLVMError(IRGradError):
    """LLVM (through llvmlite) rejected a module or failed to compile it."""


class ToolchainError(IRGradError):
    """A front end or system tool is missing or failed (clang-22, flang-22, rustc, ld)."""


class DifferentiationError(IRGradError):
    """Code that irgrad cannot differentiate: names function, instruction and source line."""


class UsageError(IRGradError):
    """Wrong use of the API or the command line."""
