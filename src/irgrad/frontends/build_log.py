"""What ``irgrad cc -v`` prints: every stage with its time, every tool command, and
cache hits and misses. Lines start with ``irgrad:`` so that build systems that parse a
compiler's ``-v`` output (CMake's implicit include/link directory detection) skip them."""

from __future__ import annotations

import contextlib
import shlex
import sys
import time
from collections.abc import Iterator, Sequence
from typing import TextIO


class BuildLog:
    """Stage and command log (silent unless ``verbose``)."""

    def __init__(self, verbose: bool, stream: TextIO | None = None) -> None:
        self.verbose = verbose
        self.stream = stream or sys.stderr

    def note(self, message: str) -> None:
        if self.verbose:
            print(f"irgrad: {message}", file=self.stream, flush=True)

    def command(self, argv: Sequence[str], seconds: float) -> None:
        """Observer for :func:`irgrad.toolchain.observe_commands`."""
        self.note(f"run ({_ms(seconds)}): {shlex.join(argv)}")

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a stage: ``irgrad: <name> (12.3 ms)`` when it ends."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.note(f"{name} ({_ms(time.perf_counter() - start)})")

    def cache(self, hit: bool, what: str, key: str) -> None:
        self.note(f"cache {'hit' if hit else 'miss'}: {what} [{key[:16]}]")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


__all__ = ["BuildLog"]
