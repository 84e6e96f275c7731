"""Parser core: token cursor, errors, types, constants and typed values.

Method pairs follow xDSL's style: ``parse_optional_X`` returns None (consuming nothing)
when X is not next; ``parse_X`` raises :class:`IRParseError` saying what was expected.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from ..errors import IRParseError, SourceLocation
from .constants import (
    BlockAddress,
    Constant,
    ConstantAggregateZero,
    ConstantArray,
    ConstantDataString,
    ConstantExpr,
    ConstantFP,
    ConstantInt,
    ConstantPointerNull,
    ConstantStruct,
    ConstantTargetNone,
    ConstantTokenNone,
    ConstantVector,
    DSOLocalEquivalent,
    NoCFIValue,
    PoisonValue,
    UndefValue,
)
from .lexer import line_col, split_keyword_group, token_offset, tokenize, unescape, unquote_name
from .types import (
    ArrayType,
    FloatType,
    FunctionType,
    IdentifiedStructType,
    IntType,
    LabelType,
    MetadataType,
    PointerType,
    StructType,
    TargetExtType,
    TokenType,
    Type,
    VectorType,
    VoidType,
    X86AMXType,
)
from .values import Value

_SIMPLE_TYPES: dict[str, Type] = {
    "void": VoidType(),
    "half": FloatType("half"),
    "bfloat": FloatType("bfloat"),
    "float": FloatType("float"),
    "double": FloatType("double"),
    "x86_fp80": FloatType("x86_fp80"),
    "fp128": FloatType("fp128"),
    "ppc_fp128": FloatType("ppc_fp128"),
    "label": LabelType(),
    "metadata": MetadataType(),
    "token": TokenType(),
    "x86_amx": X86AMXType(),
    "ptr": PointerType(0),
}
_INT_TYPES: dict[str, Type] = {}

CAST_OPS = frozenset(
    ["trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
     "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "ptrtoaddr"]
)
CONST_BINOPS = frozenset(["add", "sub", "mul", "shl", "xor", "and", "or", "lshr", "ashr"])
INT_FLAGS = frozenset(["nuw", "nsw", "exact", "disjoint", "nneg", "samesign"])
GEP_FLAGS = frozenset(["inbounds", "nuw", "nusw"])


def _int_type(tok: str) -> Type | None:
    t = _INT_TYPES.get(tok)
    if t is None and len(tok) > 1 and tok[0] == "i" and tok[1:].isdigit():
        t = _INT_TYPES[tok] = IntType(int(tok[1:]))
    return t


class ParserBase:
    """Token cursor over ``self.toks`` with type, constant and value parsing."""

    def __init__(self, text: str, filename: str, toks: list[str] | None = None,
                 base: int = 0) -> None:
        self.text = text
        self.filename = filename
        self.base = base  # character offset where token 0's tokenization started
        self.toks = toks if toks is not None else tokenize(text, base)
        self.toks.append("")  # end sentinel
        self.i = 0
        self.token_base = 0  # index of toks[0] in the tokenization of the whole text
        self.struct_types: dict[str, IdentifiedStructType] = {}
        self.struct_first_use: dict[str, int] = {}
        self._anchor: int | None = None  # set while parsing inside a keyword(...) token

    # -- cursor ------------------------------------------------------------------------
    @property
    def tok(self) -> str:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> str:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ""

    def next(self) -> str:
        t = self.toks[self.i]
        self.i += 1
        return t

    def accept(self, tok: str) -> bool:
        if self.toks[self.i] == tok:
            self.i += 1
            return True
        return False

    def expect(self, tok: str, what: str | None = None) -> None:
        if self.toks[self.i] != tok:
            self.error(what or f"expected '{tok}'")
        self.i += 1

    def location(self, index: int | None = None) -> SourceLocation:
        idx = self.i if index is None else index
        if self._anchor is not None:
            idx = self._anchor
        idx += self.token_base
        off = token_offset(self.text, idx, self.base) + self.char_offset()
        line, col = line_col(self.source_text(), off)
        return SourceLocation(self.filename, line, col)

    def char_offset(self) -> int:
        """Offset of ``self.text`` inside the whole source (non-zero for lazy bodies)."""
        return 0

    def source_text(self) -> str:
        return self.text

    def error(self, message: str, index: int | None = None) -> None:
        tok = self.toks[self.i if index is None else index] if self._anchor is None else ""
        body = tok[1:] if tok.startswith('c"') else tok
        if body.startswith('"') and (len(body) == 1 or not body.endswith('"')):
            message = "unterminated string constant"
        raise IRParseError(message, self.location(index))

    def found(self) -> str:
        t = self.toks[self.i]
        return f"found '{t}'" if t else "found end of file"

    def sub_parse(self, inner: str, fn: Callable[[], object]) -> object:
        """Run ``fn`` over the tokens of ``inner`` (the inside of a ``keyword(...)`` token
        at the cursor); errors point at that token. Consumes the token."""
        anchor = self.i if self._anchor is None else self._anchor
        saved = (self.toks, self.i, self._anchor)
        self.toks = [*tokenize(inner), ""]
        self.i = 0
        self._anchor = anchor
        try:
            result = fn()
            if self.toks[self.i] != "":
                self.error(f"unexpected '{self.toks[self.i]}'")
        finally:
            self.toks, self.i, self._anchor = saved
        self.i += 1
        return result

    # -- small pieces ------------------------------------------------------------------
    def parse_int(self, what: str = "expected integer") -> int:
        t = self.toks[self.i]
        if t and (t[0].isdigit() or (t[0] == "-" and t[1:].isdigit())) and "." not in t:
            self.i += 1
            return int(t)
        self.error(what)
        raise AssertionError

    def parse_string(self, what: str = "expected string constant") -> str:
        """A ``"..."`` token's raw body (escapes kept)."""
        t = self.toks[self.i]
        if len(t) >= 2 and t[0] == '"' and t[-1] == '"':
            self.i += 1
            return t[1:-1]
        self.error(what)
        raise AssertionError

    @staticmethod
    def name_of(tok: str) -> str:
        """``%x`` / ``@"a b"`` / ``$c`` -> the name."""
        body = tok[1:]
        if body.startswith('"'):
            return unquote_name(body[1:-1])
        return body

    # -- types -------------------------------------------------------------------------
    def parse_optional_type(self) -> Type | None:
        t = self.toks[self.i]
        ty = _SIMPLE_TYPES.get(t) or _int_type(t)
        if ty is not None:
            self.i += 1
            if ty.is_pointer and self.toks[self.i].startswith("addrspace("):
                ty = PointerType(self._addrspace_token())
        elif t == "{":
            ty = self._parse_struct_body(False)
        elif t == "<":
            nt = self.toks[self.i + 1]
            if nt == "{":
                self.i += 1
                ty = self._parse_struct_body(True)
                self.expect(">", "expected '>' at end of packed struct")
            else:
                self.i += 1
                scalable = False
                if nt == "vscale":
                    self.i += 1
                    self.expect("x", "expected 'x' after vscale")
                    scalable = True
                n = self.parse_int("expected number in vector type")
                self.expect("x", "expected 'x' after element count")
                elt = self.parse_type()
                self.expect(">", "expected '>' at end of vector type")
                ty = VectorType(n, elt, scalable)
        elif t == "[":
            self.i += 1
            n = self.parse_int("expected number in array type")
            self.expect("x", "expected 'x' after element count")
            elt = self.parse_type()
            self.expect("]", "expected ']' at end of array type")
            ty = ArrayType(n, elt)
        elif t and t[0] == "%" and not t[1:].isdigit():
            name = self.name_of(t)
            ty = self.struct_types.get(name)
            if ty is None:
                ty = self.struct_types[name] = IdentifiedStructType(name)
                self.struct_first_use.setdefault(name, self.i)
            self.i += 1
        elif t.startswith("target("):
            ty = self._parse_target_type()
        elif (parts := split_keyword_group(t)) is not None and (
            parts[0] in _SIMPLE_TYPES or _int_type(parts[0])
        ):
            # 'void(i32)' written without a space: a function type
            ret = _SIMPLE_TYPES.get(parts[0]) or _int_type(parts[0])
            ty = self.sub_parse(  # type: ignore[assignment]
                f"({parts[1]})", lambda: self._parse_function_type_params(ret)  # type: ignore[arg-type]
            )
        else:
            return None
        # function types: T (params...)
        while self.toks[self.i] == "(":
            ty = self._parse_function_type_params(ty)
        if self.toks[self.i] == "*":
            self.error("ptr* is invalid - use ptr instead")
        return ty

    def parse_type(self, what: str = "expected type") -> Type:
        ty = self.parse_optional_type()
        if ty is None:
            self.error(what)
        return ty  # type: ignore[return-value]

    def parse_first_class_type(self, what: str = "expected type") -> Type:
        start = self.i
        ty = self.parse_type(what)
        if ty.is_void or ty.is_function:
            self.error("invalid type for value" if ty.is_function else "void type only allowed for function results", start)
        return ty

    def _addrspace_token(self) -> int:
        inner = split_keyword_group(self.toks[self.i])
        assert inner is not None
        try:
            n = int(inner[1].strip())
        except ValueError:
            self.error("expected integer address space")
        self.i += 1
        return n

    def _parse_struct_body(self, packed: bool) -> StructType:
        self.expect("{")
        elems: list[Type] = []
        if self.toks[self.i] != "}":
            elems.append(self.parse_type())
            while self.accept(","):
                elems.append(self.parse_type())
        self.expect("}", "expected '}' at end of struct type")
        return StructType(elems, packed)

    def _parse_function_type_params(self, ret: Type) -> FunctionType:
        self.expect("(")
        params: list[Type] = []
        var_arg = False
        while self.toks[self.i] != ")":
            if self.accept("..."):
                var_arg = True
                break
            params.append(self.parse_type())
            if not self.accept(","):
                break
        self.expect(")", "expected ')' at end of argument types")
        return FunctionType(ret, params, var_arg)

    def _parse_target_type(self) -> TargetExtType:
        parts = split_keyword_group(self.toks[self.i])
        assert parts is not None
        return self.sub_parse(parts[1], self._parse_target_type_inner)  # type: ignore[return-value]

    def _parse_target_type_inner(self) -> TargetExtType:
        name = unquote_name(self.parse_string("expected target extension type name"))
        tps: list[Type] = []
        ints: list[int] = []
        while self.accept(","):
            t = self.toks[self.i]
            if t[:1].isdigit():
                ints.append(self.parse_int())
            else:
                tps.append(self.parse_type())
        return TargetExtType(name, tps, ints)

    # -- values ------------------------------------------------------------------------
    # Subclasses provide symbol lookup.
    def lookup_local(self, tok: str, ty: Type) -> Value:
        self.error("local value references are not allowed here")
        raise AssertionError

    def lookup_global(self, tok: str, ty: Type) -> Value:
        self.error("global references are not allowed here")
        raise AssertionError

    def lookup_block(self, tok: str) -> Value:
        self.error("block references are not allowed here")
        raise AssertionError

    def parse_value(self, ty: Type) -> Value:
        """A value of type ``ty``: a local, a global or a constant."""
        t = self.toks[self.i]
        c = t[:1]
        if c == "%":
            self.i += 1
            return self.lookup_local(t, ty)
        if c == "@":
            self.i += 1
            return self.lookup_global(t, ty)
        return self.parse_constant(ty)

    def parse_typed_value(self) -> Value:
        ty = self.parse_first_class_type()
        return self.parse_value(ty)

    def parse_constant(self, ty: Type) -> Value:
        t = self.toks[self.i]
        fn = _CONSTANT_PARSERS.get(t)
        if fn is not None:
            return fn(self, ty)
        c = t[:1]
        if (c.isdigit() or c == "-") and t[1:2] != "x":
            self.i += 1
            if ty.is_integer:
                if "." in t or "e" in t:
                    self.error("floating point constant invalid for type", self.i - 1)
                return ConstantInt(ty, int(t))
            if ty.is_float:
                return ConstantFP(ty, float(t), t if ("." in t or "e" in t) else None)
            self.error(f"integer constant must have integer type, found '{ty}'" if "." not in t
                       else "floating point constant invalid for type", self.i - 1)
        if t.startswith("0x"):
            self.i += 1
            if not ty.is_float:
                self.error("floating point constant invalid for type", self.i - 1)
            return ConstantFP(ty, _hex_float_value(t), t)
        if t[:3] in ("s0x", "u0x"):
            self.i += 1
            if not ty.is_integer:
                self.error("integer constant must have integer type", self.i - 1)
            v = int(t[3:], 16)
            if t[0] == "s" and v >> (ty.width - 1):  # type: ignore[attr-defined]
                v -= 1 << ty.width  # type: ignore[attr-defined]
            return ConstantInt(ty, v)
        if t.startswith('c"'):
            self.i += 1
            data = unescape(t[2:-1])
            if not (ty.is_array and ty.element == _int_type("i8")):  # type: ignore[attr-defined]
                self.error("constant string requires an [N x i8] type", self.i - 1)
            if len(data) != ty.count:  # type: ignore[attr-defined]
                self.error(f"constant string has {len(data)} bytes but type is '{ty}'", self.i - 1)
            return ConstantDataString(ty, data)
        if t.startswith("blockaddress("):
            return self._parse_blockaddress(ty)
        if t in CAST_OPS or t in CONST_BINOPS or t == "getelementptr":
            return self._parse_constant_expr(ty)
        if c == "%" or c == "@":
            return self.parse_value(ty)
        self.error(f"expected value of type '{ty}', {self.found()}")
        raise AssertionError

    def _const_true(self, ty: Type) -> Value:
        self.i += 1
        return ConstantInt(ty, 1 if self.toks[self.i - 1] == "true" else 0)

    def _const_null(self, ty: Type) -> Value:
        if not ty.is_pointer:
            self.error("null must be a pointer type")
        self.i += 1
        return ConstantPointerNull(ty)

    def _const_simple(self, ty: Type) -> Value:
        t = self.toks[self.i]
        self.i += 1
        if t == "undef":
            return UndefValue(ty)
        if t == "poison":
            return PoisonValue(ty)
        if t == "zeroinitializer":
            return ConstantAggregateZero(ty)
        # none
        if isinstance(ty, TokenType):
            return ConstantTokenNone()
        if isinstance(ty, TargetExtType):
            return ConstantTargetNone(ty)
        self.error("none constant must have token or target type", self.i - 1)
        raise AssertionError

    def _parse_elements(self, close: str) -> list[Value]:
        elems: list[Value] = []
        if self.toks[self.i] != close:
            elems.append(self.parse_typed_value())
            while self.accept(","):
                elems.append(self.parse_typed_value())
        self.expect(close, f"expected '{close}' at end of constant")
        return elems

    def _const_struct(self, ty: Type) -> Value:
        self.i += 1
        elems = self._parse_elements("}")
        if not ty.is_struct:
            self.error(f"struct constant given non-struct type '{ty}'", self.i - 1)
        return ConstantStruct(ty, elems)

    def _const_array(self, ty: Type) -> Value:
        self.i += 1
        elems = self._parse_elements("]")
        if not ty.is_array:
            self.error(f"array constant given non-array type '{ty}'", self.i - 1)
        return ConstantArray(ty, elems)

    def _const_vector(self, ty: Type) -> Value:
        self.i += 1
        if self.accept("{"):
            elems = self._parse_elements("}")
            self.expect(">", "expected '>' at end of packed struct constant")
            return ConstantStruct(ty, elems)
        elems = self._parse_elements(">")
        return ConstantVector(ty, elems)

    def _const_splat(self, ty: Type) -> Value:
        self.i += 1
        self.expect("(", "expected '(' after splat")
        elt = self.parse_typed_value()
        self.expect(")", "expected ')' after splat value")
        return ConstantVector(ty, [elt], splat=True)

    def _const_dso(self, ty: Type) -> Value:
        t = self.next()
        gv = self.parse_value(ty)
        return DSOLocalEquivalent(gv) if t == "dso_local_equivalent" else NoCFIValue(gv)

    def _parse_blockaddress(self, ty: Type) -> Value:
        parts = split_keyword_group(self.toks[self.i])
        assert parts is not None
        return self.sub_parse(parts[1], self._parse_blockaddress_inner)  # type: ignore[return-value]

    def _parse_blockaddress_inner(self) -> Value:
        fn_tok = self.next()
        if not fn_tok.startswith("@"):
            self.error("expected function name in blockaddress", self.i - 1)
        fn = self.lookup_global(fn_tok, PointerType(0))
        self.expect(",", "expected comma in block address expression")
        bb_tok = self.next()
        if not bb_tok.startswith("%"):
            self.error("expected basic block name in blockaddress", self.i - 1)
        return BlockAddress(fn, self.name_of(bb_tok))

    def _parse_constant_expr(self, ty: Type) -> Value:
        op = self.next()
        flags: list[str] = []
        if op == "getelementptr":
            while self.toks[self.i] in GEP_FLAGS:
                flags.append(self.next())
            if self.toks[self.i].startswith("inrange("):
                flags.append(self.next())
            self.expect("(", "expected '(' in constantexpr")
            src = self.parse_type()
            self.expect(",", "expected comma after getelementptr's type")
            ops = [self.parse_typed_value()]
            while self.accept(","):
                if self.toks[self.i].startswith("inrange("):
                    flags.append(self.next())
                ops.append(self.parse_typed_value())
            self.expect(")", "expected ')' in constantexpr")
            return ConstantExpr(op, ty, ops, flags, source_type=src)
        while self.toks[self.i] in INT_FLAGS:
            flags.append(self.next())
        self.expect("(", "expected '(' in constantexpr")
        a = self.parse_typed_value()
        if op in CAST_OPS:
            self.expect("to", "expected 'to' in constantexpr cast")
            dest = self.parse_type()
            self.expect(")", "expected ')' at end of constantexpr cast")
            return ConstantExpr(op, dest, [a], flags)
        self.expect(",", "expected comma in binary constantexpr")
        b = self.parse_typed_value()
        self.expect(")", "expected ')' in binary constantexpr")
        return ConstantExpr(op, a.type, [a, b], flags)


def _hex_float_value(t: str) -> float:
    body = t[2:]
    if body[:1] in ("K", "L", "M", "H", "R"):
        kind = body[0]
        bits = int(body[1:], 16)
        if kind == "H":
            return struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0]
        if kind == "R":
            return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
        digits = body[1:]
        if kind == "K":  # x86_fp80: sign+exponent (16 bits), explicit-integer mantissa (64)
            return _ieee_ext_value(int(digits[:4], 16), int(digits[4:], 16), 63)
        if kind == "L":  # fp128: LLVM prints the low 64 bits, then the high 64 bits
            lo, hi = int(digits[:16], 16), int(digits[16:], 16)
            bits = (hi << 64) | lo
            sign_exp = bits >> 112
            frac = bits & ((1 << 112) - 1)
            implicit = 0 if sign_exp & 0x7FFF == 0 else 1 << 112
            return _ieee_ext_value(sign_exp, frac | implicit, 112)
        # ppc_fp128 (double-double): the high double, then the low double
        return _double_of(digits[:16]) + _double_of(digits[16:])
    return _double_of(body)


def _double_of(hex_digits: str) -> float:
    return struct.unpack(">d", int(hex_digits, 16).to_bytes(8, "big"))[0]


def _ieee_ext_value(sign_exp: int, mantissa: int, fraction_bits: int) -> float:
    """The nearest Python float of an extended IEEE value (inf/nan kept as such)."""
    sign = -1.0 if sign_exp & 0x8000 else 1.0
    exp = sign_exp & 0x7FFF
    frac = mantissa & ((1 << fraction_bits) - 1)
    if exp == 0x7FFF:
        return sign * math.inf if frac == 0 else math.nan
    if exp == 0:
        exp = 1  # denormal: no integer bit, minimum exponent
    try:
        return sign * math.ldexp(mantissa, exp - 16383 - fraction_bits)
    except OverflowError:
        return sign * math.inf


_CONSTANT_PARSERS: dict[str, Callable[[ParserBase, Type], Value]] = {
    "true": ParserBase._const_true,
    "false": ParserBase._const_true,
    "null": ParserBase._const_null,
    "undef": ParserBase._const_simple,
    "poison": ParserBase._const_simple,
    "zeroinitializer": ParserBase._const_simple,
    "none": ParserBase._const_simple,
    "{": ParserBase._const_struct,
    "[": ParserBase._const_array,
    "<": ParserBase._const_vector,
    "splat": ParserBase._const_splat,
    "dso_local_equivalent": ParserBase._const_dso,
    "no_cfi": ParserBase._const_dso,
}

__all__ = ["CAST_OPS", "CONST_BINOPS", "GEP_FLAGS", "INT_FLAGS", "Constant", "ParserBase"]
