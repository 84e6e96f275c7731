"""The module: globals, functions, types and the raw module-level text we keep."""

from __future__ import annotations

from .function import Function
from .globals import GlobalAlias, GlobalIFunc, GlobalValue, GlobalVariable
from .types import FunctionType, IdentifiedStructType
from .values import ir_text


class Module:
    """A translation unit. Metadata, attribute groups, comdats and module asm are raw text."""

    def __init__(self, name: str = "<module>") -> None:
        self.name = name
        self.source_filename: str | None = None
        self.data_layout: str | None = None
        self.triple: str | None = None
        self.struct_types: dict[str, IdentifiedStructType] = {}
        self.globals: list[GlobalVariable] = []
        self.functions: list[Function] = []
        self.aliases: list[GlobalAlias] = []
        self.ifuncs: list[GlobalIFunc] = []
        self.comdats: list[str] = []  # raw lines: '$name = comdat any'
        self.module_asm: list[str] = []  # the strings of 'module asm "..."' (raw, escaped)
        self.attribute_groups: dict[int, str] = {}  # raw body between '{' and '}'
        self.named_metadata: list[str] = []  # raw lines '!llvm.module.flags = !{!0}'
        self.metadata: list[str] = []  # raw lines '!0 = !{...}'
        self.uselistorder: list[str] = []  # raw top-level 'uselistorder ...' lines
        self._lazy_count = 0  # functions whose body is still text

    # -- lookup ------------------------------------------------------------------------
    def get_function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name:
                return f
        return None

    def get_global(self, name: str) -> GlobalVariable | None:
        for g in self.globals:
            if g.name == name:
                return g
        return None

    def get_alias(self, name: str) -> GlobalAlias | None:
        for a in (*self.aliases, *self.ifuncs):
            if a.name == name:
                return a
        return None

    def get_named_value(self, name: str) -> GlobalValue | None:
        """Any global value (variable, function, alias, ifunc) called ``name``."""
        return self.get_function(name) or self.get_global(name) or self.get_alias(name)

    def global_values(self) -> list[GlobalValue]:
        return [*self.globals, *self.functions, *self.aliases, *self.ifuncs]

    # -- mutation ----------------------------------------------------------------------
    def add_function(self, fn: Function, index: int | None = None) -> Function:
        fn.parent = self
        if index is None:
            self.functions.append(fn)
        else:
            self.functions.insert(index, fn)
        if fn._lazy is not None:
            self._lazy_count += 1
        return fn

    def add_global(self, gv: GlobalVariable) -> GlobalVariable:
        gv.parent = self
        self.globals.append(gv)
        return gv

    def add_alias(self, alias: GlobalAlias) -> GlobalAlias:
        alias.parent = self
        (self.ifuncs if isinstance(alias, GlobalIFunc) else self.aliases).append(alias)
        return alias

    def remove_function(self, fn: Function) -> None:
        """Remove ``fn`` (its body's references are dropped). Lazy bodies are parsed first
        so none of them keeps a textual reference to the removed function."""
        self.materialize_all()
        for bb in fn.blocks:
            for inst in bb.instructions:
                inst.drop_all_references()
        self.functions.remove(fn)
        fn.parent = None

    def remove_global(self, gv: GlobalVariable) -> None:
        self.materialize_all()
        self.globals.remove(gv)
        gv.drop_all_references()
        gv.parent = None

    def get_or_insert_function(self, name: str, function_type: FunctionType) -> Function:
        fn = self.get_function(name)
        if fn is None:
            fn = Function(name, function_type)
            self.add_function(fn)
        return fn

    def unique_name(self, base: str) -> str:
        """A global name not used yet: ``base``, else ``base.1``, ``base.2``..."""
        used = {g.name for g in self.global_values()}
        if base not in used:
            return base
        k = 1
        while f"{base}.{k}" in used:
            k += 1
        return f"{base}.{k}"

    def materialize_all(self) -> None:
        """Parse every function body that is still text."""
        if self._lazy_count:
            for f in list(self.functions):
                f.materialize()

    def __str__(self) -> str:
        return ir_text(self)

    def __repr__(self) -> str:
        return f"<Module {self.name}: {len(self.functions)} functions>"


__all__ = ["Module"]
