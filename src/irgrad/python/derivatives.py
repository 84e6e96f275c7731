"""``lib.autodiff`` / ``lib.fwddiff`` (Enzyme's semantics) and ``gradient``/``vjp``/``jvp``.

Arguments are raw values or activity wrappers (:mod:`irgrad.python.annotations`).
Without a wrapper (like C without a marker): a float scalar is Active in reverse mode
(Const in forward mode: there is no tangent to take), arrays and integers are Const.

* ``autodiff(f, *args, seed=1.0, return_primal=False)``: reverse mode. A floating-point
  result is seeded with ``seed``. Derivatives are ADDED into the shadows of Duplicated
  arrays (``+=``; the shadow of an array f writes is consumed, like in Enzyme). Returns the
  tuple of the derivatives of the Active arguments in argument order, or
  ``(derivatives, primal)`` with ``return_primal=True`` (then f runs once more).
  ``Active(v)`` for a pointer parameter (a Fortran scalar passed by reference) boxes v.
* ``fwddiff(f, *args, return_primal=False)``: forward mode, ``Duplicated(x, tangent)``.
  Returns the tangent of a floating-point result (None for void), or ``(primal,
  tangent)``; tangents of arrays f writes are stored into their shadows.
* ``gradient(f, wrt)(*args)``, ``vjp(f, wrt, outputs)(*args, cotangent)``,
  ``jvp(f, wrt, outputs)(*args, tangent)``: new arrays instead of accumulation. ``wrt``
  and ``outputs`` are parameter indices or names, or sequences of them (then the result
  is a tuple); ``outputs=None`` means f's floating-point return value.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from irgrad.errors import UsageError
from irgrad.python.annotations import ACTIVITY_CLASSES, Active, Const, Duplicated, DuplicatedNoNeed
from irgrad.python.callables import (
    Derivative,
    Function,
    as_array,
    as_scalar,
    bind_arguments,
    check_count,
    check_sizes,
    pointer_of,
    where,
)
from irgrad.python.signature import Signature
from irgrad.python.wrappers import DerivativeRequest


class DerivativeSource(Protocol):
    """What the functions here need of a library (:class:`irgrad.python.library.Library`
    is one): the signatures of its functions and the compiled wrapper of a request."""

    def signature(self, name: str | Function) -> Signature: ...

    def derivative(self, request: DerivativeRequest) -> Derivative: ...


@dataclass
class Prepared:
    """One argument after normalization: activity, primal, shadow, boxed-Active flag."""

    activity: str
    value: Any
    shadow: Any = None
    boxed_active: bool = False


def _prepare(sig: Signature, index: int, arg: Any, mode: str) -> Prepared:
    spec = sig.args[index]
    place = where(sig, index)
    if isinstance(arg, type) and arg in ACTIVITY_CLASSES:
        raise UsageError(f"{place}: pass a value, e.g. {arg.__name__}(x), not the class")
    if isinstance(arg, Active):
        if spec.kind == "pointer" and mode == "reverse":
            value = as_array(spec, arg.value, place)
            if value is None or value.size != 1:
                raise UsageError(f"{place}: Active of a pointer parameter needs a scalar "
                                 "(passed by reference); use Duplicated(x, dx) for arrays")  # fmt: skip
            return Prepared("dup", value, np.zeros_like(value), boxed_active=True)
        return Prepared("out", arg.value)
    if isinstance(arg, Const):
        return Prepared("const", arg.value)
    if isinstance(arg, Duplicated | DuplicatedNoNeed):
        act = "dup" if isinstance(arg, Duplicated) else "dupnoneed"
        return Prepared(act, arg.value, arg.shadow)
    if spec.kind == "float" and mode == "reverse":
        return Prepared("out", arg)
    return Prepared("const", arg)


def _flatten(
    lib: DerivativeSource, sig: Signature, prepared: list[Prepared], request: DerivativeRequest,
    seed: float,
) -> tuple[list[Any], list[Any], np.ndarray]:  # fmt: skip
    """ctypes values for the wrapper, objects to keep alive, and the result buffer."""
    derivative = lib.derivative(request)
    layout = derivative.layout
    keep: list[Any] = []
    values: list[Any] = []
    out = np.zeros(max(1, len(layout.results)), dtype=np.float64)
    seen: dict[int, int] = {}  # shadows passed so far per argument (vector mode: several)
    arrays: dict[int, list[tuple[str, np.ndarray | None]]] = {}
    ints: list[Any] = [None] * len(sig.args)
    for role, index in layout.params:
        if role in ("primal", "shadow"):
            spec, p = sig.args[index], prepared[index]
            obj = p.value if role == "primal" else p.shadow
            if role == "shadow" and request.width > 1:
                j = seen[index] = seen.get(index, -1) + 1
                obj = _nth_tangent(sig, index, obj, j, request.width)
            place = where(sig, index, "shadow of argument" if role == "shadow" else "argument")
            if spec.kind == "pointer":
                if role == "shadow" and request.mode == "reverse" and not isinstance(
                    obj, np.ndarray
                ):
                    raise UsageError(f"{place}: reverse mode adds into the shadow, so it must be "
                                     "an array (for a scalar passed by reference use Active(x) "
                                     "or one-element arrays)")  # fmt: skip
                array = as_array(spec, obj, place)
                if role == "shadow":
                    _check_shadow(sig, index, prepared[index].value, array, place)
                keep.append(array)
                values.append(pointer_of(array))
                arrays.setdefault(index, []).append((place, array))
            else:
                values.append(as_scalar(spec, obj, place))
                ints[index] = values[-1]
        elif role == "seed":
            values.append(float(seed))
        else:
            values.append(pointer_of(out))
    check_sizes(sig, arrays, ints)
    return values, keep, out


def _nth_tangent(sig: Signature, index: int, shadow: Any, j: int, width: int) -> Any:
    """Tangent ``j`` of a vector-mode shadow: row j of an array of shape (width, ...),
    or item j of a sequence of ``width`` arrays / numbers."""
    if isinstance(shadow, np.ndarray) and shadow.ndim >= 1 and shadow.shape[0] == width:
        return shadow[j]
    if isinstance(shadow, list | tuple) and len(shadow) == width:
        return shadow[j]
    raise UsageError(f"{where(sig, index, 'shadow of argument')}: width={width} needs "
                     f"{width} tangents (an array of shape ({width}, ...) or a sequence)")  # fmt: skip


def _check_shadow(sig: Signature, index: int, primal: Any, shadow: Any, place: str) -> None:
    if shadow is None:
        raise UsageError(f"{place}: a shadow array is required (got None)")
    if isinstance(primal, np.ndarray) and primal.shape != shadow.shape:
        raise UsageError(
            f"{place}: shape {shadow.shape} does not match the argument's shape {primal.shape}"
        )
    if not shadow.flags.writeable:
        raise UsageError(f"{place}: the shadow array must be writeable")


def _resolve(lib: DerivativeSource, name: str | Function) -> Signature:
    return lib.signature(name)


def autodiff(
    lib: DerivativeSource, name: str | Function, args: Sequence[Any], *, seed: float = 1.0,
    return_primal: bool = False, kwargs: dict[str, Any] | None = None,
) -> Any:  # fmt: skip
    sig = _resolve(lib, name)
    args = bind_arguments(sig, args, kwargs or {})
    check_count(sig, args)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Real):
        raise UsageError(f"seed= of {sig.name} must be a real number, not {seed!r}")
    prepared = [_prepare(sig, i, a, "reverse") for i, a in enumerate(args)]
    request = DerivativeRequest(sig.symbol, "reverse",
                                tuple(p.activity for p in prepared), return_primal)  # fmt: skip
    values, keep, out = _flatten(lib, sig, prepared, request, seed)
    lib.derivative(request).call(*values)
    del keep
    results = lib.derivative(request).layout.results
    derivs: dict[int, float] = {idx: float(out[j]) for j, (kind, idx) in enumerate(results)
                                if kind == "derivative"}  # fmt: skip
    found: list[float] = []
    for i, p in enumerate(prepared):
        if p.boxed_active:
            found.append(float(p.shadow.reshape(-1)[0]))
        elif p.activity == "out":
            found.append(derivs[i])
    grads = tuple(found)
    if not return_primal:
        return grads
    primal = float(out[0]) if results and results[0][0] == "primal" else None
    return grads, primal


def fwddiff(
    lib: DerivativeSource, name: str | Function, args: Sequence[Any], *,
    return_primal: bool = False, width: int = 1, kwargs: dict[str, Any] | None = None,
) -> Any:  # fmt: skip
    sig = _resolve(lib, name)
    args = bind_arguments(sig, args, kwargs or {})
    check_count(sig, args)
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise UsageError(f"width= must be a positive integer, not {width!r}")
    prepared = [_prepare(sig, i, a, "forward") for i, a in enumerate(args)]
    request = DerivativeRequest(sig.symbol, "forward", tuple(p.activity for p in prepared),
                                return_primal, width)  # fmt: skip
    values, keep, out = _flatten(lib, sig, prepared, request, 1.0)
    derivative = lib.derivative(request)
    derivative.call(*values)
    del keep
    results = derivative.layout.results
    primal = next((float(out[j]) for j, (k, _) in enumerate(results) if k == "primal"), None)
    found = [float(out[j]) for j, (k, _) in enumerate(results) if k == "tangent"]
    tangent: Any = None
    if found:
        tangent = found[0] if width == 1 else np.array(found)
    return (primal, tangent) if return_primal else tangent


# --- conveniences -------------------------------------------------------------------------


def _indices(sig: Signature, spec: Any, what: str = "wrt") -> tuple[list[int], bool]:
    """Parameter indices of ``spec`` (the ``what=`` argument) and whether a single one
    was named."""
    if isinstance(spec, int | str) and not isinstance(spec, bool):
        return [sig.index_of(spec)], True
    if isinstance(spec, Sequence) and spec:
        return [sig.index_of(s) for s in spec], False
    raise UsageError(f"{what}= of {sig.name}: expected a parameter index or name, or a "
                     f"non-empty sequence of them, not {spec!r}")


def _zeros_like(sig: Signature, index: int, value: Any) -> np.ndarray:
    spec = sig.args[index]
    array = as_array(spec, value, where(sig, index))
    if array is None:
        raise UsageError(f"{where(sig, index)}: cannot differentiate with respect to None")
    return np.zeros_like(array)


def gradient(lib: DerivativeSource, name: str | Function, wrt: Any = 0) -> Callable[..., Any]:
    sig = _resolve(lib, name)
    indices, single = _indices(sig, wrt)
    if not sig.returns_float:
        raise UsageError(f"gradient of {sig.name}: it returns {sig.ret_ir_type}, not a float; "
                         "use lib.vjp(..., outputs=<output array>)")  # fmt: skip

    def grad(*args: Any, **kwargs: Any) -> Any:
        return _reverse(lib, sig, bind_arguments(sig, args, kwargs), indices, single, {}, 1.0)

    return grad


def _reverse(
    lib: DerivativeSource, sig: Signature, args: Sequence[Any], indices: list[int], single: bool,
    output_seeds: dict[int, np.ndarray], seed: float,
) -> Any:  # fmt: skip
    check_count(sig, args)
    wrapped: list[Any] = []
    shadows: dict[int, np.ndarray] = {}
    for i, value in enumerate(args):
        spec = sig.args[i]
        if i in output_seeds:
            wrapped.append(Duplicated(value, output_seeds[i]))
        elif i in indices and spec.kind == "pointer":
            shadows[i] = _zeros_like(sig, i, value)
            wrapped.append(Duplicated(value, shadows[i]))
        elif i in indices:
            wrapped.append(Active(value))
        else:
            wrapped.append(Const(value))
    actives = iter(autodiff(lib, sig.symbol, wrapped, seed=seed))
    results = [shadows[i] if i in shadows else next(actives) for i in indices]
    return results[0] if single else tuple(results)


def vjp(
    lib: DerivativeSource, name: str | Function, wrt: Any = 0, outputs: Any = None
) -> Callable[..., Any]:
    sig, indices, single, outs, single_out = _map_request(lib, name, wrt, outputs, "vjp")

    def vjp_fn(*args_and_cotangent: Any, **kwargs: Any) -> Any:
        if not args_and_cotangent:
            raise UsageError(f"vjp of {sig.name}: expected the arguments and a cotangent")
        *given, cot = args_and_cotangent
        args = list(bind_arguments(sig, given, kwargs))
        if outputs is None:
            return _reverse(lib, sig, args, indices, single, {}, float(cot))
        cots = [cot] if single_out else list(cot)
        if len(cots) != len(outs):
            raise UsageError(f"vjp of {sig.name}: {len(outs)} cotangent(s) expected")
        check_count(sig, args)
        seeds = {}
        for i, c in zip(outs, cots, strict=True):
            buffer = _zeros_like(sig, i, args[i])
            given = np.asarray(c)
            if given.shape != buffer.shape and given.size != buffer.size:
                raise UsageError(f"vjp of {sig.name}: the cotangent of '{sig.args[i].name}' "
                                 f"has shape {given.shape}, the output {buffer.shape}")  # fmt: skip
            buffer[...] = given.reshape(buffer.shape)  # the reverse pass consumes it
            seeds[i] = buffer
        return _reverse(lib, sig, args, indices, single, seeds, 0.0)

    return vjp_fn


def jvp(
    lib: DerivativeSource, name: str | Function, wrt: Any = 0, outputs: Any = None
) -> Callable[..., Any]:
    sig, indices, single, outs, single_out = _map_request(lib, name, wrt, outputs, "jvp")

    def jvp_fn(*args_and_tangent: Any, **kwargs: Any) -> Any:
        if not args_and_tangent:
            raise UsageError(f"jvp of {sig.name}: expected the arguments and a tangent")
        *given, tan = args_and_tangent
        args = list(bind_arguments(sig, given, kwargs))
        check_count(sig, args)
        tangents = [tan] if single else list(tan)
        if len(tangents) != len(indices):
            raise UsageError(f"jvp of {sig.name}: {len(indices)} tangent(s) expected")
        given = dict(zip(indices, tangents, strict=True))
        wrapped: list[Any] = []
        out_shadows: dict[int, np.ndarray] = {}
        for i, value in enumerate(args):
            if i in given:
                t = given[i]
                if sig.args[i].kind == "pointer":
                    t = np.ascontiguousarray(t, dtype=sig.args[i].dtype or np.float64)
                wrapped.append(Duplicated(value, t))
            elif i in outs:
                out_shadows[i] = _zeros_like(sig, i, value)
                wrapped.append(Duplicated(value, out_shadows[i]))
            else:
                wrapped.append(Const(value))
        tangent = fwddiff(lib, sig.symbol, wrapped)
        if outputs is None:
            return tangent
        results = [out_shadows[i] for i in outs]
        return results[0] if single_out else tuple(results)

    return jvp_fn


def _map_request(
    lib: DerivativeSource, name: str | Function, wrt: Any, outputs: Any, what: str
) -> tuple[Signature, list[int], bool, list[int], bool]:
    """vjp/jvp arguments checked: the signature, ``wrt`` and ``outputs`` as indices, each
    with whether a single one was named. Without ``outputs`` the function must return a
    float (the differentiated result); an argument cannot be both in wrt and outputs."""
    sig = _resolve(lib, name)
    indices, single = _indices(sig, wrt)
    outs, single_out = ([], True) if outputs is None else _indices(sig, outputs, "outputs")
    if outputs is None and not sig.returns_float:
        raise UsageError(f"{what} of {sig.name}: it returns {sig.ret_ir_type}; name the output "
                         "arrays with outputs=")  # fmt: skip
    _check_disjoint(sig, indices, outs)
    return sig, indices, single, outs, single_out


def _check_disjoint(sig: Signature, wrt: list[int], outs: list[int]) -> None:
    both = sorted(set(wrt) & set(outs))
    if both:
        raise UsageError(f"{sig.name}: argument {both[0] + 1} is both in wrt and in outputs")


__all__ = ["autodiff", "fwddiff", "gradient", "jvp", "vjp"]
