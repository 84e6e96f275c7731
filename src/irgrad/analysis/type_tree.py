"""Concrete types and type trees (Enzyme's ``ConcreteType`` / ``TypeTree``).

A :class:`TypeTree` maps an offset path to a :class:`ConcreteType`. The first index is
the byte offset inside the value itself (``-1``: every offset / the whole scalar); each
further index is a byte offset inside the memory the previous level points to. So a
``double*`` argument whose elements are doubles is ``{[-1]:Pointer, [-1,-1]:Float@double}``
and a scalar double is ``{[-1]:Float@double}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from irgrad.ir.types import ArrayType, FloatType, Type, VectorType

Path = tuple[int, ...]
#: deepest path kept (pointer-chasing levels): recursive structures stay finite
MAX_DEPTH = 4
#: largest byte offset tracked at one level
MAX_OFFSET = 4096


class ConcreteType:
    """One of Anything, Integer, Pointer, Float(kind), Unknown. Immutable and interned:
    one object per type, so equality is identity (type trees compare types millions of
    times in an analysis of C++ code)."""

    __slots__ = ("float_kind", "kind")

    KINDS = ("Unknown", "Anything", "Integer", "Pointer", "Float")
    _interned: dict[tuple[str, str | None], ConcreteType] = {}

    kind: str
    float_kind: str | None

    def __new__(cls, kind: str, float_kind: str | None = None) -> ConcreteType:
        got = cls._interned.get((kind, float_kind))
        if got is not None:
            return got
        if kind not in cls.KINDS:
            raise ValueError(f"unknown concrete type {kind!r}")
        if (kind == "Float") != (float_kind is not None):
            raise ValueError("Float needs a floating-point kind (and only Float has one)")
        self = object.__new__(cls)
        self.kind = kind
        self.float_kind = float_kind
        cls._interned[(kind, float_kind)] = self
        return self

    def __reduce__(self) -> tuple[type[ConcreteType], tuple[str, str | None]]:
        return ConcreteType, (self.kind, self.float_kind)

    @staticmethod
    def float(kind: str) -> ConcreteType:
        return ConcreteType("Float", kind)

    @property
    def is_known(self) -> bool:
        return self.kind != "Unknown"

    @property
    def is_float(self) -> bool:
        return self.kind == "Float"

    @property
    def is_pointer(self) -> bool:
        return self.kind == "Pointer"

    @property
    def is_integer(self) -> bool:
        return self.kind == "Integer"

    def merge(self, other: ConcreteType) -> tuple[ConcreteType, bool]:
        """(merged type, conflict?) -- Enzyme's ``orIn``: Unknown yields to anything,
        Anything absorbs everything; a conflict keeps ``self`` and reports it."""
        if self is other or other.kind == "Unknown" or self.kind == "Anything":
            return self, False
        if self.kind == "Unknown" or other.kind == "Anything":
            return other, False
        return self, True

    def __eq__(self, other: object) -> bool:
        return self is other  # interned

    def __hash__(self) -> int:
        return hash((self.kind, self.float_kind))

    def __str__(self) -> str:
        return f"Float@{self.float_kind}" if self.kind == "Float" else self.kind

    def __repr__(self) -> str:
        return f"<ConcreteType {self}>"


ANYTHING = ConcreteType("Anything")
INTEGER = ConcreteType("Integer")
POINTER = ConcreteType("Pointer")
UNKNOWN = ConcreteType("Unknown")
DOUBLE = ConcreteType.float("double")
FLOAT = ConcreteType.float("float")


def concrete_of(t: Type) -> ConcreteType:
    """The concrete type of a scalar IR type (vectors: of their element)."""
    if isinstance(t, VectorType):
        t = t.element
    if isinstance(t, FloatType):
        return ConcreteType.float(t.kind)
    if t.is_pointer:
        return POINTER
    if t.is_integer:
        return INTEGER
    return UNKNOWN


class TypeTree:
    """A mutable map from offset paths to concrete types.

    Paths with a ``-1`` index (general entries: every offset at that level) are also kept
    in ``_general``, so finding the entry that covers a path scans only those (a type
    tree of a C++ object has hundreds of specific entries and a handful of general ones).
    """

    __slots__ = ("_general", "conflicts", "mapping", "version")

    def __init__(self, mapping: Mapping[Path, ConcreteType] | None = None) -> None:
        self.mapping: dict[Path, ConcreteType] = {}
        self._general: set[Path] = set()
        self.conflicts: list[tuple[Path, ConcreteType, ConcreteType]] = []
        #: bumped on every change of ``mapping``: lets analyses cache what they derive
        self.version = 0
        if mapping:
            self._fill(mapping)

    def _fill(self, mapping: Mapping[Path, ConcreteType]) -> None:
        """Insert every entry of ``mapping`` (in its order) into this empty tree."""
        kept = {p: ct for p, ct in mapping.items()
                if ct is not UNKNOWN and len(p) <= MAX_DEPTH and max(p) <= MAX_OFFSET}
        general = {p for p in kept if -1 in p}
        if not general or not any(g in kept for p in kept for g in _generalizations(p)):
            # no entry covers another: inserting one by one would keep each as it is
            self.mapping = kept
            self._general = general
            self.version += bool(kept)
            return
        insert = self.insert
        for p, ct in kept.items():
            insert(p, ct)

    @staticmethod
    def scalar(ct: ConcreteType) -> TypeTree:
        """``{[-1]: ct}``."""
        t = TypeTree()
        if ct is not UNKNOWN:
            t.mapping[(-1,)] = ct
            t._general.add((-1,))
        return t

    def copy(self) -> TypeTree:
        t = TypeTree()
        t.mapping = dict(self.mapping)
        t._general = set(self._general)
        return t

    # -- basic access ------------------------------------------------------------------
    def __getitem__(self, path: Path) -> ConcreteType:
        return self.at(path)

    def at(self, path: Path) -> ConcreteType:
        """The type at ``path``; a ``-1`` entry covers every offset at its level."""
        ct = self.mapping.get(path)
        if ct is not None:
            return ct
        if self._general:
            for p in _generalizations(path):
                c = self.mapping.get(p)
                if c is not None:
                    return c
        return UNKNOWN

    def items(self) -> Iterator[tuple[Path, ConcreteType]]:
        return iter(sorted(self.mapping.items()))

    def __len__(self) -> int:
        return len(self.mapping)

    def __bool__(self) -> bool:
        return bool(self.mapping)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeTree) and self.mapping == other.mapping

    def __hash__(self) -> int:  # pragma: no cover - trees are mutable; hash by content
        return hash(frozenset(self.mapping.items()))

    # -- merging -----------------------------------------------------------------------
    def insert(self, path: Path, ct: ConcreteType) -> bool:
        """Merge ``ct`` at ``path``; True when the tree changed."""
        if ct is UNKNOWN or len(path) > MAX_DEPTH or max(path) > MAX_OFFSET:
            return False
        mapping = self.mapping
        if self._general:
            for g in _generalizations(path):
                covering = mapping.get(g)
                if covering is not None:
                    merged, conflict = covering.merge(ct)
                    if conflict:
                        self.conflicts.append((path, covering, ct))
                    if merged is covering:
                        return False
                    break
        old = mapping.get(path)
        if old is None:
            mapping[path] = ct
            self.version += 1
            if -1 in path:  # a general entry subsumes the specific ones that agree
                self._general.add(path)
                fixed = _fixed_indices(path)
                n = len(path)
                dead = [p for p, c in mapping.items() if c is ct and len(p) == n
                        and p != path and all(p[i] == x for i, x in fixed)]
                if dead:
                    general = self._general
                    for p in dead:
                        del mapping[p]
                        general.discard(p)
            return True
        merged, conflict = old.merge(ct)
        if conflict:
            self.conflicts.append((path, old, ct))
        if merged is old:
            return False
        mapping[path] = merged
        self.version += 1
        return True

    @staticmethod
    def _normalized(mapping: dict[Path, ConcreteType]) -> TypeTree:
        """A tree from entries that already satisfy the invariant (no entry covered by a
        general one): the image of a tree under a map that keeps covering relations."""
        t = TypeTree()
        t.mapping = mapping
        t._general = {p for p in mapping if -1 in p}
        return t

    def or_in(self, other: TypeTree) -> bool:
        """Merge every entry of ``other`` (Enzyme's ``orIn``); True when changed."""
        if not self.mapping:
            if not other.mapping:
                return False
            self._fill(other.mapping)
            return bool(self.mapping)
        changed = False
        for p, ct in list(other.mapping.items()):
            changed |= self.insert(p, ct)
        return changed

    merge = or_in

    def __or__(self, other: TypeTree) -> TypeTree:
        t = self.copy()
        t.or_in(other)
        return t

    # -- reshaping ---------------------------------------------------------------------
    def only(self, offset: int) -> TypeTree:
        """Prepend ``offset``: the tree as the contents of memory at ``offset``."""
        if len(self.mapping) and max(len(p) for p in self.mapping) >= MAX_DEPTH:
            return TypeTree({(offset, *p): ct for p, ct in self.mapping.items()})
        return TypeTree._normalized({(offset, *p): ct for p, ct in self.mapping.items()})

    def data0(self) -> TypeTree:
        """The pointee tree: entries under first index ``-1`` or ``0``, that index dropped."""
        # the ``-1`` entries keep their covering relations; the offset-0 ones merge in
        out = TypeTree._normalized({p[1:]: ct for p, ct in self.mapping.items()
                                    if len(p) > 1 and p[0] == -1})
        for p, ct in sorted(self.mapping.items()):
            if len(p) > 1 and p[0] == 0:
                out.insert(p[1:], ct)
        return out

    def shift(self, offset: int, size: int = -1, add: int = 0) -> TypeTree:
        """Entries whose first index lies in ``[offset, offset+size)`` (size -1: no end),
        re-based to ``index - offset + add``; ``-1`` entries stay ``-1``."""
        out: dict[Path, ConcreteType] = {}
        end = offset + size
        for p, ct in self.mapping.items():
            first = p[0]
            if first == -1:
                out[p] = ct
            elif first >= offset and (size < 0 or first < end):
                new = first - offset + add
                if 0 <= new <= MAX_OFFSET:
                    out[(new, *p[1:])] = ct
        return TypeTree._normalized(out)  # a uniform shift keeps covering relations

    def within(self, size: int) -> TypeTree:
        """This (pointer) tree without the entries of pointee offsets ``>= size`` (beyond
        the object it points into); the tree itself when it has none."""
        if not any(len(p) > 1 and p[1] >= size for p in self.mapping):
            return self
        return TypeTree._normalized({p: ct for p, ct in self.mapping.items()
                                     if len(p) < 2 or p[1] < size})

    def lookup(self, offset: int, size: int) -> TypeTree:
        """The bytes ``[offset, offset+size)`` of this (memory) tree as a value tree."""
        return self.shift(offset, size)

    def first_level(self) -> TypeTree:
        return TypeTree({p: ct for p, ct in self.mapping.items() if len(p) == 1})

    def as_scalar(self) -> TypeTree:
        """Value tree of a scalar: offset-0 entries become ``-1`` (the whole value),
        other first-level offsets are dropped."""
        out = TypeTree()
        for p, ct in sorted(self.mapping.items()):
            if p[0] in (-1, 0):
                out.insert((-1, *p[1:]), ct)
        return out

    def scalar_in_memory(self) -> TypeTree:
        """Inverse of :meth:`as_scalar`: a scalar's ``-1`` becomes offset 0."""
        return TypeTree({((0 if p[0] == -1 else p[0]), *p[1:]): ct
                         for p, ct in self.mapping.items()})

    def scalar_type(self) -> ConcreteType:
        """The type of the whole value (``[-1]`` or ``[0]``)."""
        ct = self.mapping.get((-1,))
        if ct is None:
            ct = self.mapping.get((0,), UNKNOWN)
        return ct

    def carries_float(self) -> bool:
        return any(len(p) == 1 and ct.is_float for p, ct in self.mapping.items())

    def __str__(self) -> str:
        body = ", ".join(f"[{','.join(str(i) for i in p)}]:{ct}" for p, ct in self.items())
        return "{" + body + "}"

    def __repr__(self) -> str:
        return f"<TypeTree {self}>"


_GENERALIZATIONS: dict[Path, tuple[Path, ...]] = {}


def _generalizations(path: Path) -> tuple[Path, ...]:
    """The other paths that would cover ``path``: some of its indices replaced by -1."""
    got = _GENERALIZATIONS.get(path)
    if got is None:
        variants = [()]
        for i in path:
            variants = [(*v, x) for v in variants for x in ((i,) if i == -1 else (i, -1))]
        got = tuple(v for v in variants if v != path)
        if len(_GENERALIZATIONS) < 1 << 16:
            _GENERALIZATIONS[path] = got
    return got


_FIXED: dict[Path, tuple[tuple[int, int], ...]] = {}


def _fixed_indices(general: Path) -> tuple[tuple[int, int], ...]:
    """The ``(position, index)`` pairs of a general path that are not ``-1``: a path of
    the same length is covered by it when it agrees there."""
    got = _FIXED.get(general)
    if got is None:
        got = tuple((k, i) for k, i in enumerate(general) if i != -1)
        if len(_FIXED) < 1 << 16:
            _FIXED[general] = got
    return got


def tree_of_type(t: Type, sizes: Iterable[tuple[int, Type]] | None = None) -> TypeTree:
    """Seed tree from an IR type: scalars ``{[-1]:T}``; aggregates per element offset."""
    if sizes is None:
        ct = concrete_of(t)
        if isinstance(t, ArrayType):
            return TypeTree()
        return TypeTree.scalar(ct) if ct.is_known else TypeTree()
    out = TypeTree()
    for off, et in sizes:
        ct = concrete_of(et)
        if ct.is_known:
            out.insert((off,), ct)
    return out


__all__ = [
    "ANYTHING",
    "DOUBLE",
    "FLOAT",
    "INTEGER",
    "POINTER",
    "UNKNOWN",
    "ConcreteType",
    "Path",
    "TypeTree",
    "concrete_of",
    "tree_of_type",
]
