"""Building the derivative of a numba function for one signature into native code.

numba's module (taken before its final optimization, :func:`irgrad.numba.capture.
numba_module`) gets its NRT memory replaced (:mod:`irgrad.numba.nrt`) and the C-ABI
wrappers of :mod:`irgrad.numba.abi` appended; every other definition becomes
``internal`` so that the pre-AD pipeline drops what the wrappers do not reach (numba's
CPython and cfunc wrappers, which call the Python C API). The module then goes through
irgrad's pipeline (pre-AD O2, ``__enzyme_*`` lowering, the arena for NRT memory, post-AD
optimization) into its own LLJIT. Calls of ``NRT_*``, ``numba_gil_*`` and ``Py*`` left
in the differentiated code are inactive for AD (:mod:`irgrad.analysis.known_functions`).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from irgrad.errors import UsageError
from irgrad.numba.abi import (
    EXCEPTION_SLOT_IR,
    FORWARD,
    REVERSE,
    WRAPPERS,
    ArgKind,
    classify,
    exploded_count,
    forward_wrapper,
    primal_wrapper,
    return_kind,
    return_type_ll,
    reverse_wrapper,
    seeded_wrapper,
    share_exception_slots,
)
from irgrad.numba.capture import numba_module
from irgrad.numba.nested import gradient_primal, inner_wrappers
from irgrad.numba.nrt import replace_nrt_memory, use_arena

MODES = ("rev", "fwd")
_ENV_PREFIX = "_ZN08NumbaEnv"


@dataclass
class Built:
    """The JIT-compiled wrappers of one (function, signature, mode)."""

    kinds: list[ArgKind]
    has_return: bool  # f returns a float64
    out_ndim: int = 0  # rank of the float64 array f returns (0: none)
    functions: dict[str, Any] = field(default_factory=dict)  # wrapper name -> ctypes fn
    jit: Any = None
    environments: list[Any] = field(default_factory=list)  # kept alive for the JIT code


def _ctype(k: ArgKind) -> Any:
    if k.kind == "float":
        return ctypes.c_double if k.bits == 64 else ctypes.c_float
    return {8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32, 64: ctypes.c_int64}[
        k.bits
    ]


def wrapper_argtypes(kinds: list[ArgKind], mode: str, out_ndim: int = 0
                     ) -> tuple[Any, list[Any]]:
    """``(restype, argtypes)`` of a wrapper as ctypes types; pointers are ``c_uint64`` (so
    numba code passes ``array.ctypes.data``)."""
    ptr = ctypes.c_uint64
    out: list[Any] = [ptr]  # status
    if mode == "rev":
        out += [ptr, ctypes.c_double]  # dscalars, seed
    elif mode == "fwd":
        out.append(ptr)  # primal_out
    if out_ndim:
        out += [ptr, ptr, ctypes.c_int64, ptr]  # out, its shadow, out_n, out_shape
    for k in kinds:
        if k.kind == "array":
            out += [ptr, ptr]
            out += [ctypes.c_int64] * k.ndim
        else:
            out.append(_ctype(k))
            if k.kind == "float" and mode == "fwd":
                out.append(_ctype(k))
    return out[0], out  # restype is filled in by the caller


def _make_internal(module: Any) -> None:
    import llvmlite.binding as llvm

    for fn in module.functions:
        if not fn.is_declaration and fn.name not in WRAPPERS:
            fn.linkage = llvm.Linkage.internal
    for gv in module.global_variables:
        if gv.name.startswith(_ENV_PREFIX):
            gv.linkage = llvm.Linkage.external  # set to numba's Environment after JIT
        elif not gv.is_declaration and not gv.name.startswith("__enzyme_"):
            gv.linkage = llvm.Linkage.internal  # (registrations stay until AD reads them)


def _set_environments(jit: Any, module: Any) -> list[Any]:
    """Point the module's ``NumbaEnv`` globals at numba's Environment objects (what
    numba's own code generation does); code that prints or boxes values needs them."""
    from numba.core.environment import Environment

    kept: list[Any] = []
    for gv in module.global_variables:
        if not gv.name.startswith(_ENV_PREFIX) or gv.is_declaration:
            continue
        env = Environment._memo.get(gv.name)
        if env is not None:
            slot = ctypes.c_void_p.from_address(jit.address(gv.name))
            slot.value = id(env)
            kept.append(env)
    return kept


def kinds_of(py_func: Callable[..., Any], arg_types: tuple[Any, ...],
             inactive: tuple[int, ...] = ()) -> list[ArgKind]:
    """How each argument is passed; the positions in ``inactive`` (floats and arrays
    that ``argnums`` leaves out) are passed ``enzyme_const``."""
    import dataclasses
    import inspect

    try:
        names = list(inspect.signature(py_func).parameters)
    except (TypeError, ValueError):
        names = []
    names += [f"arg{i}" for i in range(len(names), len(arg_types))]
    kinds = [classify(t, names[i], i) for i, t in enumerate(arg_types)]
    return [dataclasses.replace(k, active=False) if i in inactive else k
            for i, k in enumerate(kinds)]


@functools.lru_cache(maxsize=256)
def build(py_func: Callable[..., Any], arg_types: tuple[Any, ...], mode: str,
          opt_level: int = 2, inactive: tuple[int, ...] = ()) -> Built:
    """Compile ``py_func`` for numba ``arg_types`` and synthesize the ``mode`` wrappers
    (the arguments at the positions ``inactive`` are constant)."""
    if mode not in MODES:
        raise UsageError(f"unknown derivative mode {mode!r}, expected one of {MODES}")
    name = getattr(py_func, "__name__", "function")
    kinds = kinds_of(py_func, arg_types, inactive)
    text, cres = numba_module(py_func, arg_types)
    has_return, out_ndim = return_kind(cres.signature.return_type, name)
    fn_type = cres.target_context.call_conv.get_function_type(
        cres.signature.return_type, cres.signature.args
    )
    if len(fn_type.args) != 2 + exploded_count(kinds):
        raise UsageError(
            f"{name}: numba's calling convention has {len(fn_type.args)} parameters, irgrad "
            f"expected {2 + exploded_count(kinds)} (unsupported numba version?)"
        )
    ret_ll = return_type_ll(cres.signature.return_type)
    pieces = [replace_nrt_memory(share_exception_slots(text)),
              primal_wrapper(kinds, has_return, cres.fndesc.mangled_name, out_ndim, ret_ll)]
    if mode == "rev":
        pieces += [seeded_wrapper(kinds, has_return, out_ndim), reverse_wrapper(kinds, out_ndim)]
    else:
        pieces.append(forward_wrapper(kinds, has_return, out_ndim))
    return _compile(pieces, kinds, mode, has_return, out_ndim, name, opt_level)


@functools.lru_cache(maxsize=64)
def build_gradient_of_gradient(py_func: Callable[..., Any], arg_types: tuple[Any, ...],
                               inner_inactive: tuple[int, ...],
                               outer_inactive: tuple[int, ...], opt_level: int = 2) -> Built:
    """The reverse wrappers of ``grad(grad(f))``: the inner gradient (one float: the
    arguments at ``inner_inactive`` are constant) differentiated again with respect to the
    arguments not in ``outer_inactive`` (:mod:`irgrad.numba.nested`)."""
    name = getattr(py_func, "__name__", "function")
    inner = kinds_of(py_func, arg_types, inner_inactive)
    outer = kinds_of(py_func, arg_types, outer_inactive)
    text, cres = numba_module(py_func, arg_types)
    has_return, _ = return_kind(cres.signature.return_type, name)
    active = [k for k in inner if k.differentiable]
    if not has_return or len(active) != 1 or active[0].kind != "float" or \
            any(k.kind == "array" and k.active for k in outer):
        raise UsageError(
            f"irgrad.grad(irgrad.grad({name})): the inner gradient must be one float (a "
            "function of one float argument, or argnums=int selecting a float) and the "
            "outer gradient must be taken with respect to float scalars")
    pieces = [replace_nrt_memory(share_exception_slots(text)),
              inner_wrappers(inner, True, cres.fndesc.mangled_name,
                             return_type_ll(cres.signature.return_type)),
              gradient_primal(outer), seeded_wrapper(outer, True), reverse_wrapper(outer)]
    return _compile(pieces, outer, "rev", True, 0, f"grad of grad of {name}", opt_level)


def _compile(pieces: list[str], kinds: list[ArgKind], mode: str, has_return: bool,
             out_ndim: int, name: str, opt_level: int) -> Built:
    """The module text of ``pieces`` through irgrad's pipeline into a JIT."""
    from irgrad import ir
    from irgrad.llvm.canonicalize import canonicalize
    from irgrad.llvm.jit import JITModule
    from irgrad.llvm.load import parse_llvm
    from irgrad.llvm.optimize import optimize
    from irgrad.numba.lapack import scipy_symbols
    from irgrad.pipeline import lower_enzyme_calls, to_ir_model

    filename = f"<numba {name}>"
    module = parse_llvm("\n".join([*pieces, EXCEPTION_SLOT_IR]), filename)
    _make_internal(module)
    module = canonicalize(module, filename=filename)
    model = lower_enzyme_calls(to_ir_model(module, filename))
    text = use_arena(ir.print_module(model))
    module = optimize(parse_llvm(text, f"{filename} (after irgrad)"), opt_level)
    jit = JITModule(module, filename=filename, opt_level=opt_level,
                    symbols=scipy_symbols(module))
    entry = REVERSE if mode == "rev" else FORWARD
    _, argtypes = wrapper_argtypes(kinds, mode, out_ndim)
    restype = ctypes.c_double if mode == "fwd" and has_return else None
    built = Built(kinds, has_return, out_ndim, jit=jit,
                  environments=_set_environments(jit, module))
    built.functions[entry] = jit.get(entry, restype, argtypes)
    return built
