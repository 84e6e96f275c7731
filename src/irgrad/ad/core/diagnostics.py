"""Source locations for AD diagnostics, read from an instruction's ``!dbg`` attachment.

Metadata is kept as raw text by :mod:`irgrad.ir` (``module.metadata`` holds lines like
``!25 = !DILocation(line: 3, column: 17, scope: !15)``). This module resolves
``!dbg !N`` -> ``DILocation`` (line, column, scope) -> the scope chain (DILexicalBlock,
DISubprogram) -> the ``DIFile`` (directory + filename).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from irgrad.errors import SourceLocation
from irgrad.ir.instructions import Instruction as _Instruction
from irgrad.ir.printer import print_instruction, value_ref

if TYPE_CHECKING:
    from irgrad.ir import Function, Instruction, Module, Value

_DEF = re.compile(r"^\s*!(\d+)\s*=\s*(?:distinct\s+)?(.*)$")
_ATTACHMENTS = re.compile(r"(?:,\s*![\w.]+\s+!\d+)+$")


def _metadata_table(module: Module) -> dict[int, str]:
    """``N -> raw node text`` for the module's numbered metadata (only read for errors)."""
    table: dict[int, str] = {}
    for line in module.metadata:
        m = _DEF.match(line)
        if m:
            table[int(m.group(1))] = m.group(2)
    return table


def _field(node: str, name: str) -> str | None:
    """The raw value of ``name:`` in a specialized metadata node (``line: 3`` -> ``3``)."""
    m = re.search(r"[(,]\s*" + re.escape(name) + r":\s*(\"(?:[^\"\\]|\\.)*\"|[^,)]+)", node)
    if not m:
        return None
    return m.group(1).strip()


def _ref(value: str | None) -> int | None:
    if value is None:
        return None
    m = re.fullmatch(r"!(\d+)", value.strip())
    return int(m.group(1)) if m else None


def _unquote(value: str | None) -> str:
    if value is None:
        return ""
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] == '"':
        v = v[1:-1]
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), v)


def _file_of_scope(table: dict[int, str], scope: int | None, default: str) -> str:
    seen: set[int] = set()
    while scope is not None and scope not in seen:
        seen.add(scope)
        node = table.get(scope)
        if node is None:
            break
        if node.startswith("!DIFile("):
            name = _unquote(_field(node, "filename"))
            directory = _unquote(_field(node, "directory"))
            if directory and not os.path.isabs(name):
                return os.path.join(directory, name)
            return name or default
        file_ref = _ref(_field(node, "file"))
        if file_ref is not None and file_ref != scope:
            scope = file_ref
            continue
        scope = _ref(_field(node, "scope"))
    return default


def location_from_dbg(module: Module, dbg: str | None, default_file: str) -> SourceLocation | None:
    """Resolve a raw ``!N`` (or inline ``!DILocation(...)``) to file:line:column."""
    if not dbg:
        return None
    table = _metadata_table(module)
    text = dbg.strip()
    ref = _ref(text)
    node = table.get(ref) if ref is not None else text
    if node is None or "DILocation(" not in node:
        return None
    line = int(_field(node, "line") or 0)
    column = int(_field(node, "column") or 0)
    filename = _file_of_scope(table, _ref(_field(node, "scope")), default_file)
    return SourceLocation(filename, line, column)


def _module_filename(module: Module | None) -> str:
    """The file a location without debug info names: the file irgrad read the module
    from (``prog.ll``, ``<stdin>``), else the source the module says it came from."""
    if module is None:
        return "<input>"
    read = getattr(module, "name", None)
    if read and (read == "<stdin>" or os.path.isfile(read)):
        return read
    return module.source_filename or read or "<input>"


def source_location_of(inst: Instruction, module: Module | None = None) -> SourceLocation:
    """Where ``inst`` came from: its ``!dbg`` location, else the source file of the module."""
    if module is None:
        fn = inst.function
        module = fn.parent if fn is not None else None
    default = _module_filename(module)
    if module is not None:
        loc = location_from_dbg(module, inst.debug_loc, default)
        if loc is not None:
            return loc
    return SourceLocation(default)


def function_location(fn: Function) -> SourceLocation:
    """The location of a function's definition (its ``!dbg`` DISubprogram), if any."""
    module = fn.parent
    default = _module_filename(module)
    if module is None:
        return SourceLocation(default)
    table = _metadata_table(module)
    for kind, raw in getattr(fn, "metadata", []) or []:
        if kind == "dbg":
            ref = _ref(raw)
            node = table.get(ref) if ref is not None else None
            if node and node.startswith("!DISubprogram("):
                line = int(_field(node, "line") or 0)
                filename = _file_of_scope(table, _ref(_field(node, "file")), default)
                return SourceLocation(filename, line, 0)
    return SourceLocation(default)


def value_text(v: Value) -> str:
    """``v`` in IR syntax for a message: an instruction as printed (``%y = fmul double
    %x, %x``), any other value as its typed operand (``ptr @G``) -- never a Python repr."""
    try:
        if isinstance(v, _Instruction):  # without its metadata attachments (!dbg !12)
            return _ATTACHMENTS.sub("", print_instruction(v).strip())
        return f"{v.type} {value_ref(v)}"
    except Exception:  # a message must not fail: fall back to the name
        name = getattr(v, "name", None)
        return f"%{name}" if name else type(v).__name__


def mixed_activity_store_message(value: Value) -> str:
    """The error for an inactive pointer stored into memory that has a shadow."""
    return (
        f"inactive pointer {value_ref(value)} stored into memory that also holds active pointers (it "
        "has a shadow): the shadow of the stored pointer is unknown, so derivatives read or "
        "written through it later would be wrong (Enzyme's 'runtime activity' case); pass "
        "the pointer with enzyme_dup and a zero-filled shadow"
    )
