"""The C-level facts the framework view needs, read from ``lib[name].signature``.

Kept apart from :mod:`spec` so that the one place that depends on the shape of the Python
API's signature object is small: parameter names, kinds (``"pointer"``, ``"float"``,
``"int"``) and NumPy element dtypes, and the return type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from irgrad.errors import UsageError


@dataclass(frozen=True)
class CParam:
    """One C parameter (or the return value): name, kind and NumPy (element) dtype."""

    name: str
    kind: str  # "pointer" | "float" | "int"
    dtype: np.dtype[Any]
    c_type: str  # for messages: "double *", "float", "int"


@dataclass(frozen=True)
class CSignature:
    name: str
    params: tuple[CParam, ...]
    ret: CParam | None  # None: void (or a return the integrations ignore)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {p.name: p for p in self.params})

    def param(self, name: str) -> CParam:
        found = self._by_name.get(name)  # type: ignore[attr-defined]
        if found is not None:
            return found  # type: ignore[no-any-return]
        raise UsageError(f"'{self.name}' has no parameter '{name}' "
                         f"({', '.join(p.name for p in self.params)})")


_C_NAMES = {"float64": "double", "float32": "float", "int32": "int", "int64": "long",
            "uint32": "unsigned", "uint64": "unsigned long", "int16": "short",
            "int8": "char", "uint8": "unsigned char", "uint16": "unsigned short",
            "bool": "bool"}  # fmt: skip


def _c_type(kind: str, dtype: str) -> str:
    base = _C_NAMES.get(dtype, dtype)
    return f"{base} *" if kind == "pointer" else base


def c_signature(lib: Any, name: str) -> CSignature:
    """The :class:`CSignature` of ``lib[name]`` (clear errors for what cannot be wrapped)."""
    sig = lib[name].signature
    params = []
    for arg in sig.args:
        if arg.kind not in ("pointer", "float", "int"):
            raise UsageError(f"irgrad op '{name}': parameter '{arg.name}' has type "
                             f"{arg.ir_type}, which the framework integrations cannot pass")
        if arg.dtype is None:
            raise UsageError(
                f"irgrad op '{name}': the element type of pointer parameter '{arg.name}' is "
                "unknown (no debug info); compile the source with irgrad.compile, which "
                "keeps debug info"
            )
        params.append(CParam(arg.name, arg.kind, np.dtype(arg.dtype),
                             _c_type(arg.kind, arg.dtype)))
    ret = None
    if sig.ret_dtype is not None:
        kind = "float" if np.dtype(sig.ret_dtype).kind == "f" else "int"
        ret = CParam("return", kind, np.dtype(sig.ret_dtype), _c_type(kind, sig.ret_dtype))
    return CSignature(name, tuple(params), ret)
