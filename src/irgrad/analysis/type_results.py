"""Type trees of values before and after type analysis: what the IR type of a value (or
a constant's form) says on its own, and :class:`TypeResults`, what
:class:`irgrad.analysis.type_analysis.TypeAnalysis` found for one function.

The queries the AD engine asks live here too: the floating-point type an integer carries
(:meth:`TypeResults.carried_float`), and what the bytes behind a pointer hold
(:meth:`TypeResults.pointee_kind`), so that a copy of memory (``memcpy``, or an integer
load and store) knows whether it moves floats, pointers or integers.
"""

from __future__ import annotations

import weakref

from irgrad.analysis.layout import scalar_leaves, store_size
from irgrad.analysis.type_tree import (
    INTEGER,
    POINTER,
    ConcreteType,
    TypeTree,
    concrete_of,
)
from irgrad.ir.constants import (
    ConstantExpr,
    ConstantFP,
    ConstantInt,
    ConstantPointerNull,
)
from irgrad.ir.function import Function
from irgrad.ir.globals import GlobalValue, GlobalVariable
from irgrad.ir.module import Module
from irgrad.ir.printer import ValuePrinter
from irgrad.ir.types import (
    FLOAT_BITS,
    ArrayType,
    FloatType,
    IntType,
    StructType,
    Type,
    VectorType,
)
from irgrad.ir.values import Value

#: integers narrower than this many bits hold neither a float nor a pointer (no C type
#: of 8 bits is either), as Enzyme decides
NARROW_INTEGER_BITS = 16


def is_scalar_type(t: Type) -> bool:
    return not (t.is_struct or isinstance(t, ArrayType))


def seed_tree(t: Type) -> TypeTree:
    """What the IR type alone says: floats and pointers (integers may carry anything)."""
    if is_scalar_type(t):
        ct = concrete_of(t)
        return TypeTree.scalar(ct) if ct.is_float or ct.is_pointer else TypeTree()
    out = TypeTree()
    for off, et in scalar_leaves(t):
        ct = concrete_of(et)
        if ct.is_float or ct.is_pointer:
            out.insert((off,), ct)
    return out


def default_arg_trees(fn: Function) -> tuple[list[TypeTree], TypeTree]:
    """Trees for an unannotated call: floats Float, pointers Pointer, integers Integer."""
    trees = []
    for a in fn.args:
        t = seed_tree(a.type)
        if a.type.is_integer:
            t = TypeTree.scalar(INTEGER)
        trees.append(t)
    ret = seed_tree(fn.return_type)
    if fn.return_type.is_integer:
        ret = TypeTree.scalar(INTEGER)
    return trees, ret


def _to_memory(value_tree: TypeTree, t: Type) -> TypeTree:
    """A value's tree as the contents of memory at offset 0."""
    if is_scalar_type(t):
        return value_tree.scalar_in_memory().shift(0, max(store_size(t), 1))
    return value_tree.shift(0, max(store_size(t), 1))


def _from_memory(mem: TypeTree, t: Type) -> TypeTree:
    """The tree of a value of type ``t`` loaded from memory ``mem`` at offset 0."""
    size = max(store_size(t), 1)
    looked = mem.lookup(0, size)
    return looked.as_scalar() if is_scalar_type(t) else looked


class TypeResults:
    """The result of :meth:`TypeAnalysis.analyze` for one function and argument trees."""

    def __init__(self, fn: Function, trees: dict[Value, TypeTree], return_tree: TypeTree,
                 conflicts: list[str]) -> None:
        self.function = fn
        self.trees = trees
        self.return_tree = return_tree
        self.conflicts = conflicts

    @property
    def arg_trees(self) -> list[TypeTree]:
        return [self.query(a) for a in self.function.args]

    def query(self, v: Value) -> TypeTree:
        """The type tree of ``v`` (constants and globals from their form)."""
        t = self.trees.get(v)
        if t is not None:
            return t
        return constant_tree(v)

    def carries_float(self, v: Value) -> bool:
        return self.query(v).carries_float()

    def scalar_type(self, v: Value) -> ConcreteType:
        return self.query(v).scalar_type()

    # -- what the AD engine asks -------------------------------------------------------
    def carried_float(self, v: Value) -> Type | None:
        """The floating-point type whose bits an integer (or integer vector) value holds
        (``i64`` loaded from a ``double``, ``<2 x i64>`` from two), or None."""
        t = v.type
        elem = t.element if isinstance(t, VectorType) else t
        if not isinstance(elem, IntType):
            return None
        ct = self.query(v).scalar_type()
        if not ct.is_float or FLOAT_BITS.get(ct.float_kind or "") != elem.width:
            return None
        ft = FloatType(ct.float_kind or "double")
        return VectorType(t.count, ft) if isinstance(t, VectorType) else ft

    def memory_types(self, p: Value, size: int | None = None) -> dict[int, ConcreteType]:
        """What the bytes behind pointer ``p`` hold: ``{offset: type}`` (offset ``-1``:
        every offset), limited to ``[0, size)`` when the size is known."""
        out: dict[int, ConcreteType] = {}
        for path, ct in self.query(p).data0().mapping.items():
            if len(path) == 1 and (path[0] == -1 or size is None or path[0] < size):
                out[path[0]] = ct
        return out

    def points_to_integers(self, p: Value) -> bool:
        """Type analysis has seen what pointer ``p`` points to, and it is integers only
        (characters, counts): no floating-point value nor pointer, so no derivative."""
        got = self.memory_types(p)
        return bool(got) and all(ct.kind == "Integer" for ct in got.values())

    def copied_contents(self, dst: Value, src: Value, size: int | None) -> CopiedContents:
        """What a copy of ``size`` bytes (None: a run-time length) from ``src`` to
        ``dst`` moves, from the evidence at either end."""
        fields: dict[int, ConcreteType] = {}
        for p in (dst, src):
            for off, ct in self.memory_types(p, size).items():
                old = fields.get(off)
                if old is None or old.kind in ("Anything", "Integer"):
                    fields[off] = ct
        return CopiedContents(fields, size)


class CopiedContents:
    """The bytes a memory copy moves, by type: ``fields`` maps offsets (``-1``: every
    offset) to concrete types; integers and ``Anything`` carry no derivative."""

    def __init__(self, fields: dict[int, ConcreteType], size: int | None) -> None:
        self.fields = fields
        self.size = size
        self.floats = {ct.float_kind for ct in fields.values() if ct.is_float}
        self.pointers = any(ct.is_pointer for ct in fields.values())
        # (a prefix of mixed data: what the whole copy would mix, for a run-time check)
        self.mixed = ""
        # an array of records of this many bytes (:meth:`records`): ``fields`` are the
        # offsets in each record
        self.stride: int | None = None

    @property
    def known(self) -> bool:
        """Some evidence exists (a copy with none cannot be differentiated)."""
        return bool(self.fields)

    @property
    def inactive(self) -> bool:
        """Only integers (and bytes of any type): nothing to differentiate."""
        return self.known and not self.floats and not self.pointers

    @property
    def float_type(self) -> str | None:
        """The one floating-point kind the copy moves, if it moves floats of one kind."""
        return next(iter(self.floats)) if len(self.floats) == 1 else None

    def field_offsets(self, kind: str) -> list[tuple[int, ConcreteType]]:
        """Constant offsets of the fields of one kind (``"Float"``, ``"Pointer"``)."""
        return sorted((off, ct) for off, ct in self.fields.items()
                      if off >= 0 and ct.kind == kind)

    @property
    def inactive_prefix(self) -> int:
        """The number of leading bytes that carry no derivative: the offset of the first
        floating-point or pointer field (0 when one may be anywhere)."""
        active = [off for off, ct in self.fields.items() if ct.is_float or ct.is_pointer]
        return 0 if not active or min(active) < 0 else min(active)

    def prefix(self, size: int) -> CopiedContents:
        """The fields of the first ``size`` bytes."""
        return CopiedContents({o: ct for o, ct in self.fields.items() if 0 <= o < size},
                              size)

    def records(self, stride: int) -> CopiedContents | None:
        """The copy as an array of ``stride``-byte records, each laid out as every record
        the evidence saw says, folded onto offsets ``[0, stride)``; None when the evidence
        disagrees (two kinds of data at one offset of a record, a field across a record's
        end or over another field) or may be anywhere (offset ``-1``)."""
        fields: dict[int, ConcreteType] = {}
        for off, ct in sorted(self.fields.items()):
            if off < 0:
                return None
            k = off % stride
            old = fields.get(k)
            if old is None or old.kind in ("Anything", "Integer"):
                fields[k] = ct
            elif ct.kind not in ("Anything", "Integer") and ct is not old:
                return None
        end = 0
        for off, ct in sorted(fields.items()):
            if not (ct.is_float or ct.is_pointer):
                continue
            width = store_size(FloatType(ct.float_kind or "double")) if ct.is_float else 8
            if off < end or off + width > stride:
                return None
            end = off + width
        out = CopiedContents(fields, None)
        out.stride = stride
        return out

    @property
    def uniform(self) -> bool:
        """Every byte that carries something carries the same kind (floats of one type,
        or pointers), so the copy is handled over its whole length at once."""
        return (len(self.floats) == 1) != self.pointers


def constant_tree(v: Value) -> TypeTree:
    if isinstance(v, ConstantFP):
        return seed_tree(v.type)
    if isinstance(v, ConstantInt):
        sv = v.signed_value if v.type.width > 1 else v.value  # type: ignore[attr-defined]
        return TypeTree.scalar(INTEGER) if 0 < abs(sv) <= 4096 else TypeTree()
    if isinstance(v, ConstantPointerNull | GlobalValue | ConstantExpr) and v.type.is_pointer:
        t = TypeTree.scalar(POINTER)
        if isinstance(v, GlobalVariable):
            t.or_in(seed_tree(v.value_type).only(-1))
        return t
    if isinstance(v, ConstantExpr):
        return seed_tree(v.type)
    return TypeTree()




def print_type_analysis(fn: Function, results: TypeResults) -> str:
    """Enzyme-style listing: a header ``name - ret |args``, then each argument and
    instruction followed by its type tree, block names on their own lines."""

    vp = ValuePrinter(fn)
    args = " ".join(f"{results.query(a)}:{{}}" for a in fn.args)
    lines = [f"{fn.name} - {results.return_tree} |{args}"]
    for a in fn.args:
        lines.append(f"{vp.typed(a)}: {results.query(a)}")
    for bb in fn.blocks:
        lines.append(vp.ref(bb).lstrip("%"))
        for inst in bb.instructions:
            tree = "{}" if inst.type.is_void else str(results.query(inst))
            lines.append(f"  {vp.instruction(inst)}: {tree}")
    return "\n".join(lines) + "\n"


def is_narrow_integer(t: Type) -> bool:
    """An integer (vector) too narrow to hold a float or a pointer: i1, i8."""
    if isinstance(t, VectorType):
        t = t.element
    return isinstance(t, IntType) and t.width < NARROW_INTEGER_BITS


_FLOAT_WIDTHS: weakref.WeakKeyDictionary[Module, frozenset[int]] = weakref.WeakKeyDictionary()


def module_float_widths(module: Module) -> frozenset[int]:
    """The bit widths of the floating-point types anything in ``module`` computes with,
    loads, stores, passes or returns (scalars and vector elements): an integer of another
    width moved between buffers cannot be a float's bits (an ``int`` member copied as
    ``i32`` where no ``float`` exists), whatever type analysis could not tell."""
    got = _FLOAT_WIDTHS.get(module)
    if got is not None:
        return got
    widths: set[int] = set()

    def note(t: Type) -> None:
        if isinstance(t, VectorType | ArrayType):
            note(t.element)
        elif isinstance(t, StructType):
            for e in t.elements:
                note(e)
        elif isinstance(t, FloatType):
            widths.update((t.bits, store_size(t) * 8))

    for g in module.globals:
        note(g.value_type)
    for fn in module.functions:
        note(fn.return_type)
        for a in fn.args:
            note(a.type)
        for bb in fn.blocks:
            for inst in bb.instructions:
                note(inst.type)
                for op in inst.operands:
                    note(op.type)
    got = _FLOAT_WIDTHS[module] = frozenset(widths)
    return got


def fits_llvm_type(ct: ConcreteType, t: Type) -> bool:
    if ct.is_float:
        if isinstance(t, FloatType):
            return t.kind == ct.float_kind
        return t.is_integer and store_size(t) == store_size(FloatType(ct.float_kind or "double"))
    if ct.is_pointer:
        return t.is_pointer or (t.is_integer and store_size(t) == 8)
    return t.is_integer
