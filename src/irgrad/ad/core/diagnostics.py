"""Source locations for AD diagnostics, read from an instruction's ``!dbg`` attachment.

Metadata is kept as raw text by :mod:`irgrad.ir` (``module.metadata`` holds lines like
``!25 = !DILocation(line: 3, column: 17, scope: !15)``). This module resolves
``!dbg !N`` -> ``DILocation`` (line, column, scope) -> the scope chain (DILexicalBlock,
DISubprogram) -> the ``DIFile`` (directory + filename).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from irgrad.errors import DifferentiationError, SourceLocation
from irgrad.ir.instructions import Instruction
from irgrad.ir.printer import print_instruction, value_ref

if TYPE_CHECKING:
    from irgrad.ir import Function, Module, Value

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


def loop_start_location(module: Module, loop_id: str | None) -> SourceLocation | None:
    """Where a loop starts in the source: the first ``DILocation`` of its ``!llvm.loop``
    node (``loop_id``, the latch branch's attachment), which front ends set to the loop
    statement. Unlike the header's first instruction, it is right after inlining (a
    header that begins with an inlined callee's code) and loop rotation."""
    ref = _ref(loop_id)
    if ref is None:
        return None
    table = _metadata_table(module)
    node = table.get(ref)
    if node is None:
        return None
    for m in re.finditer(r"!(\d+)", node):
        sub = int(m.group(1))
        if sub != ref and table.get(sub, "").startswith("!DILocation("):
            return location_from_dbg(module, f"!{sub}", _module_filename(module))
    return None


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


@contextlib.contextmanager
def located_at(inst: Instruction) -> Iterator[None]:
    """A :class:`DifferentiationError` raised in the block without a location gets the
    location of ``inst`` (the call whose derivative was being made)."""
    try:
        yield
    except DifferentiationError as exc:
        if exc.location is None:
            exc.location = source_location_of(inst)
        raise


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


def _node(table: dict[int, str], raw: str | None) -> str:
    ref = _ref(raw)
    return table.get(ref, "") if ref is not None else ""


def _column_of(filename: str, line: int, word: str) -> int:
    """The column of ``word`` on ``line`` of ``filename`` (0 when unreadable/absent)."""
    try:
        with open(filename, encoding="utf-8", errors="replace") as f:
            for k, text in enumerate(f, 1):
                if k == line:
                    return text.find(word) + 1 if word in text else 0
    except OSError:
        return 0
    return 0


def _find_definition(filename: str, word: str) -> SourceLocation | None:
    """The first line of ``filename`` where ``word`` is defined (followed by ``[``, ``=``
    or ``{``): a global variable's definition in C or C++ source."""
    pattern = re.compile(r"(?<![\w$])" + re.escape(word) + r"\s*(\[[^\]]*\]\s*)?[=\[{]")
    try:
        with open(filename, encoding="utf-8", errors="replace") as f:
            for k, text in enumerate(f, 1):
                m = pattern.search(text)
                if m:
                    return SourceLocation(filename, k, m.start() + 1)
    except OSError:
        return None
    return None


def source_name(name: str) -> str:
    """The identifier a (possibly C++-mangled) global's name was spelled with in source:
    ``_ZN2ns8registryE`` -> ``registry``; a C name as it is."""
    m = re.match(r"_Z[LNK]*", name)
    if not m or not name[m.end():m.end() + 1].isdigit():
        return name
    pos, last = m.end(), name
    while pos < len(name) and name[pos].isdigit():
        digits = re.match(r"\d+", name[pos:])
        assert digits is not None
        start = pos + digits.end()
        last = name[start:start + int(digits.group(0))]
        pos = start + int(digits.group(0))
    return last


def global_location(gv: Value, module: Module | None, word: str | None = None) -> SourceLocation:
    """Where global ``gv`` is defined: its debug info (``-g``), else the first definition
    of its name in the module's source files, else the module's file. ``word``: what to
    point at on that line (default: the global's name as spelled in source)."""
    default = _module_filename(module)
    name = source_name(getattr(gv, "name", "") or "")
    word = word or name
    if module is None:
        return SourceLocation(default)
    table = _metadata_table(module)
    for kind, raw in getattr(gv, "metadata", []) or []:
        node = _node(table, raw) if kind == "dbg" else ""
        var = _node(table, _field(node, "var"))
        if var.startswith("!DIGlobalVariable("):
            line = int(_field(var, "line") or 0)
            filename = _file_of_scope(table, _ref(_field(var, "file")), default)
            return SourceLocation(filename, line, _column_of(filename, line, word))
    files = [default] + [
        _file_of_scope(table, k, default) for k, node in table.items()
        if node.startswith("!DIFile(")]
    for filename in dict.fromkeys(files):
        found = _find_definition(filename, name)
        if found is not None:
            return found
    return SourceLocation(default)


def annotation_location(filename: str, line: int, word: str) -> SourceLocation:
    """The location of an ``annotate`` attribute (clang records file and line)."""
    return SourceLocation(filename, line, _column_of(filename, line, word))
def value_text(v: Value) -> str:
    """``v`` in IR syntax for a message: an instruction as printed (``%y = fmul double
    %x, %x``), any other value as its typed operand (``ptr @G``) -- never a Python repr."""
    try:
        if isinstance(v, Instruction):  # without its metadata attachments (!dbg !12)
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


def no_shadow_message(value: Value) -> str:
    """The error for a pointer whose shadow is needed but does not exist."""
    what = f"`{str(value).strip()}`" if isinstance(value, Instruction) else value_ref(value)
    return (
        f"no shadow for pointer {what}: derivatives are read or written through it, but "
        "it does not point into differentiated memory (it comes from an enzyme_const "
        "argument, a global, or a value irgrad cannot follow)"
    )


def variadic_callee_message(fn: Value) -> str:
    """The error for a call whose derivative needs a variadic function's derivative."""
    return (
        f"Cannot differentiate a call of {value_ref(fn)}: it is variadic (its `...` "
        "arguments are read with va_arg, which carries no derivatives); pass the values "
        "in an array or as fixed parameters"
    )
