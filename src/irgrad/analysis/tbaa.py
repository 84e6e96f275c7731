"""Reading the scalar type of a TBAA access tag (``!tbaa !9``) from the module's raw
metadata lines, for type analysis."""

from __future__ import annotations

import re
from collections.abc import Iterable

from irgrad.analysis.type_tree import INTEGER, POINTER, ConcreteType

_NODE_RE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!\{(.*)\}\s*$")
_OPERAND_RE = re.compile(r'!"((?:[^"\\]|\\.)*)"|!(\d+)|i64 (-?\d+)')

FLOAT_NAMES = {"double": "double", "float": "float", "long double": "x86_fp80",
               "__float128": "fp128", "_Float16": "half", "__fp16": "half"}
INTEGER_NAMES = frozenset([
    "int", "long", "long long", "short", "bool", "_Bool", "unsigned int", "unsigned long",
    "unsigned short", "__int128", "wchar_t", "char16_t", "char32_t",
])


class TBAATypes:
    """Maps a tag reference (``"!9"``) to a :class:`ConcreteType` or None."""

    def __init__(self, metadata_lines: Iterable[str]) -> None:
        self.nodes: dict[int, list[str | int]] = {}
        for line in metadata_lines:
            m = _NODE_RE.match(line.strip())
            if m is None:
                continue
            ops: list[str | int] = []
            for om in _OPERAND_RE.finditer(m.group(2)):
                if om.group(1) is not None:
                    ops.append(om.group(1))
                elif om.group(2) is not None:
                    ops.append(int(om.group(2)))
            self.nodes[int(m.group(1))] = ops
        self._cache: dict[str, ConcreteType | None] = {}

    def type_name(self, tag: str) -> str | None:
        """The access type's name of a tag (struct-path or old scalar form)."""
        if not tag.startswith("!") or not tag[1:].isdigit():
            return None
        ops = self.nodes.get(int(tag[1:]))
        if not ops:
            return None
        if isinstance(ops[0], str):  # old scalar tag: the type node itself
            return ops[0]
        if len(ops) >= 2 and isinstance(ops[1], int):
            access = self.nodes.get(ops[1])
            if access and isinstance(access[0], str):
                return access[0]
        return None

    def access_type(self, tag: str) -> ConcreteType | None:
        if tag in self._cache:
            return self._cache[tag]
        name = self.type_name(tag)
        ct: ConcreteType | None = None
        if name is not None:
            if name in FLOAT_NAMES:
                ct = ConcreteType.float(FLOAT_NAMES[name])
            elif name == "any pointer" or re.match(r"^(any )?p\d+ ", name) or name.endswith(" pointer"):
                ct = POINTER
            elif name in INTEGER_NAMES:
                ct = INTEGER
        self._cache[tag] = ct
        return ct


__all__ = ["TBAATypes"]
