"""Calling compiled functions from Python: argument checks and conversion (ctypes).

A pointer parameter takes a C-contiguous NumPy array of its element type (float64 <->
``double*``, float32 <-> ``float*``, int32 <-> ``int*``, int64 <-> ``long*``...), a
Python number (boxed into a one-element array: Fortran passes scalars by reference) or
None (a null pointer). A floating-point parameter takes a real number, an integer
parameter an integer. Anything else is a :class:`~irgrad.errors.UsageError` that names
the function, the argument and what was expected; arrays are never copied or converted
silently (a function writing through a pointer must write into the caller's array).
"""

from __future__ import annotations

import ctypes
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from irgrad.errors import UsageError
from irgrad.python.extents import check_extents
from irgrad.python.signature import CTYPES, ArgSpec, Signature
from irgrad.python.wrappers import WrapperLayout


def ctype_of(ir_type: str, dtype: str | None, kind: str = "") -> Any:
    """The ctypes type passing a value of ``ir_type`` (None for void)."""
    if ir_type == "void":
        return None
    if ir_type == "ptr" and kind != "unsupported":
        return ctypes.c_void_p
    if dtype is None or dtype not in CTYPES:
        what = ("pointers to pointers and structs" if ir_type == "ptr"
                else f"values of LLVM type {ir_type}")  # fmt: skip
        raise UsageError(f"{what} cannot be passed from Python")
    return CTYPES[dtype]


def where(sig: Signature, index: int, role: str = "argument") -> str:
    arg = sig.args[index]
    return f"{role} {index + 1} ('{arg.name}') of {sig.name}"


def as_array(spec: ArgSpec, value: Any, place: str) -> np.ndarray | None:
    """The array a pointer parameter receives (checked; scalars boxed; None: null)."""
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        if spec.dtype is not None and value.dtype != np.dtype(spec.dtype):
            raise UsageError(
                f"{place}: expected a {spec.dtype} array ({spec.ir_type} to {spec.dtype}), "
                f"got a {value.dtype} array"
            )
        if spec.dtype is None and value.dtype.kind not in "fiub":
            raise UsageError(f"{place}: expected a numeric array, got dtype {value.dtype}")
        if not value.flags.c_contiguous:
            raise UsageError(
                f"{place}: the array must be C-contiguous (use np.ascontiguousarray)"
            )
        return value
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        dtype = spec.dtype or ("float64" if isinstance(value, float) else "int64")
        return np.array([value], dtype=dtype)
    raise UsageError(
        f"{place}: expected a NumPy array of {spec.dtype or 'numbers'}, got "
        f"{type(value).__name__}"
    )


def as_scalar(spec: ArgSpec, value: Any, place: str) -> Any:
    """A Python number for a scalar parameter (checked)."""
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise UsageError(
                f"{place}: expected a scalar ({spec.describe()}), got an array of shape "
                f"{value.shape}"
            )
        value = value[()]
    if spec.kind == "float":
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)
        raise UsageError(f"{place}: expected a real number ({spec.describe()}), got "
                         f"{type(value).__name__}")  # fmt: skip
    if spec.kind == "int":
        if isinstance(value, numbers.Integral):
            info = np.iinfo(spec.dtype) if spec.dtype != "bool" else None
            if info is not None and not info.min <= int(value) <= info.max:
                raise UsageError(f"{place}: {value} does not fit in {spec.dtype}")
            return int(value)
        raise UsageError(f"{place}: expected an integer ({spec.describe()}), got "
                         f"{type(value).__name__}")  # fmt: skip
    raise UsageError(f"{place}: parameters of LLVM type {spec.ir_type} are not supported")


_MISSING = object()


def bind_arguments(sig: Signature, args: Sequence[Any], kwargs: dict[str, Any]
                   ) -> tuple[Any, ...]:
    """Positional ``args`` completed by ``kwargs`` given by parameter name."""
    if not kwargs:
        return tuple(args)
    names = sig.names
    if len(args) > len(names):
        check_count(sig, args)
    out: list[Any] = [*args, *([_MISSING] * (len(names) - len(args)))]
    for key, value in kwargs.items():
        if key not in names:
            raise UsageError(f"{sig.name} has no parameter named {key!r} (parameters: "
                             f"{', '.join(names)})")
        i = names.index(key)
        if out[i] is not _MISSING:
            raise UsageError(f"{where(sig, i)} is given twice (by position and by name)")
        out[i] = value
    missing = [names[i] for i, v in enumerate(out) if v is _MISSING]
    if missing:
        raise UsageError(f"{sig.name}: no value for parameter(s) {', '.join(missing)}")
    return tuple(out)


def check_count(sig: Signature, args: Sequence[Any]) -> None:
    if len(args) != len(sig.args):
        names = ", ".join(a.name for a in sig.args)
        raise UsageError(
            f"{sig.name} takes {len(sig.args)} argument(s) ({names}), {len(args)} given"
        )


def check_sizes(sig: Signature, arrays: dict[int, list[tuple[str, np.ndarray | None]]],
                values: Sequence[Any]) -> None:
    """The arrays passed are at least as large as the function may access, given its
    integer arguments (:mod:`irgrad.python.extents`)."""
    if not sig.extents:
        return
    ints = {i: int(v) for i, (a, v) in enumerate(zip(sig.args, values, strict=False))
            if a.kind == "int" and isinstance(v, int)}
    check_extents(sig.name, sig.names, sig.extents, arrays, ints)


def pointer_of(array: np.ndarray | None) -> int | None:
    return None if array is None else int(array.ctypes.data)


class Function:
    """A compiled function callable on NumPy arrays and Python numbers.

    ``.signature`` describes its parameters (names, dtypes). Calling it checks every
    argument and returns a Python number (or None for void, an int for a pointer).
    """

    def __init__(self, signature: Signature, address: int, owner: Any) -> None:
        self.signature = signature
        self.name = signature.name
        self._owner = owner  # keeps the library (and its code) alive
        argtypes = []
        for i, a in enumerate(signature.args):
            try:
                argtypes.append(ctype_of(a.ir_type, a.dtype, a.kind))
            except UsageError as exc:
                raise UsageError(f"{where(signature, i, 'parameter')}: {exc.message}") from None
        self._cfunc = ctypes.CFUNCTYPE(
            ctype_of(signature.ret_ir_type, signature.ret_dtype), *argtypes
        )(address)

    def convert(self, args: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """ctypes-ready values of ``args`` and the objects to keep alive during the call."""
        sig = self.signature
        check_count(sig, args)
        values: list[Any] = []
        keep: list[Any] = []
        arrays: dict[int, list[tuple[str, np.ndarray | None]]] = {}
        for i, (spec, value) in enumerate(zip(sig.args, args, strict=True)):
            if spec.kind == "pointer":
                array = as_array(spec, value, where(sig, i))
                keep.append(array)
                values.append(pointer_of(array))
                arrays[i] = [(where(sig, i), array)]
            else:
                values.append(as_scalar(spec, value, where(sig, i)))
        check_sizes(sig, arrays, values)
        return values, keep

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values, _keep = self.convert(bind_arguments(self.signature, args, kwargs))
        return self._cfunc(*values)

    def __repr__(self) -> str:
        return f"<irgrad.Function {self.signature}>"


class WrapperCall:
    """A derivative wrapper (see :mod:`irgrad.python.wrappers`): flat ctypes call."""

    def __init__(self, argtypes: list[Any], address: int, owner: Any) -> None:
        self._owner = owner
        self._cfunc = ctypes.CFUNCTYPE(None, *argtypes)(address)

    def __call__(self, *values: Any) -> None:
        self._cfunc(*values)


class Derivative:
    """A compiled derivative wrapper and its calling layout."""

    def __init__(self, layout: WrapperLayout, call: WrapperCall) -> None:
        self.layout = layout
        self.call = call


__all__ = [
    "Derivative", "Function", "WrapperCall", "as_array", "as_scalar", "bind_arguments",
    "check_count",
    "check_sizes", "ctype_of", "where",
]
