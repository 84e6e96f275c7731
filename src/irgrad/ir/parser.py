"""Module-level parser: ``parse_module(text, filename, lazy=True)`` and ``parse_type(text)``.

Function bodies are single raw tokens (see lexer.py); with ``lazy=True`` they are parsed
when first needed (``fn.blocks``), otherwise right after the module-level entities.
"""

from __future__ import annotations

import re

from ..errors import IRParseError
from .function import Argument, Function
from .globals import GlobalAlias, GlobalIFunc, GlobalValue, GlobalVariable
from .lexer import gc_paused
from .module import Module
from .parser_attrs import (
    DLL_STORAGE,
    HEADER_STOP,
    LINKAGES,
    PREEMPTION,
    UNNAMED_ADDR,
    VISIBILITY,
    AttrParserMixin,
)
from .parser_base import ParserBase
from .parser_body import BodyParser, LazyBody
from .types import FunctionType, Type
from .values import Value

_ATTR_GROUP = re.compile(r"attributes\s+#(\d+)\s*=\s*\{(.*)\}\s*\Z", re.S)


class _ForwardGlobal(Value):
    __slots__ = ("first_use",)

    def __init__(self, type: Type, first_use: int) -> None:
        Value.__init__(self, type)
        self.first_use = first_use


class ModuleParser(AttrParserMixin):
    def __init__(self, text: str, filename: str) -> None:
        ParserBase.__init__(self, text, filename)
        self.module = Module(filename)
        self.struct_types = self.module.struct_types
        self.defined_types: set[str] = set()
        self.globals: dict[str, GlobalValue] = {}
        self.forward: dict[str, _ForwardGlobal] = {}
        self.lazy_functions: list[Function] = []

    # -- symbols -----------------------------------------------------------------------
    def lookup_global(self, tok: str, ty: Type) -> Value:
        name = self.name_of(tok)
        gv = self.globals.get(name)
        if gv is not None:
            return gv
        fwd = self.forward.get(name)
        if fwd is None:
            fwd = self.forward[name] = _ForwardGlobal(ty, self.i - 1)
            fwd.name = name
        return fwd

    def define_global(self, gv: GlobalValue, index: int) -> None:
        name = gv.name
        if name in self.globals:
            self.error(f"redefinition of global '@{name}'", index)
        self.globals[name] = gv
        fwd = self.forward.pop(name, None)
        if fwd is not None:
            fwd.replace_all_uses_with(gv)

    # -- driver ------------------------------------------------------------------------
    def parse(self, lazy: bool) -> Module:
        m = self.module
        toks = self.toks
        while True:
            t = toks[self.i]
            if t == "":
                break
            c = t[0]
            if c == "!":
                (m.metadata if t[1:2].isdigit() else m.named_metadata).append(t.rstrip())
                self.i += 1
            elif c == "@":
                self.parse_global()
            elif t == "define" or t == "declare":
                self.parse_function()
            elif c == "%":
                self.parse_type_definition()
            elif c == "$":
                self.parse_comdat()
            elif t.startswith("attributes"):
                mm = _ATTR_GROUP.match(t)
                if mm is None:
                    self.error("expected attribute group '#N = { ... }'")
                m.attribute_groups[int(mm.group(1))] = mm.group(2).strip()
                self.i += 1
            elif t.lstrip().startswith("uselistorder"):
                m.uselistorder.append(t.strip())
                self.i += 1
            elif t == "source_filename":
                self.i += 1
                self.expect("=", "expected '=' after source_filename")
                m.source_filename = self.parse_string()
            elif t == "target":
                self.i += 1
                what = self.next()
                self.expect("=", f"expected '=' after target {what}")
                if what == "datalayout":
                    m.data_layout = self.parse_string()
                elif what == "triple":
                    m.triple = self.parse_string()
                else:
                    self.error("unknown target property", self.i - 2)
            elif t == "module":
                self.i += 1
                self.expect("asm", "expected 'module asm'")
                m.module_asm.append(self.parse_string())
            else:
                self.error(f"expected top-level entity, found '{t}'")
        if self.forward:
            fwd = min(self.forward.values(), key=lambda f: f.first_use)
            self.error(f"use of undefined value '{self.toks[fwd.first_use]}'", fwd.first_use)
        for fn in m.functions:  # non-operand references (not updated by RAUW)
            for key in ("personality", "prefix", "prologue"):
                v = getattr(fn, key)
                if isinstance(v, _ForwardGlobal):
                    setattr(fn, key, self.globals[v.name])  # type: ignore[index]
        for name in self.struct_types:
            if name not in self.defined_types:
                self.error(f"use of undefined type named '{name}'", self.struct_first_use[name])
        if not lazy:
            for fn in self.lazy_functions:
                fn.materialize()
        return m

    # -- pieces ------------------------------------------------------------------------
    def parse_type_definition(self) -> None:
        start = self.i
        name = self.name_of(self.next())
        self.expect("=", "expected '=' after name")
        self.expect("type", "expected 'type' after name")
        if name in self.defined_types:
            self.error(f"redefinition of type named '{name}'", start)
        st = self.struct_types.get(name)
        if st is None:
            from .types import IdentifiedStructType

            st = self.struct_types[name] = IdentifiedStructType(name)
        else:
            # keep definition order in the dict
            del self.struct_types[name]
            self.struct_types[name] = st
        self.defined_types.add(name)
        if self.accept("opaque"):
            return
        packed = self.toks[self.i] == "<"
        if packed:
            self.i += 1
        body = self._parse_struct_body(packed)
        if packed:
            self.expect(">", "expected '>' at end of packed struct")
        st.set_body(body.elements, packed)

    def parse_comdat(self) -> None:
        start = self.i
        name = self.next()
        self.expect("=", "expected '=' here")
        self.expect("comdat", "expected comdat keyword")
        kind = self.next()
        if kind not in ("any", "exactmatch", "largest", "nodeduplicate", "samesize"):
            self.error("unknown selection kind", self.i - 1)
        del start
        self.module.comdats.append(f"{name} = comdat {kind}")

    def _linkage_etc(self, gv_fields: dict[str, str]) -> None:
        toks = self.toks
        while True:
            t = toks[self.i]
            if t in LINKAGES:
                gv_fields["linkage"] = t
            elif t in PREEMPTION:
                gv_fields["preemption"] = t
            elif t in VISIBILITY:
                gv_fields["visibility"] = t
            elif t in DLL_STORAGE:
                gv_fields["dll_storage"] = t
            elif t == "thread_local" or t.startswith("thread_local("):
                gv_fields["thread_local"] = t
            elif t in UNNAMED_ADDR:
                gv_fields["unnamed_addr"] = t
            elif t.startswith("addrspace("):
                gv_fields["addrspace"] = str(self._addrspace_token())
                continue
            elif t == "externally_initialized":
                gv_fields["externally_initialized"] = "1"
            else:
                return
            self.i += 1

    @staticmethod
    def _apply_fields(gv: GlobalValue, f: dict[str, str]) -> None:
        gv.linkage = f.get("linkage", "")
        gv.preemption = f.get("preemption", "")
        gv.visibility = f.get("visibility", "")
        gv.dll_storage = f.get("dll_storage", "")
        gv.thread_local = f.get("thread_local", "")
        gv.unnamed_addr = f.get("unnamed_addr", "")

    def parse_global(self) -> None:
        start = self.i
        name = self.name_of(self.next())
        self.expect("=", "expected '=' in global variable")
        fields: dict[str, str] = {}
        self._linkage_etc(fields)
        addrspace = int(fields.get("addrspace", "0"))
        kind = self.next()
        if kind in ("alias", "ifunc"):
            vty = self.parse_type()
            self._comma_expect("after alias type")
            target = self.parse_typed_value()
            cls = GlobalAlias if kind == "alias" else GlobalIFunc
            ga = cls(name, vty, target, addrspace=addrspace)
            self._apply_fields(ga, fields)
            while self.toks[self.i] == ",":
                self.i += 1
                if self.accept("partition"):
                    ga.partition = self.parse_string()
                elif self.toks[self.i][:1] == "!":
                    ga.metadata.append((self.next()[1:], self.next()))
                else:
                    self.error("unknown alias property")
            self.define_global(ga, start)
            self.module.add_alias(ga)
            return
        if kind not in ("global", "constant"):
            self.error("expected 'global' or 'constant'", self.i - 1)
        vty = self.parse_type()
        init = None
        ext = fields.get("linkage") in ("external", "extern_weak")
        if not ext:
            init = self.parse_value(vty)
        gv = GlobalVariable(name, vty, init, kind == "constant", addrspace=addrspace)
        self._apply_fields(gv, fields)
        gv.externally_initialized = "externally_initialized" in fields
        if fields.get("linkage") == "external" and init is not None:
            gv.linkage = ""
        while self.toks[self.i] == ",":
            self.i += 1
            t = self.next()
            if t == "section":
                gv.section = self.parse_string()
            elif t == "partition":
                gv.partition = self.parse_string()
            elif t == "comdat":
                gv.comdat = ""
            elif t.startswith("comdat("):
                gv.comdat = t[7:-1]
            elif t == "align":
                gv.align = self.parse_int("expected alignment")
            elif t[:1] == "!":
                gv.metadata.append((t[1:], self.next()))
            elif t == "code_model":
                gv.extra.append(f'code_model "{self.parse_string()}"')
            elif t in ("no_sanitize_address", "no_sanitize_hwaddress", "sanitize_memtag",
                       "sanitize_address_dyninit"):
                gv.extra.append(t)
            else:
                self.error("unknown global variable property", self.i - 1)
        gv.attrs = self.parse_fn_attrs(HEADER_STOP)
        self.define_global(gv, start)
        self.module.add_global(gv)

    def _comma_expect(self, what: str) -> None:
        if not self.accept(","):
            self.error(f"expected ',' {what}")

    def parse_function(self) -> None:
        is_def = self.next() == "define"
        decl_md: list[tuple[str, str]] = []
        while not is_def and self.toks[self.i][:1] == "!":
            decl_md.append((self.next()[1:], self.next()))
        fields: dict[str, str] = {}
        self._linkage_etc(fields)
        cc = self.parse_calling_conv()
        ret_attrs = self.parse_return_attrs()
        ret = self.parse_type("expected type")
        name_idx = self.i
        nt = self.toks[self.i]
        if nt[:1] != "@":
            self.error("expected function name")
        self.i += 1
        name = self.name_of(nt)
        self.expect("(", "expected '(' in function argument list")
        params: list[Type] = []
        arg_names: list[str | None] = []
        arg_attrs: list[list[str]] = []
        var_arg = False
        num = 0
        arg_keys: list[str] = []
        while self.toks[self.i] != ")":
            if self.accept("..."):
                var_arg = True
                break
            pty = self.parse_first_class_type()
            attrs = self.parse_param_attrs()
            an = None
            t = self.toks[self.i]
            if t[:1] == "%":
                an = self.name_of(t)
                if an.isdigit():
                    if int(an) < num:
                        self.error(f"argument expected to be numbered '%{num}' or greater")
                    arg_keys.append(an)
                    an = None
                    num = int(arg_keys[-1]) + 1
                self.i += 1
            elif is_def:
                arg_keys.append(str(num))
                num += 1
            params.append(pty)
            arg_names.append(an)
            arg_attrs.append(attrs)
            if not self.accept(","):
                break
        self.expect(")", "expected ')' at end of argument list")
        fty = FunctionType(ret, params, var_arg)
        fn = Function(name, fty, arg_names=arg_names,
                      addrspace=0)
        for a, attrs in zip(fn.args, arg_attrs, strict=True):
            a.attrs = attrs
        self._apply_fields(fn, fields)
        fn.calling_conv = cc
        fn.return_attrs = ret_attrs
        fn.metadata = decl_md
        t = self.toks[self.i]
        if t in UNNAMED_ADDR:
            fn.unnamed_addr = t
            self.i += 1
        if self.toks[self.i].startswith("addrspace("):
            fn.addrspace = self._addrspace_token()
            from .types import PointerType

            fn.type = PointerType(fn.addrspace)
        fn.fn_attrs = self.parse_fn_attrs(HEADER_STOP)
        while True:
            t = self.toks[self.i]
            if t == "section":
                self.i += 1
                fn.section = self.parse_string()
            elif t == "partition":
                self.i += 1
                fn.partition = self.parse_string()
            elif t == "comdat":
                self.i += 1
                fn.comdat = ""
            elif t.startswith("comdat("):
                self.i += 1
                fn.comdat = t[7:-1]
            elif t == "align":
                self.i += 1
                fn.align = self.parse_int("expected alignment")
            elif t == "gc":
                self.i += 1
                fn.gc = self.parse_string()
            elif t in ("prefix", "prologue", "personality"):
                self.i += 1
                setattr(fn, t, self.parse_typed_value())
            elif t[:1] == "!" and is_def:
                self.i += 1
                fn.metadata.append((t[1:], self.next()))
            else:
                break
        self.define_global(fn, name_idx)
        self.module.add_function(fn)
        if not is_def:
            return
        t = self.toks[self.i]
        if t[:1] == "{" and len(t) > 1:
            fn._lazy = LazyBody(self.text, self.filename, t, self.i, self.module, self.globals)
            fn._lazy.arg_keys = arg_keys
            self.module._lazy_count += 1
            self.lazy_functions.append(fn)
            self.i += 1
            return
        if t != "{":
            self.error("expected '{' in function body")
        # a body not laid out as LLVM prints it: parse it now from the module's tokens
        self.i += 1
        bp = BodyParser(self.text, self.filename, self.toks[self.i :], 0, self.module,
                        self.globals)
        bp.token_base = self.i
        bp.arg_keys = arg_keys
        bp.global_fallback = lambda tok, ty: ModuleParser.lookup_global(self, tok, ty)
        bp.parse_body(fn)
        self.i += bp.i + 1


def parse_module(text: str, filename: str = "<input>", *, lazy: bool = True) -> Module:
    """Parse LLVM IR text. Raises :class:`IRParseError` with file, line and column."""
    with gc_paused():
        return ModuleParser(text, filename).parse(lazy)


def parse_type(text: str) -> Type:
    p = ModuleParser(text, "<type>")
    ty = p.parse_type()
    if p.toks[p.i] != "":
        p.error(f"unexpected '{p.toks[p.i]}' after type")
    return ty


__all__ = ["Argument", "IRParseError", "ModuleParser", "parse_module", "parse_type"]
