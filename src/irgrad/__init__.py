"""irgrad: automatic differentiation of LLVM IR.

The Python API is loaded lazily (``import irgrad`` stays fast and imports neither llvmlite
nor numba / torch / jax / tensorflow):

    lib = irgrad.compile(source=code, language="c")
    lib["f"](x, n); lib.autodiff("f", irgrad.Duplicated(x, dx), irgrad.Const(n))
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "compile": "irgrad.python.library",
    "compile_c": "irgrad.python.library",
    "Library": "irgrad.python.library",
    "explain_ad": "irgrad.python.explain",
    "Function": "irgrad.python.callables",
    "Active": "irgrad.python.annotations",
    "Const": "irgrad.python.annotations",
    "Duplicated": "irgrad.python.annotations",
    "DuplicatedNoNeed": "irgrad.python.annotations",
    "grad": "irgrad.numba.api",
    "vjp": "irgrad.numba.api",
    "jvp": "irgrad.numba.api",
}
# framework integrations: ``irgrad.torch`` etc., imported (with the framework) on first use
_SUBMODULES: dict[str, str] = {
    "torch": "irgrad.integrations.torch",
    "jax": "irgrad.integrations.jax",
    "tensorflow": "irgrad.integrations.tensorflow",
}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        submodule = importlib.import_module(_SUBMODULES[name])
        globals()[name] = submodule
        return submodule
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'irgrad' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS, *_SUBMODULES])


__all__ = ["__version__", *_EXPORTS]
