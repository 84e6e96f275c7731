"""Values, uses and users: the SSA graph with intrusive use lists.

Every operand slot of a :class:`User` owns one :class:`Use` object which is registered in
the used value's use list, so ``value.uses`` lists exactly the (user, operand index) pairs
that read the value and :meth:`Value.replace_all_uses_with` rewrites them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .types import Type, metadata

# The LLVM IR text of an instruction or a module, for ``str()``. The printer
# (:mod:`irgrad.ir.printer`, imported with :mod:`irgrad.ir`) installs itself here, so the
# IR classes need not import the module that prints them.
_formatter: Callable[[object], str] | None = None


def set_text_formatter(formatter: Callable[[object], str]) -> None:
    global _formatter
    _formatter = formatter


def ir_text(obj: object) -> str:
    """LLVM IR text of ``obj`` (its repr when no printer is installed)."""
    return _formatter(obj) if _formatter is not None else object.__repr__(obj)


class Value:
    """Anything that can be an operand: constants, arguments, instructions, blocks, globals."""

    __slots__ = ("_uses", "name", "type")

    def __init__(self, type: Type, name: str | None = None) -> None:
        self.type = type
        self.name = name or None
        self._uses: list[Use] = []

    @property
    def uses(self) -> list[Use]:
        """The uses of this value (a list owned by the value: do not mutate it)."""
        return self._uses

    @property
    def users(self) -> list[User]:
        """The distinct users of this value, in use order."""
        seen: dict[int, User] = {}
        for u in self.uses:
            seen.setdefault(id(u.user), u.user)
        return list(seen.values())

    @property
    def num_uses(self) -> int:
        return len(self.uses)

    def has_uses(self) -> bool:
        return bool(self.uses)

    def replace_all_uses_with(self, new: Value) -> None:
        """Make every user of this value use ``new`` instead."""
        if new is self:
            return
        for use in list(self.uses):
            use.user.set_operand(use.index, new)

    @property
    def is_constant(self) -> bool:
        return False

    def __repr__(self) -> str:
        label = f" %{self.name}" if self.name else ""
        return f"<{type(self).__name__}{label}: {self.type}>"

    def __str__(self) -> str:
        """IR syntax (``double %x``, ``ptr @g``): what a message shows, never a repr."""
        return ir_text(self)


class Use:
    """One operand slot: ``user.operands[index]`` is ``value``."""

    __slots__ = ("index", "user", "value")

    def __init__(self, user: User, index: int, value: Value) -> None:
        self.user = user
        self.index = index
        self.value = value

    def __repr__(self) -> str:
        return f"<Use #{self.index} of {type(self.user).__name__}>"


class User(Value):
    """A value with operands (instructions, constant aggregates and expressions, globals)."""

    __slots__ = ("_op_uses", "_operands")

    def __init__(
        self, type: Type, operands: Iterable[Value] = (), name: str | None = None
    ) -> None:
        Value.__init__(self, type, name)
        ops = list(operands)
        self._operands: list[Value] = ops
        uses: list[Use] = []
        for i, v in enumerate(ops):
            u = Use(self, i, v)
            v._uses.append(u)
            uses.append(u)
        self._op_uses = uses

    @property
    def operands(self) -> tuple[Value, ...]:
        """The operands (read-only; change them with :meth:`set_operand`)."""
        return tuple(self._operands)

    @property
    def num_operands(self) -> int:
        return len(self._operands)

    def operand(self, index: int) -> Value:
        return self._operands[index]

    def set_operand(self, index: int, value: Value) -> None:
        use = self._op_uses[index]
        old = use.value
        if old is value:
            return
        _remove_use(old, use)
        use.value = value
        value._uses.append(use)
        self._operands[index] = value

    def append_operand(self, value: Value) -> None:
        u = Use(self, len(self._operands), value)
        value._uses.append(u)
        self._operands.append(value)
        self._op_uses.append(u)

    def insert_operands(self, index: int, values: Sequence[Value]) -> None:
        """Insert operands at ``index`` (later slots shift; their uses are renumbered)."""
        new_uses = [Use(self, index + k, v) for k, v in enumerate(values)]
        for u in new_uses:
            u.value._uses.append(u)
        self._operands[index:index] = list(values)
        self._op_uses[index:index] = new_uses
        for k in range(index + len(values), len(self._op_uses)):
            self._op_uses[k].index = k

    def remove_operands(self, start: int, stop: int) -> None:
        """Drop operand slots ``start:stop`` (their uses leave the values' use lists)."""
        for u in self._op_uses[start:stop]:
            _remove_use(u.value, u)
        del self._operands[start:stop]
        del self._op_uses[start:stop]
        for k in range(start, len(self._op_uses)):
            self._op_uses[k].index = k

    def drop_all_references(self) -> None:
        """Remove this user from the use lists of all its operands (operands are cleared)."""
        for u in self._op_uses:
            _remove_use(u.value, u)
        self._operands = []
        self._op_uses = []


def _remove_use(value: Value, use: Use) -> None:
    uses = value._uses
    # Most removals hit the most recent use; search from the end.
    for k in range(len(uses) - 1, -1, -1):
        if uses[k] is use:
            del uses[k]
            return


class MetadataAsValue(Value):
    """A metadata operand of a call: ``metadata !12``, ``metadata i32 0``, ``metadata ptr %x``.

    ``raw`` is the text after the ``metadata`` keyword. When the metadata wraps a local
    value (``metadata ptr %x``), ``value`` holds it and ``raw`` is its type prefix only;
    such wrapped values are not uses (as in LLVM).
    """

    __slots__ = ("raw", "value")

    def __init__(self, raw: str, value: Value | None = None) -> None:
        Value.__init__(self, metadata, None)
        self.raw = raw
        self.value = value

    def __repr__(self) -> str:
        return f"<MetadataAsValue {self.raw}>"


__all__ = ["MetadataAsValue", "Use", "User", "Value"]
