"""C-ABI signatures of a module's functions, as the Python API needs them.

LLVM 22 IR has opaque pointers (``ptr``): what a pointer points to is not in the IR. The
element types come from the DEBUG INFO the front ends emit with ``-g`` (irgrad.compile
always adds it): the function's ``DISubprogram`` -> ``DISubroutineType`` gives the source
types (``const double *``, Rust ``*const f64``, Fortran ``real(8)`` passed by reference),
and ``DILocalVariable(arg: N)`` gives the parameter names. Debug info was chosen over
parsing declarations because it is the same for every language and comes from the
compiler itself. Without debug info (hand-written ``.ll``) a pointer accepts any
contiguous array, unless the user overrides the signature
(``lib.function("f", argtypes=["double*", "int"])``).
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from irgrad.errors import UsageError
from irgrad.python.extents import Extents, describe, extents_from_json, extents_to_json

# IR scalar type -> (numpy dtype name when signed/float, unsigned variant)
_IR_SCALARS: dict[str, tuple[str, str]] = {
    "double": ("float64", "float64"),
    "float": ("float32", "float32"),
    "i64": ("int64", "uint64"),
    "i32": ("int32", "uint32"),
    "i16": ("int16", "uint16"),
    "i8": ("int8", "uint8"),
    "i1": ("bool", "bool"),
}
CTYPES: dict[str, Any] = {
    "float64": ctypes.c_double,
    "float32": ctypes.c_float,
    "int64": ctypes.c_int64,
    "uint64": ctypes.c_uint64,
    "int32": ctypes.c_int32,
    "uint32": ctypes.c_uint32,
    "int16": ctypes.c_int16,
    "uint16": ctypes.c_uint16,
    "int8": ctypes.c_int8,
    "uint8": ctypes.c_uint8,
    "bool": ctypes.c_bool,
}
IR_OF_DTYPE = {"float64": "double", "float32": "float", "int64": "i64", "uint64": "i64",
               "int32": "i32", "uint32": "i32", "int16": "i16", "uint16": "i16",
               "int8": "i8", "uint8": "i8", "bool": "i1"}  # fmt: skip
# C spellings accepted in argtypes overrides
_C_NAMES = {"double": "float64", "float": "float32", "int": "int32", "unsigned": "uint32",
            "long": "int64", "int64_t": "int64", "int32_t": "int32", "size_t": "uint64",
            "char": "int8", "bool": "bool", "short": "int16"}  # fmt: skip


@dataclass(frozen=True)
class ArgSpec:
    """One parameter: its IR type, kind and (for pointers: element) numpy dtype.

    kind: "float" (floating-point scalar), "int" (integer scalar), "pointer".
    dtype: numpy dtype name of the scalar, or of the pointee (None: unknown pointee).
    """

    name: str
    ir_type: str
    kind: str
    dtype: str | None
    attrs: tuple[str, ...] = ()  # zeroext/signext, repeated on calls the wrappers make

    @property
    def is_float_pointer(self) -> bool:
        return self.kind == "pointer" and self.dtype in ("float64", "float32")

    def describe(self) -> str:
        if self.kind == "pointer":
            return f"{self.dtype or '?'} array ({self.ir_type})"
        return f"{self.dtype} ({self.ir_type})"


@dataclass(frozen=True)
class Signature:
    """A function's C-ABI signature: symbol, source name, parameters, return."""

    symbol: str
    name: str
    args: tuple[ArgSpec, ...]
    ret_ir_type: str  # "void", "double", "i32", "ptr", ...
    ret_dtype: str | None  # numpy dtype of a scalar return (None: void / pointer)
    # bytes each pointer parameter may access, from the integer arguments
    # (:mod:`irgrad.python.extents`)
    extents: Extents = ()

    @property
    def returns_float(self) -> bool:
        return self.ret_ir_type in ("double", "float")

    def index_of(self, wrt: int | str) -> int:
        """The parameter index ``wrt`` names (an index, or a parameter name)."""
        if isinstance(wrt, bool) or not isinstance(wrt, int | str):
            raise UsageError(f"wrt must be a parameter index or name, not {wrt!r}")
        if isinstance(wrt, int):
            if not -len(self.args) <= wrt < len(self.args):
                raise UsageError(
                    f"wrt={wrt}: {self.name} has {len(self.args)} parameter(s)"
                )
            return wrt % len(self.args)
        for i, arg in enumerate(self.args):
            if arg.name == wrt:
                return i
        names = ", ".join(a.name for a in self.args)
        raise UsageError(f"wrt={wrt!r}: {self.name} has no parameter of that name ({names})")

    def to_json(self) -> dict[str, Any]:
        return {"symbol": self.symbol, "name": self.name, "ret_ir_type": self.ret_ir_type,
                "ret_dtype": self.ret_dtype, "args": [asdict(a) for a in self.args],
                "extents": extents_to_json(self.extents)}  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Signature:
        args = tuple(ArgSpec(**{**a, "attrs": tuple(a["attrs"])}) for a in data["args"])
        return cls(data["symbol"], data["name"], args, data["ret_ir_type"], data["ret_dtype"],
                   extents_from_json(data.get("extents", [])))

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.args]

    def __str__(self) -> str:
        sizes = dict(self.extents)
        parts = []
        for k, a in enumerate(self.args):
            text = a.describe()
            if k in sizes:  # the number of elements it may access
                itemsize = np.dtype(a.dtype).itemsize if a.dtype else 1
                dims = " or ".join(describe(e, self.names, itemsize) for e in sizes[k])
                text = text.replace(" array ", f" array[{dims}] ", 1)
            parts.append(f"{a.name}: {text}")
        return f"{self.name}({', '.join(parts)}) -> {self.ret_dtype or self.ret_ir_type}"


# --- debug info ------------------------------------------------------------------------

_MD_LINE = re.compile(r"^!(\d+) = (?:distinct )?(.*)$", re.M)
_DEFINE = re.compile(r"^define [^\n]*?@(\"[^\"]+\"|[\w.$-]+)\([^\n]*!dbg !(\d+)", re.M)


def _field(body: str, name: str) -> str | None:
    m = re.search(rf"\b{name}: (\"(?:[^\"\\]|\\.)*\"|[^,)]+)", body)
    return m.group(1).strip().strip('"') if m else None


@dataclass(frozen=True)
class DIType:
    """What debug info says about one source type (scalar or pointer-to-scalar)."""

    pointer: bool
    dtype: str | None
    struct: bool = False
    nested: bool = False  # a pointer to a pointer (double **)


class DebugInfo:
    """Function types and parameter names from a module's debug metadata (IR text)."""

    def __init__(self, text: str) -> None:
        self.md = {int(m.group(1)): m.group(2) for m in _MD_LINE.finditer(text)}
        self.subprograms: dict[str, int] = {}
        for m in _DEFINE.finditer(text):
            self.subprograms[m.group(1).strip('"')] = int(m.group(2))
        self.arg_names: dict[int, dict[int, str]] = {}
        for body in self.md.values():
            if body.startswith("!DILocalVariable(") and " arg: " in body:
                scope, arg, name = _field(body, "scope"), _field(body, "arg"), _field(body, "name")
                if scope and arg and name:
                    self.arg_names.setdefault(int(scope[1:]), {})[int(arg)] = name

    def source_name(self, symbol: str) -> str | None:
        sp = self.subprograms.get(symbol)
        return _field(self.md[sp], "name") if sp is not None and sp in self.md else None

    def param_names(self, symbol: str) -> dict[int, str]:
        sp = self.subprograms.get(symbol)
        return self.arg_names.get(sp, {}) if sp is not None else {}

    def types(self, symbol: str) -> list[DIType | None] | None:
        """[return, param1, ...] of ``symbol`` (None entries: void/unknown)."""
        sp = self.subprograms.get(symbol)
        if sp is None or sp not in self.md:
            return None
        ty = _field(self.md[sp], "type")
        if ty is None or not ty.startswith("!"):
            return None
        types = _field(self.md.get(int(ty[1:]), ""), "types")
        if types is None or not types.startswith("!"):
            return None
        listing = self.md.get(int(types[1:]), "")
        refs = [r.strip() for r in listing.strip().removeprefix("!{").removesuffix("}").split(",")]
        return [self._resolve(r, 0) if r.startswith("!") else None for r in refs if r]

    def _resolve(self, ref: str, depth: int) -> DIType | None:
        if depth > 20 or not ref.startswith("!") or not ref[1:].isdigit():
            return None
        body = self.md.get(int(ref[1:]), "")
        if body.startswith("!DIBasicType("):
            return DIType(False, _basic_dtype(body))
        base = _field(body, "baseType")
        if body.startswith("!DIDerivedType("):
            tag = _field(body, "tag")
            if tag in ("DW_TAG_pointer_type", "DW_TAG_reference_type",
                       "DW_TAG_rvalue_reference_type"):  # fmt: skip
                inner = self._resolve(base, depth + 1) if base else None
                nested = inner is not None and inner.pointer
                dtype = inner.dtype if inner is not None and not nested else None
                return DIType(True, dtype, nested=nested)
            return self._resolve(base, depth + 1) if base else None
        if body.startswith("!DICompositeType("):
            if _field(body, "tag") == "DW_TAG_array_type" and base:
                inner = self._resolve(base, depth + 1)
                return DIType(False, inner.dtype if inner else None)
            return DIType(False, None, struct=True)
        return None


def _basic_dtype(body: str) -> str | None:
    size = int(_field(body, "size") or 0)
    encoding = _field(body, "encoding") or ""
    if encoding == "DW_ATE_float":
        return {64: "float64", 32: "float32"}.get(size)
    if encoding == "DW_ATE_boolean":
        return "bool" if size == 8 else None
    unsigned = encoding in ("DW_ATE_unsigned", "DW_ATE_unsigned_char")
    if encoding in ("DW_ATE_signed", "DW_ATE_signed_char") or unsigned:
        name = {64: "int64", 32: "int32", 16: "int16", 8: "int8"}.get(size)
        return f"u{name}" if name and unsigned else name
    return None


# --- building signatures -------------------------------------------------------------------


def scalar_dtype(ir_type: str, unsigned: bool = False) -> str | None:
    pair = _IR_SCALARS.get(ir_type)
    return None if pair is None else pair[1 if unsigned else 0]


_ABI_ONLY = ("byval", "sret", "inalloca", "preallocated", "byref")  # structs in memory


def make_arg(name: str, ir_type: str, attrs: tuple[str, ...], di: DIType | None) -> ArgSpec:
    """One parameter's spec from its IR type and what debug info says about it."""
    if di is not None and di.struct and not di.pointer:
        return ArgSpec(name, ir_type, "unsupported", None, attrs)  # a struct by value
    if ir_type == "ptr":
        if di is not None and di.nested:
            return ArgSpec(name, "ptr", "unsupported", None, attrs)
        dtype = di.dtype if di is not None else None
        return ArgSpec(name, ir_type, "pointer", dtype, attrs)
    if ir_type in ("double", "float"):
        return ArgSpec(name, ir_type, "float", scalar_dtype(ir_type), attrs)
    if ir_type in _IR_SCALARS:
        unsigned = "zeroext" in attrs or bool(di and di.dtype and di.dtype.startswith("u"))
        return ArgSpec(name, ir_type, "int", scalar_dtype(ir_type, unsigned), attrs)
    return ArgSpec(name, ir_type, "unsupported", None, attrs)


def parse_argtype(text: str | type | np.dtype, index: int) -> tuple[str, str, str]:
    """An override like ``"double*"``, ``"int"``, ``np.float64`` -> (ir_type, kind, dtype)."""
    if not isinstance(text, str):
        dtype = np.dtype(text).name  # type: ignore[arg-type]
        if dtype not in IR_OF_DTYPE:
            raise UsageError(f"argtypes[{index}]: unsupported type {text!r}")
        kind = "float" if dtype.startswith("float") else "int"
        return IR_OF_DTYPE[dtype], kind, dtype
    spelled = text.replace("const", "").replace(" ", "")
    pointer = spelled.endswith("*") or spelled.endswith("[]")
    base = spelled.rstrip("*").removesuffix("[]")
    dtype = _C_NAMES.get(base) or (base if base in IR_OF_DTYPE else None)
    if dtype is None:
        raise UsageError(
            f"argtypes[{index}]: cannot read {text!r} (expected e.g. 'double*', 'float', "
            "'int', 'int64*')"
        )
    if pointer:
        return "ptr", "pointer", dtype
    return IR_OF_DTYPE[dtype], "float" if dtype.startswith("float") else "int", dtype


def read_signatures(module: Any, text: str) -> dict[str, Signature]:
    """Signatures of the externally visible functions ``module`` (llvmlite) defines.

    ``text`` is the module's IR text (with debug info when the front end emitted it).
    Variadic functions are left out (they cannot be called with a fixed signature).
    """
    import llvmlite.binding as llvm

    debug = DebugInfo(text)
    found: dict[str, Signature] = {}
    for fn in module.functions:
        if fn.is_declaration or fn.linkage not in (llvm.Linkage.external, llvm.Linkage.weak_any,
                                                    llvm.Linkage.weak_odr):  # fmt: skip
            continue
        fn_type = fn.global_value_type
        if "..." in str(fn_type):
            continue
        elements = [str(e) for e in fn_type.elements]
        di_types = debug.types(fn.name)
        names = debug.param_names(fn.name)
        ir_args = list(fn.arguments)
        if di_types is not None and len(di_types) != len(ir_args) + 1:
            # the ABI changed the parameter list (sret, split complex, Fortran string
            # lengths): debug info no longer lines up, so it is not used
            di_types, names = None, {}
        args = []
        for i, arg in enumerate(ir_args):
            di = di_types[i + 1] if di_types is not None else None
            raw = [a.decode() for a in arg.attributes]
            attrs = tuple(a for a in raw if a in ("zeroext", "signext"))
            name = names.get(i + 1) or arg.name or f"arg{i}"
            spec = make_arg(name, elements[i + 1], attrs, di)
            if any(a.split("(")[0] in _ABI_ONLY for a in raw):
                spec = ArgSpec(name, spec.ir_type, "unsupported", None, attrs)
            args.append(spec)
        ret = elements[0]
        ret_di = di_types[0] if di_types else None
        unsigned = bool(ret_di and ret_di.dtype and ret_di.dtype.startswith("u"))
        ret_dtype = scalar_dtype(ret, unsigned)
        source = debug.source_name(fn.name) or fn.name
        found[fn.name] = Signature(fn.name, source, tuple(args), ret, ret_dtype)
    return found


def signature_from_argtypes(
    symbol: str, base: Signature | None, argtypes: list[Any] | None, restype: Any = None
) -> Signature:
    """A signature overridden by the user (``lib.function("f", argtypes=[...])``);
    ``argtypes=None`` keeps the parameters of ``base``."""
    if argtypes is None:
        if base is None:
            raise UsageError(f"{symbol}: argtypes are needed (no signature is known)")
        args: list[ArgSpec] = list(base.args)
        argtypes = []
    else:
        args = []
    for i, text in enumerate(argtypes):
        ir_type, kind, dtype = parse_argtype(text, i)
        old = base.args[i] if base is not None and i < len(base.args) else None
        if old is not None and old.ir_type != ir_type:
            raise UsageError(
                f"argtypes[{i}] of {symbol}: {text!r} is {ir_type} in LLVM IR, but the "
                f"function's parameter {i + 1} is {old.ir_type}"
            )
        name = old.name if old is not None else f"arg{i}"
        args.append(ArgSpec(name, ir_type, kind, dtype, old.attrs if old else ()))
    if base is not None and len(args) != len(base.args):
        raise UsageError(
            f"argtypes of {symbol}: {len(args)} given, the function has {len(base.args)} "
            "parameter(s)"
        )
    if restype is None:
        ret_ir = base.ret_ir_type if base is not None else "void"
        ret_dtype = base.ret_dtype if base is not None else None
    else:
        ret_ir, _, ret_dtype = parse_argtype(restype, -1)
        if base is not None and ret_ir != base.ret_ir_type:
            raise UsageError(f"restype of {symbol}: {restype!r} is {ret_ir} in LLVM IR, but "
                             f"the function returns {base.ret_ir_type}")  # fmt: skip
    name = base.name if base is not None else symbol
    same = base is not None and [a.ir_type for a in args] == [a.ir_type for a in base.args]
    return Signature(symbol, name, tuple(args), ret_ir, ret_dtype,
                     base.extents if same and base is not None else ())


__all__ = ["CTYPES", "ArgSpec", "DIType", "DebugInfo", "Signature", "make_arg", "parse_argtype",
           "read_signatures", "signature_from_argtypes"]
