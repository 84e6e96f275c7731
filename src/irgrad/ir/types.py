"""LLVM IR types: immutable, hashable, structural equality; ``str(t)`` is LLVM's spelling.

Identified structs (``%struct.S``) are the exception: they have a mutable body and compare
and hash by name.
"""

from __future__ import annotations

from collections.abc import Sequence

FLOAT_BITS = {
    "half": 16,
    "bfloat": 16,
    "float": 32,
    "double": 64,
    "x86_fp80": 80,
    "fp128": 128,
    "ppc_fp128": 128,
}


class Type:
    """Base class of every IR type."""

    __slots__ = ("_hash", "_key")

    is_integer = False
    is_float = False
    is_pointer = False
    is_vector = False
    is_aggregate = False
    is_void = False
    is_label = False
    is_metadata = False
    is_function = False
    is_struct = False
    is_array = False

    def __init__(self, key: tuple) -> None:
        self._key = key
        self._hash = hash(key)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, Type) and self._key == other._key

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"

    @property
    def is_fp_or_fp_vector(self) -> bool:
        if self.is_float:
            return True
        return self.is_vector and self.element.is_float  # type: ignore[attr-defined]

    @property
    def is_first_class(self) -> bool:
        return not (self.is_void or self.is_function)

    @property
    def scalar_type(self) -> Type:
        """The element type of a vector, else the type itself."""
        return self.element if self.is_vector else self  # type: ignore[attr-defined]


class IntType(Type):
    __slots__ = ("width",)
    is_integer = True

    def __init__(self, width: int) -> None:
        self.width = width
        super().__init__(("i", width))

    def __str__(self) -> str:
        return f"i{self.width}"


class FloatType(Type):
    __slots__ = ("kind",)
    is_float = True

    def __init__(self, kind: str) -> None:
        if kind not in FLOAT_BITS:
            raise ValueError(f"unknown floating-point type {kind!r}")
        self.kind = kind
        super().__init__(("f", kind))

    @property
    def bits(self) -> int:
        return FLOAT_BITS[self.kind]

    def __str__(self) -> str:
        return self.kind


class PointerType(Type):
    __slots__ = ("addrspace",)
    is_pointer = True

    def __init__(self, addrspace: int = 0) -> None:
        self.addrspace = addrspace
        super().__init__(("p", addrspace))

    def __str__(self) -> str:
        return f"ptr addrspace({self.addrspace})" if self.addrspace else "ptr"


class VectorType(Type):
    __slots__ = ("count", "element", "scalable")
    is_vector = True

    def __init__(self, count: int, element: Type, scalable: bool = False) -> None:
        self.count = count
        self.element = element
        self.scalable = scalable
        super().__init__(("v", count, element, scalable))

    def __str__(self) -> str:
        prefix = "vscale x " if self.scalable else ""
        return f"<{prefix}{self.count} x {self.element}>"


class ArrayType(Type):
    __slots__ = ("count", "element")
    is_aggregate = True
    is_array = True

    def __init__(self, count: int, element: Type) -> None:
        self.count = count
        self.element = element
        super().__init__(("a", count, element))

    def __str__(self) -> str:
        return f"[{self.count} x {self.element}]"


def _struct_body(elements: Sequence[Type], packed: bool) -> str:
    if not elements:
        return "<{}>" if packed else "{}"
    inner = ", ".join(str(e) for e in elements)
    return f"<{{ {inner} }}>" if packed else f"{{ {inner} }}"


class StructType(Type):
    """A literal (unnamed) struct type."""

    __slots__ = ("elements", "packed")
    is_aggregate = True
    is_struct = True

    def __init__(self, elements: Sequence[Type], packed: bool = False) -> None:
        self.elements = tuple(elements)
        self.packed = packed
        super().__init__(("s", self.elements, packed))

    @property
    def opaque(self) -> bool:
        return False

    def __str__(self) -> str:
        return _struct_body(self.elements, self.packed)


def quote_name(name: str) -> str:
    """The name as written after a sigil (``%``, ``@``...): quoted with escapes if needed."""
    if name and _is_plain_name(name):
        return name
    out = []
    for ch in name:
        code = ord(ch)
        if ch == '"' or ch == "\\" or code < 32 or code > 126:
            for byte in ch.encode("utf-8"):
                out.append(f"\\{byte:02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def global_name(name: str) -> str:
    """A global's name as written after ``@``. The parser keeps an unnamed (numbered)
    global ``@0`` under the name ``"0"``: it is printed ``@0`` again, so that it matches
    the references in function bodies that are kept as text (``@"0"`` would be a different,
    named global)."""
    return name if name.isdigit() and name.isascii() else quote_name(name)


_PLAIN_FIRST = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$._-")
_PLAIN_REST = _PLAIN_FIRST | set("0123456789")


def _is_plain_name(name: str) -> bool:
    return name[0] in _PLAIN_FIRST and all(c in _PLAIN_REST for c in name)


class IdentifiedStructType(Type):
    """A named struct type ``%name``; its body is mutable (set once it is defined)."""

    __slots__ = ("elements", "name", "opaque", "packed")
    is_aggregate = True
    is_struct = True

    def __init__(
        self,
        name: str,
        elements: Sequence[Type] | None = None,
        packed: bool = False,
    ) -> None:
        self.name = name
        self.elements: tuple[Type, ...] = tuple(elements or ())
        self.packed = packed
        self.opaque = elements is None
        super().__init__(("S", name))

    def set_body(self, elements: Sequence[Type], packed: bool = False) -> None:
        self.elements = tuple(elements)
        self.packed = packed
        self.opaque = False

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, IdentifiedStructType) and other.name == self.name
        )

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return "%" + quote_name(self.name)

    def definition(self) -> str:
        """The right-hand side of ``%name = type ...``."""
        return "opaque" if self.opaque else _struct_body(self.elements, self.packed)


class FunctionType(Type):
    __slots__ = ("params", "return_type", "var_arg")
    is_function = True

    def __init__(self, return_type: Type, params: Sequence[Type], var_arg: bool = False) -> None:
        self.return_type = return_type
        self.params = tuple(params)
        self.var_arg = var_arg
        super().__init__(("F", return_type, self.params, var_arg))

    def __str__(self) -> str:
        parts = [str(p) for p in self.params]
        if self.var_arg:
            parts.append("...")
        return f"{self.return_type} ({', '.join(parts)})"


class _SimpleType(Type):
    __slots__ = ()
    _spelling = ""

    def __init__(self) -> None:
        super().__init__((self._spelling,))

    def __str__(self) -> str:
        return self._spelling


class VoidType(_SimpleType):
    __slots__ = ()
    _spelling = "void"
    is_void = True


class LabelType(_SimpleType):
    __slots__ = ()
    _spelling = "label"
    is_label = True


class MetadataType(_SimpleType):
    __slots__ = ()
    _spelling = "metadata"
    is_metadata = True


class TokenType(_SimpleType):
    __slots__ = ()
    _spelling = "token"


class X86AMXType(_SimpleType):
    __slots__ = ()
    _spelling = "x86_amx"


class TargetExtType(Type):
    """``target("name", types..., ints...)``."""

    __slots__ = ("int_params", "name", "type_params")

    def __init__(self, name: str, type_params: Sequence[Type] = (), int_params: Sequence[int] = ()):
        self.name = name
        self.type_params = tuple(type_params)
        self.int_params = tuple(int_params)
        super().__init__(("T", name, self.type_params, self.int_params))

    def __str__(self) -> str:
        parts = [f'"{self.name}"', *(str(t) for t in self.type_params)]
        parts += [str(i) for i in self.int_params]
        return f"target({', '.join(parts)})"


i1 = IntType(1)
i8 = IntType(8)
i16 = IntType(16)
i32 = IntType(32)
i64 = IntType(64)
i128 = IntType(128)
half = FloatType("half")
bfloat = FloatType("bfloat")
float_ = FloatType("float")
double = FloatType("double")
x86_fp80 = FloatType("x86_fp80")
fp128 = FloatType("fp128")
ppc_fp128 = FloatType("ppc_fp128")
ptr = PointerType(0)
void = VoidType()
label = LabelType()
metadata = MetadataType()
token = TokenType()

__all__ = [
    "FLOAT_BITS",
    "ArrayType",
    "FloatType",
    "FunctionType",
    "IdentifiedStructType",
    "IntType",
    "LabelType",
    "MetadataType",
    "PointerType",
    "StructType",
    "TargetExtType",
    "TokenType",
    "Type",
    "VectorType",
    "VoidType",
    "X86AMXType",
    "global_name",
    "quote_name",
]
