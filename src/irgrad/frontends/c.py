"""C and C++ through clang-22 / clang++-22.

Enzyme's attributes reach the IR as annotations: clang drops attributes it does not know
before any IR exists (Enzyme adds them with a clang plugin), so for AD the compile step
predefines ``enzyme_inactive`` and ``enzyme_function_like(name)`` as the ``annotate``
attributes that Enzyme's plugin makes of them (:data:`ENZYME_ATTRIBUTE_MACROS`;
``<enzyme/enzyme.h>`` defines the same for plain clang). ``llvm.global.annotations`` then
carries them to :mod:`irgrad.ad.api.registrations`. An ``enzyme`` attribute clang still
drops (``enzyme_nofree``, which is also a marker's name and cannot be a macro, or the
``[[enzyme::...]]`` spellings) is an error that says how to write it
(:func:`check_enzyme_attributes`).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from irgrad.errors import SourceLocation, UsageError
from irgrad.toolchain import run_tool

ENZYME_ATTRIBUTE_MACROS = (
    '-Denzyme_inactive=annotate("enzyme_inactive")',
    '-Denzyme_inactive_noblock=annotate("enzyme_inactive_noblock")',
    '-Denzyme_shadow(shadow)=annotate("enzyme_shadow", &(shadow))',
    '-Denzyme_function_like(name)=annotate("enzyme_function_like=" name)',
)
_DROPPED = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): warning: unknown attribute "
    r"'(?P<name>(?:enzyme_|enzyme::)\w+)' ignored", re.M)


def clang_ir_flags(opt_level: int, for_ad: bool) -> list[str]:
    """clang flags that give IR good for AD (``for_ad``) or clang's optimized IR."""
    if not for_ad:
        return [f"-O{opt_level}"]
    if opt_level == 0:
        # plain -O0, exactly what users pipe into `irgrad opt`: clang marks every function
        # `optnone noinline` (with -disable-O0-optnone it would still add `noinline`, which
        # then could not be told from the user's own); the pre-AD step strips the pair.
        return ["-O0", "-fno-discard-value-names", *ENZYME_ATTRIBUTE_MACROS]
    return [f"-O{opt_level}", "-Xclang", "-disable-llvm-passes", "-fno-discard-value-names",
            *ENZYME_ATTRIBUTE_MACROS]


def check_enzyme_attributes(stderr: bytes | str) -> None:
    """An ``enzyme`` attribute clang reported as unknown (and dropped) is an error: it
    would be silently ignored."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    m = _DROPPED.search(text)
    if m is None:
        return
    name = m.group("name").replace("enzyme::", "enzyme_")
    raise UsageError(
        f"the attribute '{m.group('name')}' does not reach irgrad: clang drops attributes "
        f"it does not know; write __attribute__((annotate(\"{name}\"))) instead "
        "(irgrad predefines enzyme_inactive, enzyme_inactive_noblock and "
        "enzyme_function_like(\"name\"))",
        SourceLocation(m.group("file"), int(m.group("line")), int(m.group("col"))))


def compile_c(
    source: str | Path,
    *,
    cplusplus: bool = False,
    opt_level: int = 2,
    flags: Sequence[str] = (),
    for_ad: bool = True,
) -> bytes:
    """Bitcode of one C (or C++) translation unit."""
    driver = "clang++" if cplusplus else "clang"
    with tempfile.TemporaryDirectory(prefix="irgrad-cc-") as tmp:
        out = Path(tmp) / (Path(source).stem + ".bc")
        args = ["-c", "-emit-llvm", *clang_ir_flags(opt_level, for_ad), *flags]
        args += [str(source), "-o", str(out)]
        proc = run_tool(driver, args, what=f"{driver}-22 could not compile {source}")
        if for_ad:
            check_enzyme_attributes(proc.stderr)
        return out.read_bytes()
