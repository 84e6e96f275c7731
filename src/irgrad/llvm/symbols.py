"""Symbol tables of link inputs (native objects, LLVM bitcode, archives, shared libraries).

``llvm-nm-22`` reads all of them (bitcode through LLVM's IR symbol table), so one tool run
per input file gives what a linker needs to resolve symbols: which global symbols a
file (or each archive member) defines and which it leaves undefined.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from irgrad.toolchain import run_tool

# llvm-nm's letters: U undefined; w/v weak undefined (never pull archive members);
# upper case = global definition, except the GNU extensions i (ifunc) and u (unique)
_UNDEFINED = "U"
_WEAK_UNDEFINED = "wv"
_GLOBAL_LOWER = "iu"


@dataclass
class SymbolTable:
    """The global symbols one object defines and the ones it needs."""

    defined: set[str] = field(default_factory=set)
    undefined: set[str] = field(default_factory=set)

    def add(self, name: str, kind: str) -> None:
        if kind == _UNDEFINED:
            self.undefined.add(name)
        elif kind in _WEAK_UNDEFINED:
            return
        elif kind.isupper() or kind in _GLOBAL_LOWER:
            self.defined.add(name)


def file_symbols(path: str | Path, *, dynamic: bool = False) -> SymbolTable:
    """The symbol table of one object file (native or bitcode), or of a shared library's
    dynamic symbols (``dynamic=True``)."""
    table = SymbolTable()
    for _, name, kind in _nm(path, dynamic=dynamic):
        table.add(name, kind)
    return table


def archive_symbols(path: str | Path, member_names: Sequence[str]) -> list[SymbolTable]:
    """One symbol table per member of archive ``path``; ``member_names`` are the members'
    names in archive order (duplicates allowed), as :func:`irgrad.llvm.archive.read_archive`
    gives them."""
    tables = [SymbolTable() for _ in member_names]
    positions: dict[str, list[int]] = defaultdict(list)
    for i, name in enumerate(member_names):
        positions[name].append(i)
    last = -1
    current: str | None = None
    slot = -1
    for member, name, kind in _nm(path, dynamic=False):
        if member != current:
            current = member
            later = [i for i in positions.get(member or "", []) if i > last]
            slot = later[0] if later else -1
            last = max(last, slot)
        if slot >= 0:
            tables[slot].add(name, kind)
    return tables


def _nm(path: str | Path, *, dynamic: bool) -> list[tuple[str | None, str, str]]:
    """(member or None, symbol, kind letter) for every symbol llvm-nm lists."""
    args = ["-P", "-A", "--no-sort"]
    if dynamic:
        args.append("-D")
    proc = run_tool("llvm-nm", [*args, str(path)], what=f"llvm-nm-22 could not read {path}")
    prefix = str(path)
    rows: list[tuple[str | None, str, str]] = []
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        label, sep, rest = line.partition(": ")
        if not sep:
            continue
        member: str | None = None
        if label.startswith(prefix + "[") and label.endswith("]"):
            member = label[len(prefix) + 1 : -1]
        fields = rest.split()
        if len(fields) >= 2:
            rows.append((member, fields[0], fields[1]))
    return rows


__all__ = ["SymbolTable", "archive_symbols", "file_symbols"]
