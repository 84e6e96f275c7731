"""The C-ABI wrappers irgrad appends to a numba module before differentiating it.

numba compiles ``f`` to an internal function with its own calling convention::

    i32 @<mangled>(ptr %retptr, ptr %excinfo, <exploded arguments>)

where a float64 is a ``double``, an integer an ``iN`` and an array the exploded fields of
its struct ``{meminfo, parent, nitems, itemsize, data, shape[ndim], strides[ndim]}``. The
returned ``i32`` is a status (0 ok, -2 ok returning None, anything else: an exception was
raised and ``excinfo`` describes it).

irgrad calls it from wrappers with plain C arguments (``ptr status`` first, then per
argument ``double`` / ``iN`` / ``ptr data, i64 shape...``). The array's meminfo and parent
are null (NRT reference counting of a null meminfo does nothing), its strides are the
C-contiguous ones. On top of the primal wrapper the derivative wrappers call Enzyme's
entry points (``__enzyme_autodiff`` / ``__enzyme_fwddiff``) with markers, so the whole
derivative is synthesized by irgrad's ordinary ``__enzyme_*`` lowering:

* ``irgrad_nb_primal(status, args...) -> double | void``;
* ``irgrad_nb_rev(status, ptr dscalars, double seed, args-with-shadows...)``: reverse
  mode with the float return seeded with ``seed``; the derivatives of the float64 scalars
  are stored to ``dscalars[i]``, array shadows accumulate (``+=``);
  both derivative wrappers free the arrays numba allocated (and their shadows) when done,
  see :mod:`irgrad.numba.nrt`;
* ``irgrad_nb_fwd(status, ptr primal_out, args-with-tangents...) -> double | void``:
  forward mode; returns the tangent of the return value, stores its primal value to
  ``primal_out``; array shadows are the tangents of the arrays' final contents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from irgrad.errors import UsageError

PRIMAL = "irgrad_nb_primal"
SEEDED = "irgrad_nb_seeded"
REVERSE = "irgrad_nb_rev"
FORWARD = "irgrad_nb_fwd"
WRAPPERS = (PRIMAL, SEEDED, REVERSE, FORWARD)

# Where numba's function puts the description of an exception it raises (its ``excinfo``
# parameter). A global registered inactive (Enzyme's ``__enzyme_inactive_global``): a
# pointer to constant exception data stored there carries no derivative, also when numba
# left the function that raises out of line (otherwise the slot, passed to a call that
# also gets active arrays, would count as memory that may hold active pointers). The
# derivative wrappers hold the arena's lock, so one call uses the slot at a time.
EXCEPTION_SLOT = "irgrad_nb_excinfo"
EXCEPTION_SLOT_IR = f"""@{EXCEPTION_SLOT} = internal global ptr null, align 8
@__enzyme_inactive_global_irgrad_nb = global [1 x ptr] [ptr @{EXCEPTION_SLOT}]
"""
# numba's own call sequences give each call a local slot (``%excinfo.3 = alloca ptr``)
# and copy what the callee stored there into their own ``excinfo`` on error
_LOCAL_SLOT = re.compile(r'^(\s*)(%"?excinfo(?:\.\d+)?"?) = alloca ptr(?:, align \d+)?$', re.M)


def share_exception_slots(text: str) -> str:
    """numba's module text with every local exception slot made the one inactive slot:
    a local slot passed to a callee together with active arrays would count as memory
    that may hold active pointers. (The callee stores the exception's description there
    and the caller copies it into its own slot, which is the same slot: unchanged.)"""
    return _LOCAL_SLOT.sub(
        lambda m: f"{m.group(1)}{m.group(2)} = getelementptr i8, ptr @{EXCEPTION_SLOT}, i64 0",
        text)


@dataclass(frozen=True)
class ArgKind:
    """How one argument of the numba function is passed and differentiated.

    ``kind`` is ``"float"`` (a float64 or float32 scalar: active), ``"int"`` (an integer
    or boolean scalar: constant, ``bits`` wide in numba's ABI) or ``"array"`` (a
    C-contiguous float64 or float32 array of ``ndim`` dimensions: duplicated with a shadow
    of the same shape). For floats and arrays ``bits`` is the element's width (64 or 32).
    ``active=False``: a float or array the derivative is not taken with respect to
    (``argnums`` leaves it out): passed ``enzyme_const``.
    """

    kind: str
    bits: int = 64
    ndim: int = 0
    name: str = ""
    active: bool = True
    # an F-order or strided array: the derivative works on a C-contiguous copy, whose
    # contents go back into the array afterwards when it is ``writable``
    contiguous: bool = True
    writable: bool = True

    @property
    def differentiable(self) -> bool:
        """A float or array argument the derivative is taken with respect to."""
        return self.kind in ("float", "array") and self.active

    @property
    def ll(self) -> str:
        """The LLVM type of the scalar or of the array's elements."""
        if self.kind == "int":
            return f"i{self.bits}"
        return "double" if self.bits == 64 else "float"

    @property
    def itemsize(self) -> int:
        return self.bits // 8


def classify(numba_type: Any, name: str, position: int) -> ArgKind:
    """The :class:`ArgKind` of a numba type, or a :class:`UsageError` saying what is allowed."""
    from numba.core import types

    where = f"argument {position} ('{name}')"
    if numba_type in (types.float64, types.float32):
        return ArgKind("float", bits=numba_type.bitwidth, name=name)
    if isinstance(numba_type, types.Boolean):
        return ArgKind("int", bits=8, name=name)
    if isinstance(numba_type, types.Integer):
        return ArgKind("int", bits=numba_type.bitwidth, name=name)
    if isinstance(numba_type, types.Array):
        if numba_type.dtype not in (types.float64, types.float32):
            raise UsageError(
                f"{where}: irgrad differentiates float64 and float32 arrays, got an array "
                f"of {numba_type.dtype} (convert with .astype(np.float64))"
            )
        if numba_type.ndim < 1:
            raise UsageError(f"{where}: irgrad needs an array of at least one dimension, "
                             f"got a 0-d array ({numba_type}); pass a float instead")
        return ArgKind("array", bits=numba_type.dtype.bitwidth, ndim=numba_type.ndim,
                       name=name, contiguous=numba_type.layout == "C",
                       writable=bool(numba_type.mutable))
    raise UsageError(
        f"{where}: irgrad supports float64/float32 scalars, C-contiguous float64/float32 "
        f"arrays and integer scalars (constant), got {numba_type}"
    )


def return_kind(return_type: Any, name: str) -> tuple[bool, int]:
    """``(returns_float, out_ndim)``: a float64 return, or the rank of a returned
    C-contiguous float64 array (0: none); None gives ``(False, 0)``, anything else is a
    UsageError."""
    from numba.core import types

    if return_type in (types.float64, types.float32):
        return True, 0
    if return_type == types.none:
        return False, 0
    if (isinstance(return_type, types.Array) and return_type.dtype == types.float64
            and return_type.layout == "C" and return_type.ndim >= 1):
        return False, return_type.ndim
    raise UsageError(
        f"{name} returns {return_type}: irgrad differentiates numba functions returning a "
        "float64 or float32, a C-contiguous float64 array (vjp/jvp) or None (write other results "
        "into an output argument instead)"
    )


def return_type_ll(return_type: Any) -> str:
    """The LLVM type of a float return value (``double`` for float64, ``float``)."""
    from numba.core import types

    return "float" if return_type == types.float32 else "double"


def exploded_count(kinds: list[ArgKind]) -> int:
    """How many parameters numba's internal ABI has for these arguments (after the 2)."""
    return sum(5 + 2 * k.ndim if k.kind == "array" else 1 for k in kinds)


# --- text generation ---------------------------------------------------------------


def _params(kinds: list[ArgKind], shadows: bool) -> list[str]:
    """Wrapper parameters for the arguments (with shadow pointers / tangents if asked)."""
    out: list[str] = []
    for i, k in enumerate(kinds):
        if k.kind == "float":
            out.append(f"{k.ll} %a{i}")
            if shadows:
                out.append(f"{k.ll} %t{i}")
        elif k.kind == "int":
            out.append(f"i{k.bits} %a{i}")
        else:
            out.append(f"ptr %a{i}")
            if shadows:
                out.append(f"ptr %d{i}")
            out += [f"i64 %a{i}.s{d}" for d in range(k.ndim)]
    return out


def _explode(kinds: list[ArgKind]) -> tuple[list[str], list[str]]:
    """Instructions computing numba's exploded arguments and the argument list itself."""
    body: list[str] = []
    args: list[str] = []
    for i, k in enumerate(kinds):
        if k.kind == "float":
            args.append(f"{k.ll} %a{i}")
        elif k.kind == "int":
            args.append(f"i{k.bits} %a{i}")
        else:
            # C-contiguous strides: stride[d] = itemsize * prod(shape[d+1:]); nitems =
            # prod(shape)
            strides = [str(k.itemsize)] * k.ndim
            for d in range(k.ndim - 2, -1, -1):
                body.append(f"  %a{i}.st{d} = mul i64 {strides[d + 1]}, %a{i}.s{d + 1}")
                strides[d] = f"%a{i}.st{d}"
            n = f"%a{i}.s0"
            for d in range(1, k.ndim):
                body.append(f"  %a{i}.n{d} = mul i64 {n}, %a{i}.s{d}")
                n = f"%a{i}.n{d}"
            args += ["ptr null", "ptr null", f"i64 {n}", f"i64 {k.itemsize}", f"ptr %a{i}"]
            args += [f"i64 %a{i}.s{d}" for d in range(k.ndim)]
            args += [f"i64 {strides[d]}" for d in range(k.ndim)]
    return body, args


SHAPE_MISMATCH = 77  # status of the primal wrapper: the result does not fit ``out``


def _out_params(out_ndim: int, shadow: str | None) -> list[str]:
    """Parameters for a returned array: ``ptr out[, ptr shadow], i64 out_n, ptr shape``."""
    if not out_ndim:
        return []
    return ["ptr %out", *([f"ptr %{shadow}"] if shadow else []), "i64 %out_n", "ptr %out_shape"]


def _copy_result(out_ndim: int) -> list[str]:
    """Copy the returned array into ``out`` (its shape into ``out_shape``); a different
    element count sets the status to SHAPE_MISMATCH and copies nothing."""
    k = out_ndim
    st = f"{{ ptr, ptr, i64, i64, ptr, [{k} x i64], [{k} x i64] }}"
    lines = [
        "  %ok = icmp eq i32 %st, 0",
        "  br i1 %ok, label %result, label %done",
        "result:",
        f"  %np = getelementptr {st}, ptr %ret, i32 0, i32 2",
        "  %n = load i64, ptr %np, align 8",
        f"  %dp = getelementptr {st}, ptr %ret, i32 0, i32 4",
        "  %data = load ptr, ptr %dp, align 8",
    ]
    for d in range(k):
        lines += [
            f"  %sp{d} = getelementptr {st}, ptr %ret, i32 0, i32 5, i32 {d}",
            f"  %s{d} = load i64, ptr %sp{d}, align 8",
            f"  %so{d} = getelementptr i64, ptr %out_shape, i64 {d}",
            f"  store i64 %s{d}, ptr %so{d}, align 8",
        ]
    lines += [
        "  %same = icmp eq i64 %n, %out_n",
        "  br i1 %same, label %check, label %bad",
        "bad:",
        f"  store i32 {SHAPE_MISMATCH}, ptr %status, align 4",
        "  br label %done",
        "check:",
        "  %empty = icmp eq i64 %n, 0",
        "  br i1 %empty, label %done, label %copy",
        "copy:",
        "  %i = phi i64 [ 0, %check ], [ %i1, %copy ]",
        "  %src = getelementptr double, ptr %data, i64 %i",
        "  %v = load double, ptr %src, align 8",
        "  %dst = getelementptr double, ptr %out, i64 %i",
        "  store double %v, ptr %dst, align 8",
        "  %i1 = add nuw i64 %i, 1",
        "  %more = icmp ult i64 %i1, %n",
        "  br i1 %more, label %copy, label %done",
        "done:",
        "  ret void",
    ]
    return lines


def primal_wrapper(kinds: list[ArgKind], has_return: bool, internal: str,
                   out_ndim: int = 0, ret_ll: str = "double") -> str:
    """``irgrad_nb_primal(ptr status, [out...], args...)``: calls numba's function, stores
    its status (and copies a returned array into ``out``). A float return (``ret_ll``:
    ``double`` or ``float``) is returned as a double."""
    ret = "double" if has_return else "void"
    if has_return:
        slot = ret_ll
    elif out_ndim:
        slot = f"{{ ptr, ptr, i64, i64, ptr, [{out_ndim} x i64], [{out_ndim} x i64] }}"
    else:
        slot = "[2 x i64]"
    body, args = _explode(kinds)
    params = ["ptr %status", *_out_params(out_ndim, None), *_params(kinds, False)]
    lines = [
        f"define {ret} @{PRIMAL}({', '.join(params)}) {{",
        "entry:",
        f"  %ret = alloca {slot}, align 8",
        f"  store ptr null, ptr @{EXCEPTION_SLOT}, align 8",
    ]
    if has_return:
        lines.append(f"  store {ret_ll} 0.0, ptr %ret, align 8")
    lines += body
    call_args = ", ".join(["ptr %ret", f"ptr @{EXCEPTION_SLOT}", *args])
    lines.append(f'  %st = call i32 @"{internal}"({call_args})')
    lines.append("  store i32 %st, ptr %status, align 4")
    if has_return:
        if ret_ll == "double":
            lines += ["  %r = load double, ptr %ret, align 8", "  ret double %r"]
        else:
            lines += [f"  %r0 = load {ret_ll}, ptr %ret, align 8",
                      f"  %r = fpext {ret_ll} %r0 to double", "  ret double %r"]
    elif out_ndim:
        lines += _copy_result(out_ndim)
    else:
        lines.append("  ret void")
    lines.append("}")
    return "\n".join(lines)


def _call_args(kinds: list[ArgKind]) -> list[str]:
    """Plain arguments of the wrappers (no shadows), as call operands."""
    return [p for p in _params(kinds, False)]


def seeded_wrapper(kinds: list[ArgKind], has_return: bool, out_ndim: int = 0) -> str:
    """``irgrad_nb_seeded(status, double seed, [out...], args...)``: ``seed * primal``."""
    out = _out_params(out_ndim, None)
    params = ", ".join(["ptr %status", "double %seed", *out, *_params(kinds, False)])
    call = ", ".join(["ptr %status", *out, *_call_args(kinds)])
    if not has_return:
        return (f"define void @{SEEDED}({params}) {{\nentry:\n"
                f"  call void @{PRIMAL}({call})\n  ret void\n}}")
    return (f"define double @{SEEDED}({params}) {{\nentry:\n"
            f"  %r = call double @{PRIMAL}({call})\n  %s = fmul double %r, %seed\n"
            "  ret double %s\n}")


def _marked_out(out_ndim: int, shadow: str) -> list[str]:
    if not out_ndim:
        return []
    return ['metadata !"enzyme_dup"', "ptr %out", f"ptr %{shadow}",
            'metadata !"enzyme_const"', "i64 %out_n", 'metadata !"enzyme_const"',
            "ptr %out_shape"]


def _marked_args(kinds: list[ArgKind], forward: bool) -> list[str]:
    out: list[str] = []
    for i, k in enumerate(kinds):
        if k.kind == "float" and not k.active:
            out += ['metadata !"enzyme_const"', f"{k.ll} %a{i}"]
        elif k.kind == "float":
            if forward:
                out += ['metadata !"enzyme_dup"', f"{k.ll} %a{i}", f"{k.ll} %t{i}"]
            else:
                out += ['metadata !"enzyme_out"', f"{k.ll} %a{i}"]
        elif k.kind == "int":
            out += ['metadata !"enzyme_const"', f"i{k.bits} %a{i}"]
        else:
            if k.active:
                out += ['metadata !"enzyme_dup"', f"ptr %a{i}", f"ptr %d{i}"]
            else:  # the shadow parameter is there, unused
                out += ['metadata !"enzyme_const"', f"ptr %a{i}"]
            out += [x for d in range(k.ndim)
                    for x in ('metadata !"enzyme_const"', f"i64 %a{i}.s{d}")]
    return out


def reverse_wrapper(kinds: list[ArgKind], out_ndim: int = 0) -> str:
    """``irgrad_nb_rev(status, ptr dscalars, double seed, [out, dout, out_n, out_shape],
    args-with-shadows...)``."""
    floats = [i for i, k in enumerate(kinds) if k.kind == "float" and k.active]
    params = ["ptr %status", "ptr %dscalars", "double %seed", *_out_params(out_ndim, "dout"),
              *_rev_params(kinds)]
    types = [kinds[i].ll for i in floats]
    if not floats:
        ret = "void"
    elif len(floats) == 1:
        ret = types[0]
    else:
        ret = "{ " + ", ".join(types) + " }"
    marked = ['ptr @' + SEEDED, 'metadata !"enzyme_const"', "ptr %status",
              'metadata !"enzyme_const"', "double %seed", *_marked_out(out_ndim, "dout"),
              *_marked_args(kinds, False)]
    lines = [f"define void @{REVERSE}({', '.join(params)}) {{", "entry:",
             "  call void @irgrad_nb_acquire()"]
    if ret == "void":
        lines.append(f"  call void (ptr, ...) @__enzyme_autodiff_irgrad_nb_v({', '.join(marked)})")
    else:
        fn = "__enzyme_autodiff_irgrad_nb_" + ("d" if len(floats) == 1 else "s")
        fn += "" if all(t == "double" for t in types) else "f"
        lines.append(f"  %g = call {ret} (ptr, ...) @{fn}({', '.join(marked)})")
        for j in range(len(floats)):
            value = "%g" if len(floats) == 1 else f"%g{j}"
            if len(floats) > 1:
                lines.append(f"  %g{j} = extractvalue {ret} %g, {j}")
            if types[j] != "double":  # dscalars holds doubles
                lines.append(f"  %w{j} = fpext {types[j]} {value} to double")
                value = f"%w{j}"
            lines.append(f"  %p{j} = getelementptr double, ptr %dscalars, i64 {j}")
            lines.append(f"  store double {value}, ptr %p{j}, align 8")
    lines += ["  call void @irgrad_nb_release()", "  ret void", "}"]
    decl = f"declare {ret} @{fn if ret != 'void' else '__enzyme_autodiff_irgrad_nb_v'}(ptr, ...)"
    return "\n".join(lines) + "\n" + decl


def _rev_params(kinds: list[ArgKind]) -> list[str]:
    """Reverse wrapper parameters: float scalars without tangents, arrays with shadows."""
    out: list[str] = []
    for i, k in enumerate(kinds):
        if k.kind == "float":
            out.append(f"{k.ll} %a{i}")
        elif k.kind == "int":
            out.append(f"i{k.bits} %a{i}")
        else:
            out += [f"ptr %a{i}", f"ptr %d{i}", *[f"i64 %a{i}.s{d}" for d in range(k.ndim)]]
    return out


def forward_wrapper(kinds: list[ArgKind], has_return: bool, out_ndim: int = 0) -> str:
    """``irgrad_nb_fwd(status, ptr primal_out, [out, tout, out_n, out_shape],
    args-with-tangents...) -> double | void``."""
    params = ["ptr %status", "ptr %primal_out", *_out_params(out_ndim, "tout"),
              *_params(kinds, True)]
    marked = ["ptr @" + PRIMAL, 'metadata !"enzyme_const"', "ptr %status",
              *_marked_out(out_ndim, "tout"), *_marked_args(kinds, True)]
    lines = [f"define {'double' if has_return else 'void'} @{FORWARD}({', '.join(params)}) {{",
             "entry:", "  call void @irgrad_nb_acquire()"]
    if has_return:
        fn = "__enzyme_fwddiff_irgrad_nb_d"
        with_primal = [marked[0], 'metadata !"enzyme_primal_return"', *marked[1:]]
        lines += [
            f"  %r = call {{ double, double }} (ptr, ...) @{fn}({', '.join(with_primal)})",
            "  %p = extractvalue { double, double } %r, 0",
            "  store double %p, ptr %primal_out, align 8",
            "  %t = extractvalue { double, double } %r, 1",
            "  call void @irgrad_nb_release()",
            "  ret double %t",
            "}",
            f"declare {{ double, double }} @{fn}(ptr, ...)",
        ]
    else:
        fn = "__enzyme_fwddiff_irgrad_nb_v"
        lines += [f"  call void (ptr, ...) @{fn}({', '.join(marked)})",
                  "  call void @irgrad_nb_release()", "  ret void", "}",
                  f"declare void @{fn}(ptr, ...)"]
    return "\n".join(lines)
