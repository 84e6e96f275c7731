"""numba source of the small ``@njit`` adapters that call the JIT-compiled wrappers.

The derivative of a numba function is called through a ctypes function pointer (numba
calls ctypes functions in nopython mode), from an adapter written per signature: it
allocates the shadows, passes ``array.ctypes.data`` for pointers, checks the status numba's
function returned and packs the results. Being ``@njit`` code, the adapter is callable
from Python and from other ``@njit`` functions alike.

Argument structures (``D`` = the differentiable arguments: float64 scalars and arrays, in
order; integer arguments are constant):

* grad: ``(args...) -> tuple over D`` (df/dx, arrays of the arguments' shapes);
* vjp: ``(primals, ct_return, ct_args) -> tuple over D``; ``ct_args`` is a tuple over D
  (arrays: the cotangent of the array's final contents; scalars: ignored);
* jvp: ``(primals, tangents) -> (value, value_tangent, tangents_out)``; ``tangents`` and
  ``tangents_out`` are tuples over D (arrays: tangent of the initial / final contents).

For a function returning a float64 array, ``ct_return`` (vjp) is an array of the result's
shape and ``value``/``value_tangent`` (jvp) are arrays; the wrapper copies the result into
a buffer the adapter allocates, and reports the result's shape so a mismatch is an error.
"""

from __future__ import annotations

from irgrad.numba.abi import SHAPE_MISMATCH, ArgKind


def _call(kinds: list[ArgKind], args: list[str], shadows: list[str], mode: str,
          tangents: list[str] | None = None) -> list[str]:
    """The wrapper's arguments after the leading ones (see :mod:`irgrad.numba.abi`)."""
    out: list[str] = []
    shadow_iter = iter(shadows)
    tangent_iter = iter(tangents or [])
    for i, k in enumerate(kinds):
        if k.kind == "array":
            shadow = next(shadow_iter) if k.active else args[i]  # (unused: enzyme_const)
            out += [f"{args[i]}.ctypes.data", f"{shadow}.ctypes.data"]
            out += [f"{args[i]}.shape[{d}]" for d in range(k.ndim)]
        elif k.kind == "float":
            out.append(args[i])
            if mode == "fwd":
                out.append(next(tangent_iter) if k.active else "0.0")
        else:
            out.append(args[i])
    return out


def _contiguous_copies(kinds: list[ArgKind]) -> tuple[list[str], list[str], list[str]]:
    """For F-order and strided array arguments: C-contiguous copies before the call (the
    derivative's ABI passes C strides), their contents written back after it; and the
    argument names the call uses."""
    before: list[str] = []
    after: list[str] = []
    names: list[str] = []
    for i, k in enumerate(kinds):
        if k.kind == "array" and not k.contiguous:
            before.append(f"    c{i} = np.ascontiguousarray(a{i})")
            if k.writable:
                after.append(f"    a{i}[...] = c{i}")
            names.append(f"c{i}")
        else:
            names.append(f"a{i}")
    return before, after, names


def _status_check(name: str) -> list[str]:
    return [
        "    if st[0] != 0 and st[0] != -2:",
        f"        raise RuntimeError('irgrad: {name} raised an exception while its derivative "
        "was computed (call it directly to see the exception)')",
    ]


def _tuple(items: list[str]) -> str:
    return "(" + "".join(f"{x}, " for x in items) + ")"


def _shape_check(a: str, s: str, what: str) -> list[str]:
    return [f"    if {s}.shape != {a}.shape:",
            f"        raise ValueError('irgrad: {what} has a different shape than its argument')"]


def _out_checks(name: str, out_ndim: int, reference: str, shown: str) -> list[str]:
    """Raise when the returned array's shape (``oshape``) is not ``reference.shape``."""
    differs = " or ".join(f"oshape[{d}] != {reference}.shape[{d}]" for d in range(out_ndim))
    return [f"    if st[0] == {SHAPE_MISMATCH} or (st[0] == 0 and ({differs})):",
            f"        raise ValueError('irgrad: {shown} has a different shape than the "
            f"array {name} returns')"]


def _dtype(k: ArgKind) -> str:
    return "np.float64" if k.bits == 64 else "np.float32"


def reverse_source(name: str, kinds: list[ArgKind], vjp: bool, out_ndim: int = 0,
                   single: bool = False, order: tuple[int, ...] | None = None) -> str:
    """The adapter of reverse mode (``grad`` when not ``vjp``); ``single``: return the
    one derivative itself, not a tuple (``argnums`` given as an integer); ``order``: the
    positions whose derivatives are returned, in this order (``argnums``)."""
    n = len(kinds)
    diff = [i for i, k in enumerate(kinds) if k.differentiable]
    returned = list(order) if order is not None else diff
    floats = [i for i, k in enumerate(kinds) if k.kind == "float" and k.active]
    if vjp:
        lines = ["def adapter(primals, ct_return, ct_args):"]
        lines += [f"    a{i} = primals[{i}]" for i in range(n)]
        seed = "float(ct_return)"
    else:
        lines = [f"def adapter({', '.join(f'a{i}' for i in range(n))}):"]
        seed = "1.0"
    lines += ["    st = np.zeros(1, np.int32)", f"    ds = np.zeros({max(1, len(floats))})"]
    shadows: list[str] = []
    for j, i in enumerate(diff):
        if kinds[i].kind != "array":
            continue
        if vjp:
            lines += _shape_check(f"a{i}", f"ct_args[{j}]", f"ct_args[{j}]")
            lines.append(f"    d{i} = np.ascontiguousarray(ct_args[{j}]).astype("
                         f"{_dtype(kinds[i])})")
        else:
            lines.append(f"    d{i} = np.zeros(a{i}.shape, {_dtype(kinds[i])})")
        shadows.append(f"d{i}")
    before, after, names = _contiguous_copies(kinds)
    lines += before
    args = _call(kinds, names, shadows, "rev")
    if out_ndim:  # the cotangent of the returned array seeds the shadow of its copy
        lines += ["    ct = np.ascontiguousarray(ct_return)", "    out = np.empty(ct.shape)",
                  "    dout = ct.copy()", f"    oshape = np.zeros({out_ndim}, np.int64)"]
        args = ["out.ctypes.data", "dout.ctypes.data", "ct.size", "oshape.ctypes.data", *args]
        seed = "1.0"
    lines.append(f"    FN(st.ctypes.data, ds.ctypes.data, {seed}, {', '.join(args)})")
    lines += after
    if out_ndim:
        lines += _out_checks(name, out_ndim, "ct", "ct_return")
    lines += _status_check(name)
    results = [f"d{i}" if kinds[i].kind == "array" else
               f"ds[{floats.index(i)}]" if kinds[i].bits == 64 else
               f"np.float32(ds[{floats.index(i)}])" for i in returned]
    lines.append(f"    return {results[0] if single else _tuple(results)}")
    return "\n".join(lines) + "\n"


def forward_source(name: str, kinds: list[ArgKind], has_return: bool,
                   out_ndim: int = 0) -> str:
    """The adapter of forward mode (``jvp``); for a returned array, ``PRIMAL`` (numba's
    function itself) runs first to learn the result's shape."""
    n = len(kinds)
    diff = [i for i, k in enumerate(kinds) if k.differentiable]
    lines = ["def adapter(primals, tangents):"]
    lines += [f"    a{i} = primals[{i}]" for i in range(n)]
    lines += ["    st = np.zeros(1, np.int32)", "    po = np.zeros(1)"]
    shadows: list[str] = []
    tangents: list[str] = []
    for j, i in enumerate(diff):
        if kinds[i].kind == "array":
            lines += _shape_check(f"a{i}", f"tangents[{j}]", f"tangents[{j}]")
            lines.append(f"    t{i} = np.ascontiguousarray(tangents[{j}]).astype("
                         f"{_dtype(kinds[i])})")
            shadows.append(f"t{i}")
        else:
            lines.append(f"    t{i} = {_dtype(kinds[i])}(tangents[{j}])")
            tangents.append(f"t{i}")
    before, after, names = _contiguous_copies(kinds)
    lines += before
    args = _call(kinds, names, shadows, "fwd", tangents)
    if out_ndim:
        lines += [f"    r = PRIMAL({', '.join(f'a{i}' for i in range(n))})",
                  "    out = np.empty(r.shape)", "    tout = np.zeros(r.shape)",
                  f"    oshape = np.zeros({out_ndim}, np.int64)"]
        args = ["out.ctypes.data", "tout.ctypes.data", "out.size", "oshape.ctypes.data", *args]
    call = f"FN(st.ctypes.data, po.ctypes.data, {', '.join(args)})"
    lines.append(f"    tv = {call}" if has_return else f"    {call}")
    lines += after
    if out_ndim:
        lines += _out_checks(name, out_ndim, "out", "the result (f changed between two calls?)")
    lines += _status_check(name)
    out = _tuple([f"t{i}" for i in diff])
    value = "po[0], tv" if has_return else ("out, tout" if out_ndim else "None, None")
    lines.append(f"    return ({value}, {out})")
    return "\n".join(lines) + "\n"
