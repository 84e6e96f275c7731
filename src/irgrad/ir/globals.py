"""Global values: variables, aliases, ifuncs (functions live in function.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .constants import Constant
from .types import PointerType, Type
from .values import Use, Value

if TYPE_CHECKING:
    from .module import Module


class GlobalValue(Constant):
    """A named module-level value. Its ``type`` is ``ptr`` (in ``addrspace``); ``value_type``
    is the type of what it points to. Printed properties are kept as plain fields."""

    __slots__ = (
        "_gname",
        "addrspace",
        "align",
        "attrs",
        "comdat",
        "dll_storage",
        "extra",
        "linkage",
        "metadata",
        "parent",
        "partition",
        "preemption",
        "section",
        "thread_local",
        "unnamed_addr",
        "value_type",
        "visibility",
    )

    def __init__(
        self,
        name: str,
        value_type: Type,
        operands: list[Value] | None = None,
        *,
        addrspace: int = 0,
        linkage: str = "",
    ) -> None:
        Constant.__init__(self, PointerType(addrspace), operands or ())
        self._gname = name
        self.value_type = value_type
        self.addrspace = addrspace
        self.linkage = linkage  # '' (external), 'internal', 'private', 'linkonce_odr', ...
        self.preemption = ""  # '' or 'dso_local' / 'dso_preemptable'
        self.visibility = ""  # '' / 'hidden' / 'protected'
        self.dll_storage = ""  # '' / 'dllimport' / 'dllexport'
        self.thread_local = ""  # '' / 'thread_local' / 'thread_local(initialexec)' ...
        self.unnamed_addr = ""  # '' / 'unnamed_addr' / 'local_unnamed_addr'
        self.section: str | None = None
        self.partition: str | None = None
        self.comdat: str | None = None  # None, '' (comdat with own name) or '$name'
        self.align: int | None = None
        self.extra: list[str] = []  # raw 'code_model "x"', 'no_sanitize_address'...
        self.attrs: list[str] = []  # raw trailing attributes ('#0', 'sanitize_...')
        self.metadata: list[tuple[str, str]] = []  # attachments ('dbg', '!12')
        self.parent: Module | None = None

    # The name lives in ``_gname``: renaming a global while some function bodies are still
    # unparsed would leave stale references in their text, so renaming materializes them.
    @property  # type: ignore[override]
    def name(self) -> str:
        return self._gname

    @name.setter
    def name(self, value: str) -> None:
        if value == getattr(self, "_gname", None):
            return
        if self.parent is not None and hasattr(self, "_gname"):
            self.parent.materialize_all()
        self._gname = value

    @property
    def uses(self) -> list[Use]:
        """All uses; complete only after lazy bodies are parsed, so this parses them."""
        if self.parent is not None and self.parent._lazy_count:
            self.parent.materialize_all()
        return self._uses

    @property
    def is_declaration(self) -> bool:
        return False

    @property
    def has_local_linkage(self) -> bool:
        return self.linkage in ("internal", "private")


class GlobalVariable(GlobalValue):
    __slots__ = ("externally_initialized", "is_constant_global")

    def __init__(
        self,
        name: str,
        value_type: Type,
        initializer: Value | None = None,
        is_constant: bool = False,
        linkage: str = "",
        *,
        addrspace: int = 0,
    ) -> None:
        GlobalValue.__init__(
            self,
            name,
            value_type,
            [initializer] if initializer is not None else [],
            addrspace=addrspace,
            linkage=linkage,
        )
        self.is_constant_global = is_constant
        self.externally_initialized = False

    @property
    def initializer(self) -> Value | None:
        return self._operands[0] if self._operands else None

    @initializer.setter
    def initializer(self, value: Value | None) -> None:
        if value is None:
            if self._operands:
                self.remove_operands(0, 1)
        elif self._operands:
            self.set_operand(0, value)
        else:
            self.append_operand(value)

    @property  # type: ignore[override]
    def is_constant(self) -> bool:
        """True for ``constant`` globals (LLVM's GlobalVariable::isConstant)."""
        return self.is_constant_global

    @is_constant.setter
    def is_constant(self, value: bool) -> None:
        self.is_constant_global = value

    @property
    def is_declaration(self) -> bool:
        return not self._operands

    def __repr__(self) -> str:
        return f"<GlobalVariable @{self.name}: {self.value_type}>"


class GlobalAlias(GlobalValue):
    """``@a = alias T, ptr @aliasee`` (``kind`` is 'alias' or 'ifunc')."""

    __slots__ = ()
    kind = "alias"

    def __init__(
        self, name: str, value_type: Type, aliasee: Value, linkage: str = "", *, addrspace: int = 0
    ) -> None:
        GlobalValue.__init__(
            self, name, value_type, [aliasee], addrspace=addrspace, linkage=linkage
        )

    @property
    def aliasee(self) -> Value:
        return self._operands[0]

    @aliasee.setter
    def aliasee(self, value: Value) -> None:
        self.set_operand(0, value)


class GlobalIFunc(GlobalAlias):
    """``@f = ifunc T, ptr @resolver``."""

    __slots__ = ()
    kind = "ifunc"

    @property
    def resolver(self) -> Value:
        return self._operands[0]


__all__ = ["GlobalAlias", "GlobalIFunc", "GlobalValue", "GlobalVariable"]
