"""Reading the scalar type of a TBAA access tag (``!tbaa !9``) from the module's raw
metadata lines, for type analysis."""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from typing import Any

from irgrad.analysis.type_tree import INTEGER, POINTER, ConcreteType, TypeTree

_POINTER_NAME_RE = re.compile(r"^p(\d+) (.+)$")
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
        # every operand, integers too: ("s", name) / ("n", node) / ("i", value)
        self.operands: dict[int, list[tuple[str, str | int]]] = {}
        for line in metadata_lines:
            m = _NODE_RE.match(line.strip())
            if m is None:
                continue
            ops: list[str | int] = []
            raw: list[tuple[str, str | int]] = []
            for om in _OPERAND_RE.finditer(m.group(2)):
                if om.group(1) is not None:
                    ops.append(om.group(1))
                    raw.append(("s", om.group(1)))
                elif om.group(2) is not None:
                    ops.append(int(om.group(2)))
                    raw.append(("n", int(om.group(2))))
                else:
                    raw.append(("i", int(om.group(3))))
            self.nodes[int(m.group(1))] = ops
            self.operands[int(m.group(1))] = raw
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


    def pointer_tree(self, tag: str) -> TypeTree | None:
        """What a loaded/stored pointer points to, from clang's pointer TBAA types
        (``"p1 double"``: a ``double *``, ``"p2 int"``: an ``int **``); None for other
        tags and for pointers to classes or ``char``."""
        name = self.type_name(tag)
        m = _POINTER_NAME_RE.match(name or "")
        if m is None:
            return None
        levels, inner = int(m.group(1)), m.group(2)
        if inner in FLOAT_NAMES:
            leaf: ConcreteType = ConcreteType.float(FLOAT_NAMES[inner])
        elif inner in INTEGER_NAMES:
            leaf = INTEGER
        else:
            return None
        tree = TypeTree()
        for k in range(1, levels + 1):
            tree.insert((-1,) * k, POINTER)
        tree.insert((-1,) * (levels + 1), leaf)
        return tree

    def access_node(self, tag: str) -> int | None:
        """The scalar type node a tag accesses: the tag's second operand (struct-path
        tags ``!{base, access, offset}``) or the tag itself (old scalar tags)."""
        if not tag.startswith("!") or not tag[1:].isdigit():
            return None
        node = int(tag[1:])
        ops = self.nodes.get(node)
        if not ops:
            return None
        if isinstance(ops[0], str):
            return node
        return ops[1] if len(ops) >= 2 and isinstance(ops[1], int) else None

    def _chain(self, node: int) -> list[int] | None:
        """``node`` and its ancestors up to the root (last), or None when a node on the
        way is not a scalar type node ``!{!"name", !parent, ...}`` or a root
        ``!{!"name"}``."""
        chain: list[int] = []
        while node not in chain and len(chain) < 64:
            chain.append(node)
            ops = self.nodes.get(node)
            if not ops or not isinstance(ops[0], str):
                return None
            if len(ops) == 1:
                return chain
            if not isinstance(ops[1], int):
                return None
            node = ops[1]
        return None

    def may_alias(self, a: str, b: str) -> bool:
        """May accesses with tags ``a`` and ``b`` touch the same bytes? Only when one's
        access type is the other's or an ancestor of it (``omnipotent char`` is the
        ancestor of every type), as LLVM's type-based alias analysis decides; always when
        a tag cannot be read or the tags come from different type systems (other roots,
        e.g. flang's per-function trees)."""
        na, nb = self.access_node(a), self.access_node(b)
        if na is None or nb is None:
            return True
        ca, cb = self._chain(na), self._chain(nb)
        if ca is None or cb is None or ca[-1] != cb[-1]:
            return True
        return na in cb or nb in ca

    def struct_fields(self, tag: str | None) -> list[tuple[int, int, ConcreteType]]:
        """The fields a ``!tbaa.struct`` node describes (clang attaches one to the memcpy
        of a struct copy): ``(offset, size, type)`` for each field of a known type."""
        if tag is None or not tag.startswith("!") or not tag[1:].isdigit():
            return []
        raw = self.operands.get(int(tag[1:]), [])
        out: list[tuple[int, int, ConcreteType]] = []
        for k in range(0, len(raw) - 2, 3):
            (ko, off), (ks, size), (kt, node) = raw[k:k + 3]
            if ko != "i" or ks != "i" or kt != "n":
                return []
            ct = self.access_type(f"!{node}")
            if ct is not None:
                out.append((int(off), int(size), ct))
        return out


_MODULE_TBAA: weakref.WeakKeyDictionary[Any, tuple[int, TBAATypes]] = (
    weakref.WeakKeyDictionary())


def module_tbaa(module: Any) -> TBAATypes:
    """The TBAA type nodes of ``module`` (its raw metadata lines), read once per module
    and again when lines were added."""
    got = _MODULE_TBAA.get(module)
    if got is None or got[0] != len(module.metadata):
        got = (len(module.metadata), TBAATypes(module.metadata))
        _MODULE_TBAA[module] = got
    return got[1]


__all__ = ["TBAATypes", "module_tbaa"]
