"""Functions, their arguments and basic blocks, and debug records."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from .globals import GlobalValue
from .types import FunctionType, Type, label
from .values import Use, Value

if TYPE_CHECKING:
    from .instructions import Instruction, PHINode


class Argument(Value):
    """A formal parameter. ``attrs`` holds raw attribute text (``noundef``, ``align 8``)."""

    __slots__ = ("_aname", "attrs", "index", "parent")

    def __init__(self, type: Type, name: str | None = None, parent: Function | None = None,
                 index: int = 0, attrs: Sequence[str] = ()) -> None:
        self.parent = parent
        Value.__init__(self, type, name)
        self.index = index
        self.attrs: list[str] = list(attrs)

    @property
    def uses(self) -> list[Use]:
        """Uses inside the body: parses a lazy body first."""
        parent = self.parent
        if parent is not None and parent._lazy is not None:
            parent.materialize()
        return self._uses

    # Renaming an argument of a function whose body is still unparsed text would make the
    # text stale, so the body is parsed first.
    @property  # type: ignore[override]
    def name(self) -> str | None:
        return self._aname

    @name.setter
    def name(self, value: str | None) -> None:
        parent = self.parent
        if parent is not None and parent._lazy is not None and hasattr(self, "_aname"):
            parent.materialize()
        self._aname = value or None


class BasicBlock(Value):
    """A labelled list of instructions; its type is ``label``."""

    __slots__ = ("instructions", "parent")

    def __init__(self, name: str | None = None, parent: Function | None = None) -> None:
        Value.__init__(self, label, name)
        self.parent = parent
        self.instructions: list[Instruction] = []

    @property
    def terminator(self) -> Instruction | None:
        insts = self.instructions
        if insts and insts[-1].is_terminator:
            return insts[-1]
        return None

    def phis(self) -> list[PHINode]:
        out = []
        for inst in self.instructions:
            if inst.opcode != "phi":
                break
            out.append(inst)
        return out  # type: ignore[return-value]

    @property
    def first_non_phi(self) -> Instruction | None:
        for inst in self.instructions:
            if inst.opcode != "phi":
                return inst
        return None

    def first_insertion_index(self) -> int:
        """Index after the phis and any ``landingpad``/funclet pad."""
        k = 0
        insts = self.instructions
        while k < len(insts) and insts[k].opcode in (
            "phi", "landingpad", "cleanuppad", "catchpad", "catchswitch"
        ):
            k += 1
        return k

    def append(self, inst: Instruction) -> Instruction:
        inst.parent = self
        self.instructions.append(inst)
        return inst

    def insert(self, index: int, inst: Instruction) -> Instruction:
        inst.parent = self
        self.instructions.insert(index, inst)
        return inst

    def successors(self) -> list[BasicBlock]:
        """Distinct successor blocks, in terminator operand order."""
        term = self.terminator
        if term is None:
            return []
        out: list[BasicBlock] = []
        for op in term._operands:
            if isinstance(op, BasicBlock) and op not in out:
                out.append(op)
        return out

    def predecessors(self) -> list[BasicBlock]:
        """Distinct predecessor blocks (blocks whose terminator targets this one)."""
        out: list[BasicBlock] = []
        for use in self._uses:
            user = use.user
            if getattr(user, "is_terminator", False):
                blk = user.parent  # type: ignore[attr-defined]
                if blk is not None and blk not in out:
                    out.append(blk)
        return out

    def erase_from_parent(self) -> None:
        """Remove the block from its function and drop its instructions' references."""
        if self.parent is not None:
            self.parent.blocks.remove(self)
            self.parent = None
        for inst in self.instructions:
            inst.drop_all_references()

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.instructions)

    def __len__(self) -> int:
        return len(self.instructions)

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<BasicBlock %{self.name}>" if self.name else f"<BasicBlock @{id(self):x}>"


class DebugRecord:
    """A ``#dbg_value(...)``/``#dbg_declare``/``#dbg_assign``/``#dbg_label`` record.

    Kept as text pieces with the local values it names in between, so the record still
    refers to the right values after renumbering; ``str()`` gives the record's text with
    the original names.
    """

    __slots__ = ("kind", "pieces", "values")

    def __init__(self, kind: str, pieces: Sequence[str], values: Sequence[Value]) -> None:
        self.kind = kind  # 'value' 'declare' 'assign' 'label'
        self.pieces = list(pieces)  # len(values) + 1 text pieces
        self.values = list(values)

    def render(self, name_of: Callable[[Value], str]) -> str:
        out = [self.pieces[0]]
        for v, piece in zip(self.values, self.pieces[1:], strict=True):
            out.append(name_of(v))
            out.append(piece)
        return "".join(out)

    def __str__(self) -> str:
        from .types import quote_name

        return self.render(lambda v: "%" + quote_name(v.name) if v.name else "%?")

    def __repr__(self) -> str:
        return f"<DebugRecord {self}>"


class Function(GlobalValue):
    """A function declaration or definition.

    With lazy parsing the body is text until ``blocks`` (or anything needing it) is read.
    ``fn_attrs`` holds inline attributes and group references (``'#0'``).
    """

    __slots__ = (
        "_blocks",
        "_lazy",
        "args",
        "calling_conv",
        "fn_attrs",
        "gc",
        "personality",
        "prefix",
        "prologue",
        "return_attrs",
        "uselistorder",
    )

    def __init__(self, name: str, function_type: FunctionType, linkage: str = "",
                 arg_names: Sequence[str | None] | None = None, *, addrspace: int = 0) -> None:
        GlobalValue.__init__(self, name, function_type, addrspace=addrspace, linkage=linkage)
        self._lazy: object | None = None
        self._blocks: list[BasicBlock] = []
        names = list(arg_names) if arg_names is not None else [None] * len(function_type.params)
        self.args: list[Argument] = [
            Argument(t, names[k], self, k) for k, t in enumerate(function_type.params)
        ]
        self.calling_conv = ""
        self.return_attrs: list[str] = []
        self.fn_attrs: list[str] = []
        self.personality: Value | None = None
        self.gc: str | None = None
        self.prefix: Value | None = None
        self.prologue: Value | None = None
        self.uselistorder: list[str] = []  # raw 'uselistorder' lines of the body

    @property
    def function_type(self) -> FunctionType:
        return self.value_type  # type: ignore[return-value]

    @function_type.setter
    def function_type(self, ft: FunctionType) -> None:
        self.value_type = ft

    @property
    def return_type(self) -> Type:
        return self.value_type.return_type  # type: ignore[attr-defined]

    # -- laziness ----------------------------------------------------------------------
    @property
    def is_materialized(self) -> bool:
        return self._lazy is None

    def unparsed_body(self) -> str | None:
        """The body's text while it is not parsed yet (None once it is): lets a pass
        skip functions without parsing them."""
        lazy = self._lazy
        return getattr(lazy, "body", None) if lazy is not None else None

    def materialize(self) -> None:
        """Parse the body now if it is still text."""
        lazy = self._lazy
        if lazy is not None:
            lazy.materialize(self)  # type: ignore[attr-defined]

    @property
    def blocks(self) -> list[BasicBlock]:
        if self._lazy is not None:
            self._lazy.materialize(self)  # type: ignore[attr-defined]
        return self._blocks

    @blocks.setter
    def blocks(self, value: list[BasicBlock]) -> None:
        if self._lazy is not None:
            self._lazy.materialize(self)  # type: ignore[attr-defined]
        self._blocks = value

    @property
    def is_declaration(self) -> bool:
        return self._lazy is None and not self._blocks

    @property
    def entry_block(self) -> BasicBlock:
        return self.blocks[0]

    def instructions(self) -> Iterator[Instruction]:
        for bb in self.blocks:
            yield from bb.instructions

    def append_basic_block(self, name: str | None = None) -> BasicBlock:
        bb = BasicBlock(name, self)
        self.blocks.append(bb)
        return bb

    def insert_basic_block(self, index: int, block: BasicBlock) -> BasicBlock:
        block.parent = self
        self.blocks.insert(index, block)
        return block

    # -- attributes --------------------------------------------------------------------
    def attribute_texts(self) -> list[str]:
        """Function attributes with ``#N`` groups expanded from the module's raw groups."""
        out: list[str] = []
        groups = self.parent.attribute_groups if self.parent is not None else {}
        for a in self.fn_attrs:
            if a.startswith("#") and a[1:].isdigit():
                body = groups.get(int(a[1:]))
                if body is not None:
                    out.extend(split_attributes(body))
            else:
                out.append(a)
        return out

    def has_attribute(self, name: str) -> bool:
        for a in self.attribute_texts():
            if a == name or a.startswith((name + "(", f'"{name}"')):
                return True
        return False

    def __repr__(self) -> str:
        kind = "declare" if self.is_declaration else "define"
        return f"<Function {kind} @{self.name}: {self.value_type}>"


def split_attributes(body: str) -> list[str]:
    """Split raw attribute text (``nounwind "a"="b" memory(read) align 8``) into items."""
    out: list[str] = []
    k = 0
    n = len(body)
    while k < n:
        while k < n and body[k] in " \t\n":
            k += 1
        if k >= n:
            break
        start = k
        depth = 0
        while k < n:
            c = body[k]
            if c == '"':
                k = body.index('"', k + 1) + 1
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif c in " \t\n" and depth == 0:
                break
            k += 1
        item = body[start:k]
        # 'align 8', 'alignstack(8)' style: keyword followed by a number joins it
        if out and item.isdigit() and out[-1] in ("align", "alignstack", "dereferenceable"):
            out[-1] = f"{out[-1]} {item}"
        else:
            out.append(item)
    return out


__all__ = ["Argument", "BasicBlock", "DebugRecord", "Function", "split_attributes"]
