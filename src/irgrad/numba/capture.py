"""Python functions through numba: the LLVM module *before* numba's final optimization.

``dispatcher.inspect_llvm()`` shows the module after numba optimized it for code
generation; for AD we need it earlier. The function is compiled with numba's debug info
(``!dbg`` locations in the Python source: a derivative error names the file and line of
the ``@njit`` function), without the bounds checks, lifetimes and ``noinline`` that
``debug=True`` would also bring. :func:`numba_ir` compiles the function afresh (a new
dispatcher without cache, so the compilation really happens) while
``CPUCodeLibrary._optimize_final_module`` is hooked to record the library's module text
after numba linked its callees in and before the module-level pipeline runs.

The result names numba's C-ABI wrapper ``cfunc.<mangled>`` (plain arguments and return
value): the function AD differentiates. ``NRT_*``, ``numba_gil_*`` and ``Py*`` symbols
in the module are runtime plumbing (inactive for AD).
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from irgrad.errors import UsageError

_capture_lock = threading.Lock()


@contextmanager
def _capture_final_modules() -> Iterator[list[tuple[str, str]]]:
    from numba.core import codegen

    captured: list[tuple[str, str]] = []
    original = codegen.CPUCodeLibrary._optimize_final_module

    def hooked(library: Any) -> None:
        captured.append((library.name, str(library._final_module)))
        original(library)

    with _capture_lock:
        codegen.CPUCodeLibrary._optimize_final_module = hooked  # type: ignore[method-assign]
        try:
            yield captured
        finally:
            codegen.CPUCodeLibrary._optimize_final_module = original  # type: ignore[method-assign]


def _with_line_tables(options: dict[str, Any]) -> dict[str, Any]:
    """numba's options plus debug info (``!dbg`` locations in the Python source, which
    irgrad's diagnostics report), without what ``debug=True`` would change besides:
    bounds checks stay as the user chose (off by default) and variable lifetimes are not
    extended."""
    options.setdefault("boundscheck", False)
    options["debug"] = True
    options["_dbg_extend_lifetimes"] = False
    return options


_NOINLINE = re.compile(r"^(attributes #\d+ = \{[^\n]*?)\s*\bnoinline\b", re.M)


def _without_debug_noinline(text: str) -> str:
    """numba marks every function ``noinline`` when it emits debug info (to keep frames
    for a debugger); the pre-AD pipeline should inline as without debug info."""
    text = _NOINLINE.sub(r"\1", text)
    # a group left empty is not valid IR: give it a harmless attribute
    return re.sub(r"^(attributes #\d+ = \{)\s*\}", r"\1 nounwind }", text, flags=re.M)


def _fresh_dispatcher(func: Callable[..., Any]) -> Any:
    from numba.core.dispatcher import Dispatcher

    if isinstance(func, Dispatcher):
        return type(func)(
            func.py_func,
            locals=dict(func.locals),
            targetoptions=_with_line_tables(dict(func.targetoptions)),
            pipeline_class=func._compiler.pipeline_class,
        )
    if callable(func):
        import numba

        return numba.njit(func, **_with_line_tables({}))
    raise UsageError(f"numba_ir needs a Python function or numba dispatcher, not {func!r}")


def numba_ir(func: Callable[..., Any], signature: Any) -> tuple[str, str]:
    """``(module_text, wrapper_name)`` of ``func`` compiled by numba for ``signature``.

    ``signature`` is anything numba accepts: ``"float64(float64, float64)"``, a
    ``numba.core.typing.Signature``, or a tuple of argument types.
    """
    text, cres = numba_module(func, signature)
    return text, cres.fndesc.llvm_cfunc_wrapper_name


def numba_module(func: Callable[..., Any], signature: Any) -> tuple[str, Any]:
    """``(module_text, compile_result)``: like :func:`numba_ir`, with numba's compile
    result (``.fndesc.mangled_name`` is the internal function, ``.signature`` the types)."""
    from numba.core import errors as numba_errors
    from numba.core import sigutils

    dispatcher = _fresh_dispatcher(func)
    try:
        args, return_type = sigutils.normalize_signature(signature)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"bad numba signature {signature!r}: {exc}") from None
    sig = return_type(*args) if return_type is not None else tuple(args)
    with _capture_final_modules() as captured, warnings.catch_warnings():
        # numba's array expressions have no source file: their line tables are partial
        warnings.simplefilter("ignore", numba_errors.NumbaDebugInfoWarning)
        try:
            dispatcher.compile(sig)
        except numba_errors.NumbaError as exc:
            raise UsageError(f"numba could not compile {dispatcher.py_func.__name__}: {exc}") from None
    cres = dispatcher.overloads[tuple(args)]
    wrapper = cres.fndesc.llvm_cfunc_wrapper_name
    for _name, text in reversed(captured):
        if f'@"{wrapper}"' in text or f"@{wrapper}(" in text:
            return _without_debug_noinline(text), cres
    raise UsageError(f"numba produced no module defining '{wrapper}'")
