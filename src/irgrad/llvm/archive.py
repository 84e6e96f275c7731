"""Reading ``ar`` archives (static libraries): regular and thin, GNU and BSD names.

What the link step needs from an archive is its members, in order, with their names and
bytes: :func:`read_archive`. A thin archive (``ar rcT``, ``llvm-ar --thin``) stores only
paths; its members are read from those files (relative to the archive's folder). The
archive's own symbol index is not used: symbols come from the members themselves, so an
archive made by an ``ar`` that cannot index LLVM bitcode (GNU ar without the LTO plugin)
works as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from irgrad.errors import SourceLocation, UsageError

ARCHIVE_MAGIC = b"!<arch>\n"
THIN_MAGIC = b"!<thin>\n"
_HEADER = 60


@dataclass(frozen=True)
class Member:
    """One member: its name as stored, its bytes, its position in the archive and, for a
    thin archive, the file that holds it."""

    name: str
    data: bytes
    index: int
    path: Path | None = None

    def describe(self, archive: str | Path) -> str:
        """``libx.a(member.o)``, the way linkers name archive members."""
        return f"{archive}({self.name})"


def is_archive(data: bytes) -> bool:
    return data[:8] in (ARCHIVE_MAGIC, THIN_MAGIC)


def read_archive(path: str | Path) -> list[Member]:
    """The members of archive ``path`` (symbol tables and the name table left out)."""
    archive = Path(path)
    try:
        data = archive.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read '{archive}': {exc.strerror}", SourceLocation(str(archive))) from None
    if not is_archive(data):
        raise UsageError("not an ar archive", SourceLocation(str(archive)))
    thin = data[:8] == THIN_MAGIC
    members: list[Member] = []
    long_names = b""
    pos = 8
    while pos + _HEADER <= len(data):
        header = data[pos : pos + _HEADER]
        if header[58:60] != b"`\n":
            raise _corrupt(archive, pos, "bad member header")
        raw_name = header[:16].decode("latin-1").rstrip(" ")
        try:
            size = int(header[48:58].decode("ascii").strip() or "0")
        except ValueError:
            raise _corrupt(archive, pos, "bad member size") from None
        body = pos + _HEADER
        special = raw_name in ("/", "//", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED")
        # thin archives store the data of the symbol and name tables only
        stored = size if (not thin or special) else 0
        if body + stored > len(data):
            raise _corrupt(archive, pos, "member runs past the end of the file")
        content = data[body : body + stored]
        pos = body + stored + (stored & 1)
        if raw_name == "//":
            long_names = content
            continue
        if special:
            continue
        name, content = _member_name(raw_name, content, long_names, archive)
        if thin:
            member_path = Path(name) if Path(name).is_absolute() else archive.parent / name
            try:
                content = member_path.read_bytes()
            except OSError as exc:
                raise UsageError(
                    f"member '{name}' of thin archive is missing: {exc.strerror}",
                    SourceLocation(str(archive)),
                ) from None
            members.append(Member(name, content, len(members), member_path))
        else:
            members.append(Member(name, content, len(members)))
    return members


def _member_name(raw: str, content: bytes, long_names: bytes, archive: Path) -> tuple[str, bytes]:
    if raw.startswith("#1/"):  # BSD: the name follows the header
        length = int(raw[3:])
        return content[:length].rstrip(b"\0").decode("utf-8", "replace"), content[length:]
    if raw.startswith("/") and raw[1:].isdigit():  # GNU: offset into the name table
        offset = int(raw[1:])
        end = long_names.find(b"\n", offset)
        name = long_names[offset : end if end >= 0 else len(long_names)].decode("utf-8", "replace")
        return name.rstrip("/"), content
    return raw.removesuffix("/"), content


def _corrupt(archive: Path, offset: int, what: str) -> UsageError:
    return UsageError(f"malformed archive: {what} at byte {offset}", SourceLocation(str(archive)))


__all__ = ["ARCHIVE_MAGIC", "THIN_MAGIC", "Member", "is_archive", "read_archive"]
