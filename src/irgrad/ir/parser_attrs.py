"""Attribute lists (kept as raw text items) and the small keyword sets the parser uses."""

from __future__ import annotations

from .parser_base import _SIMPLE_TYPES, CAST_OPS, CONST_BINOPS, ParserBase, _int_type

LINKAGES = frozenset(
    ["private", "internal", "available_externally", "linkonce", "weak", "common",
     "appending", "extern_weak", "linkonce_odr", "weak_odr", "external"]
)
PREEMPTION = frozenset(["dso_local", "dso_preemptable"])
VISIBILITY = frozenset(["default", "hidden", "protected"])
DLL_STORAGE = frozenset(["dllimport", "dllexport"])
UNNAMED_ADDR = frozenset(["unnamed_addr", "local_unnamed_addr"])

# Words that can start a value: they end a parameter attribute list.
VALUE_WORDS = frozenset(
    ["true", "false", "null", "undef", "poison", "zeroinitializer", "none", "splat",
     "getelementptr", "dso_local_equivalent", "no_cfi", "asm", "blockaddress", "to", "x"]
) | CAST_OPS | CONST_BINOPS

# Words that end a function attribute list (in headers and at top level).
HEADER_STOP = frozenset(
    ["define", "declare", "target", "source_filename", "module", "section", "partition",
     "comdat", "align", "gc", "prefix", "prologue", "personality", "unnamed_addr",
     "local_unnamed_addr", "uselistorder", "uselistorder_bb", "attributes"]
)

INSTRUCTION_WORDS = frozenset(
    ["ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable", "cleanupret",
     "catchret", "catchswitch", "callbr", "fneg", "add", "fadd", "sub", "fsub", "mul", "fmul",
     "udiv", "sdiv", "fdiv", "urem", "srem", "frem", "shl", "lshr", "ashr", "and", "or",
     "xor", "extractelement", "insertelement", "shufflevector", "extractvalue",
     "insertvalue", "alloca", "load", "store", "fence", "cmpxchg", "atomicrmw",
     "getelementptr", "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi",
     "uitofp", "sitofp", "ptrtoint", "ptrtoaddr", "inttoptr", "bitcast", "addrspacecast",
     "icmp", "fcmp", "phi", "select", "freeze", "call", "va_arg", "landingpad", "catchpad",
     "cleanuppad", "tail", "musttail", "notail"]
)


def is_type_start(tok: str) -> bool:
    if tok in _SIMPLE_TYPES or _int_type(tok) is not None:
        return True
    c = tok[:1]
    return c in ("{", "<", "[", "%") or tok.startswith("target(")


def _word(tok: str) -> bool:
    c = tok[:1]
    return c.isalpha() or c == "_"


class AttrParserMixin(ParserBase):
    """Parsing of attribute lists into raw text items."""

    def _attr_item(self) -> str:
        """One attribute at the cursor, as text (consumes it)."""
        t = self.next()
        if t == "align" or t == "alignstack" or t == "dereferenceable":
            n = self.toks[self.i]
            if n.isdigit():
                self.i += 1
                return f"{t} {n}"
            return t
        if t[:1] == '"' and self.toks[self.i] == "=":
            self.i += 1
            v = self.parse_string("expected string attribute value")
            return f'{t}="{v}"'
        return t

    def parse_param_attrs(self) -> list[str]:
        """Attributes after a parameter/argument type (stops at the value)."""
        out: list[str] = []
        toks = self.toks
        while True:
            t = toks[self.i]
            if (_word(t) and t not in VALUE_WORDS and not t.startswith("blockaddress(")) or (
                t[:1] == '"' and t.endswith('"') and len(t) > 1
            ):
                out.append(self._attr_item())
            else:
                return out

    def parse_return_attrs(self) -> list[str]:
        """Attributes before a return type."""
        out: list[str] = []
        toks = self.toks
        while True:
            t = toks[self.i]
            if (_word(t) and not is_type_start(t) and not t.startswith("addrspace(")) or (
                t[:1] == '"' and len(t) > 1
            ):
                out.append(self._attr_item())
            else:
                return out

    def parse_fn_attrs(self, stop: frozenset[str]) -> list[str]:
        """Function attributes (``#0``, ``nounwind``, ``"a"="b"``...) until a stop word."""
        out: list[str] = []
        toks = self.toks
        while True:
            t = toks[self.i]
            c = t[:1]
            if c == "#" and t[1:].isdigit():
                out.append(t)
                self.i += 1
            elif (c == '"' and len(t) > 1 and t.endswith('"')) or (
                _word(t) and t not in stop and " " not in t.split("(", 1)[0]
            ):
                out.append(self._attr_item())
            else:
                return out

    def parse_calling_conv(self) -> str:
        t = self.toks[self.i]
        if t == "cc":
            self.i += 1
            return f"cc {self.parse_int('expected calling convention number')}"
        if t.endswith("cc") and _word(t) and not is_type_start(t):
            self.i += 1
            return t
        if t.startswith(("cc(", "x86_intrcc(")):
            self.i += 1
            return t
        return ""


__all__ = [
    "DLL_STORAGE",
    "HEADER_STOP",
    "INSTRUCTION_WORDS",
    "LINKAGES",
    "PREEMPTION",
    "UNNAMED_ADDR",
    "VALUE_WORDS",
    "VISIBILITY",
    "AttrParserMixin",
    "is_type_start",
]
