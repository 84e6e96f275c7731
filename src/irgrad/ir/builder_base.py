"""IRBuilderBase: the insertion point of :class:`~irgrad.ir.builder.IRBuilder`.

A block plus the instruction to insert before (``None`` = at the end); ``insert`` puts a new
instruction there (naming it, attaching the builder's ``!dbg``). Also the coercion of Python
numbers to constants (:func:`constant_of`) that the emitters in ``builder_values``,
``builder_memory`` and ``builder_control`` share.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Self

from irgrad.errors import UsageError

from .constants import ConstantFP, ConstantInt, ConstantVector
from .function import BasicBlock, Function
from .instructions import Instruction
from .module import Module
from .types import ArrayType, FloatType, IntType, Type, VectorType
from .values import Value

Operand = Value | int | float


def constant_of(type: Type, value: int | float) -> Value:
    """A constant of ``type`` (a splat for vector types) from a Python number."""
    if isinstance(type, VectorType):
        return ConstantVector(type, [constant_of(type.element, value)], splat=True)
    if isinstance(type, IntType):
        return ConstantInt(type, int(value))
    if isinstance(type, FloatType):
        return ConstantFP(type, float(value))
    raise UsageError(f"cannot make a {type} constant from {value!r}")


def aggregate_element_type(type: Type, indices: Sequence[int]) -> Type:
    """The type reached by ``extractvalue``/``insertvalue`` indices into ``type``."""
    for k in indices:
        if isinstance(type, ArrayType | VectorType):
            type = type.element
        elif type.is_struct:
            elements = type.elements  # type: ignore[attr-defined]
            if not 0 <= k < len(elements):
                raise UsageError(f"index {k} out of range for {type}")
            type = elements[k]
        else:
            raise UsageError(f"cannot index into non-aggregate type {type}")
    return type


class IRBuilderBase:
    """The insertion point, ``insert`` and operand coercion that every emitter builds on."""

    def __init__(self, block: BasicBlock | None = None,
                 position: Instruction | None = None) -> None:
        self._block: BasicBlock | None = None
        self._before: Instruction | None = None
        #: raw ``!dbg`` attachment given to every new instruction (None: none)
        self.debug_loc: str | None = None
        if position is not None:
            self.position_before(position)
        elif block is not None:
            self.position_at_end(block)

    # -- insertion point ---------------------------------------------------------------
    @property
    def insert_block(self) -> BasicBlock | None:
        return self._block

    @property
    def insert_before_instruction(self) -> Instruction | None:
        """The instruction new ones go before (None: the end of the block)."""
        return self._before

    @property
    def function(self) -> Function | None:
        return self._block.parent if self._block is not None else None

    @property
    def module(self) -> Module | None:
        fn = self.function
        return fn.parent if fn is not None else None

    def position_at_end(self, block: BasicBlock) -> None:
        self._block = block
        self._before = None

    def position_at_start(self, block: BasicBlock) -> None:
        """Before the first instruction that is not a phi (or landingpad/pad)."""
        k = block.first_insertion_index()
        self._block = block
        self._before = block.instructions[k] if k < len(block.instructions) else None

    def position_before(self, inst: Instruction) -> None:
        if inst.parent is None:
            raise UsageError("position_before: the instruction is not in a block")
        self._block = inst.parent
        self._before = inst

    def position_after(self, inst: Instruction) -> None:
        block = inst.parent
        if block is None:
            raise UsageError("position_after: the instruction is not in a block")
        k = block.instructions.index(inst) + 1
        self._block = block
        self._before = block.instructions[k] if k < len(block.instructions) else None

    def _save(self) -> tuple[BasicBlock | None, Instruction | None, str | None]:
        return self._block, self._before, self.debug_loc

    def _restore(self, saved: tuple[BasicBlock | None, Instruction | None, str | None]) -> None:
        self._block, self._before, self.debug_loc = saved

    @contextmanager
    def goto(self, where: BasicBlock | Instruction) -> Iterator[Self]:
        """Temporarily insert at the end of a block or before an instruction."""
        saved = self._save()
        if isinstance(where, BasicBlock):
            self.position_at_end(where)
        else:
            self.position_before(where)
        try:
            yield self
        finally:
            self._restore(saved)

    @contextmanager
    def at_end(self, block: BasicBlock) -> Iterator[Self]:
        with self.goto(block) as b:
            yield b

    @contextmanager
    def at_start(self, block: BasicBlock) -> Iterator[Self]:
        saved = self._save()
        self.position_at_start(block)
        try:
            yield self
        finally:
            self._restore(saved)

    def insert(self, inst: Instruction, name: str | None = None) -> Instruction:
        """Insert ``inst`` at the insertion point (naming it unless its type is void)."""
        block = self._block
        if block is None:
            raise UsageError("IRBuilder has no insertion point")
        if name and not inst.type.is_void:
            inst.name = name
        if self.debug_loc is not None and inst.get_metadata("dbg") is None:
            inst.metadata.append(("dbg", self.debug_loc))
        before = self._before
        if before is None:
            block.append(inst)
        else:
            if before.parent is not block:
                raise UsageError("IRBuilder: insertion point was moved out of its block")
            block.insert(block.instructions.index(before), inst)
        return inst

    def append_basic_block(self, name: str | None = None) -> BasicBlock:
        """A new block at the end of the current function."""
        fn = self.function
        if fn is None:
            raise UsageError("IRBuilder has no current function")
        return fn.append_basic_block(name)

    # -- operand coercion --------------------------------------------------------------
    @staticmethod
    def _pair(a: Operand, b: Operand) -> tuple[Value, Value]:
        if not isinstance(a, Value):
            if not isinstance(b, Value):
                raise UsageError("at least one operand must be an IR value")
            a = constant_of(b.type, a)
        elif not isinstance(b, Value):
            b = constant_of(a.type, b)
        return a, b

    @staticmethod
    def _value(v: Operand, type: Type) -> Value:
        return v if isinstance(v, Value) else constant_of(type, v)


__all__ = ["IRBuilderBase", "Operand", "aggregate_element_type", "constant_of"]
