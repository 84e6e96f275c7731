"""Function body parser: blocks, instructions, local symbols and forward references."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import IRParseError
from .constants import BlockAddress
from .function import BasicBlock, DebugRecord, Function
from .instructions import (
    Instruction,
)
from .lexer import gc_paused, token_offset, tokenize, unescape
from .parser_attrs import AttrParserMixin
from .parser_insts import DISPATCH, InstructionParsers
from .types import Type
from .values import Value

if TYPE_CHECKING:
    from .globals import GlobalValue
    from .module import Module

_LOCAL_REF = re.compile(r'%(?:"[^"]*"|[-\w.$]+)')


class _Forward(Value):
    """A local referenced before its definition."""

    __slots__ = ("first_use",)

    def __init__(self, type: Type, first_use: int) -> None:
        Value.__init__(self, type)
        self.first_use = first_use


class BodyParser(InstructionParsers):
    """Parses one function body from a slice of the module's tokens."""

    def __init__(self, text: str, filename: str, toks: list[str], token_base: int,
                 module: Module, globals_: dict[str, GlobalValue]) -> None:
        AttrParserMixin.__init__(self, text, filename, toks)
        self.token_base = token_base
        self.module = module
        self.globals = globals_
        self.struct_types = module.struct_types
        self.locals: dict[str, Value] = {}
        self.forward: dict[str, _Forward] = {}
        self.blocks: dict[str, BasicBlock] = {}
        self.block_first_use: dict[str, int] = {}
        self.defined_blocks: set[str] = set()
        self.next_num = 0
        self.pending_records: list[tuple[DebugRecord, list[str], int]] = []
        self.lazy: LazyBody | None = None
        self.global_fallback: Callable[[str, Type], Value] | None = None
        self.arg_keys: list[str] | None = None  # numbers of unnamed arguments in the header

    def char_offset(self) -> int:
        if self.lazy is None:
            return 0
        return token_offset(self.lazy.module_text, self.lazy.tok_index)

    def source_text(self) -> str:
        return self.lazy.module_text if self.lazy is not None else self.text

    # -- symbols -----------------------------------------------------------------------
    def lookup_global(self, tok: str, ty: Type) -> Value:
        name = self.name_of(tok)
        gv = self.globals.get(name)
        if gv is None or gv.parent is not self.module:
            gv = self.module.get_named_value(name)
            if gv is None and self.global_fallback is not None:
                return self.global_fallback(tok, ty)
            if gv is None:
                self.error(f"use of undefined value '{tok}'", self.i - 1)
        return gv  # type: ignore[return-value]

    def lookup_local(self, tok: str, ty: Type) -> Value:
        if ty.is_label:
            return self.lookup_block(tok)
        key = self.name_of(tok)
        v = self.locals.get(key)
        if v is None:
            v = self.forward.get(key)
            if v is None:
                v = self.forward[key] = _Forward(ty, self.i - 1)
                return v
        if v.type != ty:
            self.error(f"'{tok}' defined with type '{v.type}' but expected '{ty}'", self.i - 1)
        return v

    def lookup_block(self, tok: str) -> BasicBlock:
        key = self.name_of(tok)
        bb = self.blocks.get(key)
        if bb is None:
            bb = self.blocks[key] = BasicBlock(None if key.isdigit() else key)
            self.block_first_use[key] = self.i - 1
        return bb

    def parse_label_ref(self) -> BasicBlock:
        if self.toks[self.i] != "label":
            self.error("expected 'label'")
        self.i += 1
        t = self.toks[self.i]
        if t[:1] != "%":
            self.error("expected basic block name")
        self.i += 1
        return self.lookup_block(t)

    def define(self, key: str, value: Value, index: int) -> None:
        if key in self.locals or key in self.defined_blocks:
            self.error(f"multiple definition of local value named '{key}'", index)
        fwd = self.forward.pop(key, None)
        if fwd is not None:
            if fwd.type != value.type:
                self.error(
                    f"'%{key}' defined with type '{value.type}' but expected '{fwd.type}'", index
                )
            fwd.replace_all_uses_with(value)
        self.locals[key] = value

    # -- body --------------------------------------------------------------------------
    def parse_body(self, fn: Function) -> None:
        keys = self.lazy.arg_keys if self.lazy is not None else self.arg_keys
        k = 0
        for arg in fn.args:
            if arg.name is None:
                key = keys[k] if keys is not None and k < len(keys) else str(self.next_num)
                k += 1
                self.locals[key] = arg
                self.next_num = int(key) + 1
            else:
                self.locals[arg.name] = arg
        toks = self.toks
        blocks = fn._blocks
        while True:
            t = toks[self.i]
            if t == "}":
                break
            if t == "":
                self.error("expected '}' at end of function body")
            if t[-1] == ":" and (t[0] != '"' or len(t) > 2):
                key = unescape(t[1:-2]).decode() if t[0] == '"' else t[:-1]
                if key.isdigit():
                    if int(key) < self.next_num:
                        self.error(f"label expected to be numbered '{self.next_num}' or greater")
                    self.next_num = int(key) + 1
                self.i += 1
            else:
                key = str(self.next_num)
                self.next_num += 1
            if key in self.defined_blocks or key in self.locals:
                self.error(f"redefinition of label '%{key}'" if key in self.defined_blocks
                           else f"multiple definition of local value named '{key}'",
                           self.i - 1)
            bb = self.blocks.get(key)
            if bb is None:
                bb = self.blocks[key] = BasicBlock(None if key.isdigit() else key)
            self.defined_blocks.add(key)
            bb.parent = fn
            blocks.append(bb)
            self.parse_block(bb, fn)
        for key in self.blocks:
            if key not in self.defined_blocks:
                self.error(f"use of undefined value '%{key}'", self.block_first_use[key])
        if self.forward:
            fwd = min(self.forward.values(), key=lambda f: f.first_use)
            self.error(f"use of undefined value '{self.toks[fwd.first_use]}'", fwd.first_use)
        # blockaddress constants parsed before this body name their block by text
        for use in fn._uses:
            ba = use.user
            if isinstance(ba, BlockAddress) and isinstance(ba.block, str):
                target = self.blocks.get(ba.block)
                if target is not None:
                    ba.block = target
        for rec, keys, index in self.pending_records:
            for k in keys:
                v = self.locals.get(k)
                if v is None:
                    self.error(f"use of undefined value '%{k}'", index)
                rec.values.append(v)  # type: ignore[arg-type]

    def parse_block(self, bb: BasicBlock, fn: Function) -> None:
        toks = self.toks
        insts = bb.instructions
        records: list[DebugRecord] = []
        while True:
            t = toks[self.i]
            if t[:5] == "#dbg_":
                records.append(self.parse_debug_record(t))
                self.i += 1
                continue
            if t.lstrip().startswith("uselistorder"):
                fn.uselistorder.append(t.strip())
                self.i += 1
                continue
            if t == "}" or t == "" or (t[-1] == ":" and t[0] != "%"):
                self.error("expected instruction opcode" if t != "}" else
                           "expected instruction opcode, found '}'")
            inst = self.parse_instruction()
            inst.parent = bb
            if records:
                inst.debug_records = records
                records = []
            insts.append(inst)
            if inst.is_terminator:
                return

    def parse_debug_record(self, t: str) -> DebugRecord:
        kind = t[5 : t.index("(")]
        pieces: list[str] = []
        keys: list[str] = []
        last = 0
        for m in _LOCAL_REF.finditer(t):
            pieces.append(t[last : m.start()])
            keys.append(self.name_of(m.group()))
            last = m.end()
        pieces.append(t[last:])
        rec = DebugRecord(kind, pieces, [])
        self.pending_records.append((rec, keys, self.i))
        return rec

    def parse_instruction(self) -> Instruction:
        toks = self.toks
        t = toks[self.i]
        name_tok = None
        start = self.i
        if t[0] == "%":
            if toks[self.i + 1] != "=":
                self.error("expected '=' after instruction name", self.i + 1)
            name_tok = t
            self.i += 2
        op = toks[self.i]
        handler = DISPATCH.get(op)
        if handler is None:
            self.error(f"expected instruction opcode, found '{op}'" if op else
                       "expected instruction opcode")
        self.i += 1
        inst = handler(self, op)  # type: ignore[misc]
        # metadata attachments
        while toks[self.i] == "," and toks[self.i + 1][:1] == "!":
            kind = toks[self.i + 1]
            self.i += 2
            inst.metadata.append((kind[1:], self.parse_metadata_ref()))
        if name_tok is not None:
            if inst.type.is_void:
                self.error("instructions returning void cannot have a name", start)
            key = self.name_of(name_tok)
            if key.isdigit():
                if int(key) < self.next_num:
                    self.error(
                        f"instruction expected to be numbered '%{self.next_num}' or greater", start
                    )
                self.next_num = int(key) + 1
            else:
                inst.name = key
            self.define(key, inst, start)
        elif not inst.type.is_void:
            key = str(self.next_num)
            self.next_num += 1
            self.define(key, inst, start)
        return inst

    def parse_metadata_ref(self) -> str:
        """``!12`` / ``!DIExpression()`` / ``!"s"`` / ``!{...}`` as raw text."""
        t = self.next()
        if t == "!{":
            parts = ["!{"]
            depth = 1
            first = True
            while depth:
                u = self.next()
                if u == "":
                    self.error("expected '}' at end of metadata node")
                if u == "}":
                    depth -= 1
                    parts.append("}")
                    continue
                if u == "!{":
                    depth += 1
                if u == ",":
                    parts.append(", ")
                    first = True
                    continue
                if not first and parts[-1][-1:] not in ("{", " "):
                    parts.append(" ")
                parts.append(u)
                first = False
            return "".join(parts)
        if t[:1] != "!":
            self.error("expected metadata operand", self.i - 1)
        return t


class LazyBody:
    """The unparsed body of a function: its text (``{`` to ``}``) kept as one token."""

    __slots__ = ("arg_keys", "body", "filename", "globals", "module", "module_text",
                 "tok_index")

    def __init__(self, module_text: str, filename: str, body: str, tok_index: int,
                 module: Module, globals_: dict[str, GlobalValue]) -> None:
        self.module_text = module_text
        self.filename = filename
        self.body = body
        self.tok_index = tok_index  # index of the body token in the module's tokens
        self.module = module
        self.globals = globals_
        self.arg_keys: list[str] | None = None

    def materialize(self, fn: Function) -> None:
        if fn._lazy is not self:
            return
        fn._lazy = None
        parser = BodyParser(self.body, self.filename, tokenize(self.body, 1), 0, self.module,
                            self.globals)
        parser.base = 1
        parser.lazy = self
        try:
            with gc_paused():
                parser.parse_body(fn)
        except IRParseError:
            fn._blocks = []
            fn._lazy = self
            raise
        if fn.parent is not None:
            fn.parent._lazy_count -= 1


__all__ = ["BodyParser", "LazyBody"]
