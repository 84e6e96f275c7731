"""C's ``sincos`` becomes a sine and a cosine (a pre-AD step, in modules that ask for
derivatives).

glibc's ``sincos(x, &s, &c)`` (and ``sincosf``, ``sincosl``; a GNU extension that
numerical codes call to get both values at once) returns its results through two pointers,
so it has no derivative rule of the kind a math function has (one result from operands).
Each call becomes ``s = sin(x); c = cos(x)``: two stores of the LLVM intrinsics, which mean
the same (glibc's ``sincos`` computes the values ``sin`` and ``cos`` compute). The
derivative then sees two math functions and two stores into memory it already tracks, in
either mode. LLVM's ``llvm.sincos`` intrinsic (a ``{sin, cos}`` pair) is split the same
way. The code generator joins a sine and a cosine of the same value into one ``sincos``
call again where it can, so a primal loses nothing.

A module that defines a function of one of these names keeps its own.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ir.builder import IRBuilder

#: the library functions (double, float, long double)
SINCOS = frozenset(["sincos", "sincosf", "sincosl"])
_SUFFIX = {"half": "f16", "float": "f32", "double": "f64", "x86_fp80": "f80",
           "fp128": "f128", "ppc_fp128": "ppcf128"}


def is_sincos_intrinsic(name: str | None) -> bool:
    """``llvm.sincos.f64`` and its other overloads (split by this step before AD)."""
    return name is not None and name.startswith("llvm.sincos.")


def lower_sincos_libcalls(module: ir.Module) -> int:
    """Split the ``sincos``/``sincosf``/``sincosl`` calls and the ``llvm.sincos`` intrinsic
    calls of ``module`` (one that calls an ``__enzyme_*`` function); how many."""
    if not any(f.name.startswith("__enzyme_") for f in module.functions
               if f.is_declaration and f.name):
        return 0
    done = 0
    for fn in list(module.functions):
        if not fn.is_declaration or not fn.name:
            continue
        if fn.name in SINCOS:
            if not _is_sincos_type(fn.function_type):
                continue
            for call in _direct_calls(fn):
                _split_library_call(call)
                done += 1
        elif is_sincos_intrinsic(fn.name):
            for call in _direct_calls(fn):
                _split_intrinsic_call(call)
                done += 1
    return done


def _is_sincos_type(fnty: ir.FunctionType) -> bool:
    """``void (T, ptr, ptr)`` with a scalar floating-point ``T``."""
    params = list(fnty.params)
    return (fnty.return_type.is_void and len(params) == 3
            and isinstance(params[0], ir.FloatType)
            and params[1].is_pointer and params[2].is_pointer)


def _direct_calls(fn: ir.Function) -> list[ir.CallInst]:
    return [u for u in list(fn.users)
            if isinstance(u, ir.CallInst) and u.called_function is fn]


def _sin_cos(b: IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    suffix = _suffix(x.type)
    s = b.call_intrinsic(f"llvm.sin.{suffix}", x.type, [x])
    c = b.call_intrinsic(f"llvm.cos.{suffix}", x.type, [x])
    return s, c


def _suffix(ty: ir.Type) -> str:
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{_suffix(ty.element)}"
    assert isinstance(ty, ir.FloatType)
    return _SUFFIX[ty.kind]


def _split_library_call(call: ir.CallInst) -> None:
    x, sin_out, cos_out = call.args[:3]
    b = IRBuilder(position=call)
    b.debug_loc = call.get_metadata("dbg")
    s, c = _sin_cos(b, x)
    b.store(s, sin_out)
    b.store(c, cos_out)
    call.erase_from_parent()


def _split_intrinsic_call(call: ir.CallInst) -> None:
    x = call.args[0]
    b = IRBuilder(position=call)
    b.debug_loc = call.get_metadata("dbg")
    s, c = _sin_cos(b, x)
    pair: ir.Value = ir.PoisonValue(call.type)
    pair = b.insert_value(pair, s, 0)
    pair = b.insert_value(pair, c, 1, name=call.name or None)
    call.replace_all_uses_with(pair)
    call.erase_from_parent()
