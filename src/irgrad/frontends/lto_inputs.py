"""The link step's inputs, resolved the way a linker resolves them.

Every input is classified by its contents: LLVM bitcode (``irgrad cc -c``, ``clang -flto
-c``, ``flang -flto -c``, rustc ``-C linker-plugin-lto``), an ``ar`` archive (regular or
thin, members of either kind), a shared library, or anything else native (objects,
linker scripts). ``-lNAME`` is looked up in the ``-L`` folders (a shared library first,
unless ``-static``), as the linker does.

Symbols are resolved in command-line order: objects are always linked; an archive member
is linked only when it defines a symbol that is still undefined at that point (repeated
until nothing changes), so exactly the members a linker would take end up in the
program. The chosen bitcode goes into one module for AD; the system linker gets the
native inputs unchanged, with archives that held bitcode replaced by archives of their
native members only.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from irgrad.errors import SourceLocation, UsageError
from irgrad.llvm.archive import Member, is_archive, read_archive
from irgrad.llvm.load import is_bitcode
from irgrad.llvm.symbols import SymbolTable, archive_symbols, file_symbols
from irgrad.toolchain import run_tool

_ELF_MAGIC = b"\x7fELF"
LTO_OBJECT = "<irgrad-lto-object>"  # where the differentiated module goes on the link line


@dataclass
class BitcodeUnit:
    """One bitcode object chosen for the link: its display name and bytes."""

    name: str
    data: bytes
    symbols: SymbolTable


@dataclass
class ArchiveInput:
    path: Path
    members: list[Member]
    tables: list[SymbolTable]
    arg: str  # as given on the command line (a path, or -lNAME)

    def has_bitcode(self) -> bool:
        return any(is_bitcode(m.data) for m in self.members)


@dataclass
class Item:
    kind: str  # bitcode | archive | shared | native | flag
    arg: str
    unit: BitcodeUnit | None = None
    archive: ArchiveInput | None = None
    path: Path | None = None


@dataclass
class LinkPlan:
    """What the link step does: the bitcode units to link (in order), the system linker's
    arguments (with :data:`LTO_OBJECT` where the differentiated module goes), and where
    each symbol that exists only as native code is defined."""

    units: list[BitcodeUnit] = field(default_factory=list)
    system_args: list[str] = field(default_factory=list)
    native_definitions: dict[str, str] = field(default_factory=dict)
    undefined: set[str] = field(default_factory=set)


def classify_file(arg: str) -> Item:
    path = Path(arg)
    try:
        with path.open("rb") as f:
            head = f.read(18)
    except OSError as exc:
        raise UsageError(f"no such file or directory: '{arg}' ({exc.strerror})",
                         SourceLocation(arg)) from None
    if is_bitcode(head):
        data = path.read_bytes()
        return Item("bitcode", arg, unit=BitcodeUnit(arg, data, file_symbols(path)))
    if is_archive(head):
        members = read_archive(path)
        tables = archive_symbols(path, [m.name for m in members])
        return Item("archive", arg, archive=ArchiveInput(path, members, tables, arg))
    if head[:4] == _ELF_MAGIC and head[16:18] in (b"\x03\x00", b"\x00\x03"):  # ET_DYN
        return Item("shared", arg, path=path)
    return Item("native", arg, path=path)


def find_library(name: str, dirs: list[str], static: bool) -> Path | None:
    """``-lNAME`` in the ``-L`` folders (and ``$LIBRARY_PATH``); ``-l:file`` names a file."""
    search = [*dirs, *filter(None, os.environ.get("LIBRARY_PATH", "").split(os.pathsep))]
    names = [name[1:]] if name.startswith(":") else (
        [f"lib{name}.a"] if static else [f"lib{name}.so", f"lib{name}.a"])
    for folder in search:
        for candidate in names:
            path = Path(folder) / candidate
            if path.is_file():
                return path
    return None


def plan_link(items: list[Item], *, shared: bool, tmp: Path) -> LinkPlan:
    """Resolve symbols over ``items`` (in order) and build the :class:`LinkPlan`."""
    plan = LinkPlan()
    defined: set[str] = set()
    undefined: set[str] = set() if shared else {"main"}

    def take(table: SymbolTable, origin: str | None) -> None:
        defined.update(table.defined)
        undefined.difference_update(table.defined)
        undefined.update(table.undefined - defined)
        if origin is not None:
            for symbol in table.defined:
                plan.native_definitions.setdefault(symbol, origin)

    for item in items:
        if item.kind == "bitcode" and item.unit is not None:
            take(item.unit.symbols, None)
            plan.units.append(item.unit)
        elif item.kind == "archive" and item.archive is not None:
            archive = item.archive
            taken = [False] * len(archive.members)
            changed = True
            while changed:
                changed = False
                for i, (member, table) in enumerate(zip(archive.members, archive.tables, strict=True)):
                    if taken[i] or not (table.defined & undefined):
                        continue
                    taken[i] = changed = True
                    if is_bitcode(member.data):
                        take(table, None)
                        plan.units.append(BitcodeUnit(member.describe(archive.path), member.data, table))
                    else:
                        take(table, member.describe(archive.path))
            for member, table in zip(archive.members, archive.tables, strict=True):
                if not is_bitcode(member.data):  # defined there even if ld takes it later
                    for symbol in table.defined:
                        plan.native_definitions.setdefault(symbol, member.describe(archive.path))
        elif item.kind in ("native", "shared") and item.path is not None and (
            item.path.suffix in (".o", ".obj", ".so") or ".so." in item.path.name
        ):
            take(file_symbols(item.path, dynamic=item.kind == "shared"), str(item.path))
    plan.undefined = undefined
    _system_args(plan, items, tmp)
    return plan


def _system_args(plan: LinkPlan, items: list[Item], tmp: Path) -> None:
    placed = False
    for n, item in enumerate(items):
        if item.kind == "bitcode":
            if not placed:
                plan.system_args.append(LTO_OBJECT)
                placed = True
        elif item.kind == "archive" and item.archive is not None and item.archive.has_bitcode():
            if not placed and any(u.name.startswith(f"{item.archive.path}(") for u in plan.units):
                plan.system_args.append(LTO_OBJECT)
                placed = True
            native = native_only_archive(item.archive, tmp / f"native-{n}")
            if native is not None:
                plan.system_args.append(str(native))
        else:
            plan.system_args.append(item.arg)
    if not placed and plan.units:
        plan.system_args.insert(0, LTO_OBJECT)


def native_only_archive(archive: ArchiveInput, folder: Path) -> Path | None:
    """A copy of ``archive`` without its bitcode members (None when nothing is left)."""
    native = [m for m in archive.members if not is_bitcode(m.data)]
    if not native:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for member in native:
        if member.path is not None:
            files.append(str(member.path))
            continue
        where = folder / f"m{member.index}"
        where.mkdir()
        (where / Path(member.name).name).write_bytes(member.data)
        files.append(str(where / Path(member.name).name))
    out = folder / f"lib{archive.path.stem.removeprefix('lib')}-native.a"
    run_tool("llvm-ar", ["qcs", str(out), *files], what=f"llvm-ar-22 could not write {out}")
    return out


def make_temp_dir() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="irgrad-link-")


__all__ = [
    "LTO_OBJECT",
    "BitcodeUnit",
    "Item",
    "LinkPlan",
    "classify_file",
    "find_library",
    "plan_link",
]
