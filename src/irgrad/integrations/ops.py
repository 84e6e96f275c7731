"""NumPy-level primal, VJP and JVP of a :class:`FunctionSpec`, batch loop included.

Built only on the public Python API: ``lib[name](...)`` for the primal,
``lib.autodiff`` (reverse mode) and ``lib.fwddiff`` (forward mode). Every framework
integration converts its tensors to NumPy, calls these, and converts back.

Reverse mode: inputs that need a gradient are ``Duplicated(x, dx)`` (``dx`` zeros), scalar
inputs ``Active``; outputs are ``Duplicated(scratch, cotangent copy)`` so the seed is
consumed where Enzyme expects it; a floating-point return is seeded with its cotangent.
Shared (unbatched) inputs of a batch keep one shadow for every item: Enzyme *adds* into
shadows, so their gradient is the sum over the batch without extra work.

Inputs without a wanted gradient are ``Const``. When the C code mixes such a pointer with
an active one (``p = s == 0 ? x0 : out``), irgrad cannot give the constant a shadow and
refuses the derivative (DifferentiationError); the spec then switches to scratch shadows
for every floating-point pointer input and the call is repeated, once per spec.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from irgrad.errors import DifferentiationError
from irgrad.integrations.spec import RETURN, Binding, FunctionSpec, ShapeInfo
from irgrad.python.annotations import Active, Const, Duplicated

Arrays = list[np.ndarray]


def infos(arrays: Sequence[Any]) -> list[ShapeInfo]:
    return [ShapeInfo(tuple(np.shape(a)), np.asarray(a).dtype) for a in arrays]


def _c_array(spec: FunctionSpec, name: str, value: Any) -> np.ndarray:
    """A C-contiguous, writeable array of the C type (framework buffers may be read-only)."""
    array = np.asarray(value, dtype=spec.c_dtype(name), order="C")
    return array if array.flags.writeable else array.copy()


def _item(value: np.ndarray, batched: bool, b: int | None) -> np.ndarray:
    return value[b] if batched and b is not None else value


def _scalar(spec: FunctionSpec, name: str, value: np.ndarray) -> Any:
    return spec.c_dtype(name).type(value)


def _items(binding: Binding) -> list[int | None]:
    return [None] if binding.batch is None else list(range(binding.batch))


def _fixed_args(spec: FunctionSpec, binding: Binding) -> dict[str, Any]:
    fixed: dict[str, Any] = dict(binding.sizes)
    for arg, value in spec.constants.items():
        p = spec.param(arg)
        if p.kind == "float":
            fixed[arg] = Const(p.dtype.type(value))
        elif p.kind == "pointer":
            fixed[arg] = Const(_c_array(spec, arg, value))
        else:
            fixed[arg] = int(value)
    return fixed


def _raw(value: Any) -> Any:
    return value.value if isinstance(value, Const) else value


def primal(spec: FunctionSpec, arrays: Sequence[Any]) -> Arrays:
    """Run the C function on every batch item; return the outputs (binding's dtype)."""
    binding = spec.bind(infos(arrays))
    xs = [_c_array(spec, n, a) for n, a in zip(spec.inputs, arrays, strict=True)]
    outs = _new_outputs(spec, binding)
    fixed = {k: _raw(v) for k, v in _fixed_args(spec, binding).items()}
    for b in _items(binding):
        args = dict(fixed)
        for name, x, batched in zip(spec.inputs, xs, binding.batched, strict=True):
            x_b = _item(x, batched, b)
            args[name] = _scalar(spec, name, x_b) if spec.param(name).kind == "float" else x_b
        for name, out in zip(spec.outputs, outs, strict=True):
            if name != RETURN:
                args[name] = _item(out, True, b)
        ret = spec.function(*_ordered(spec, args))
        _store_return(spec, outs, b, ret)
    return [o.astype(binding.out_dtype, copy=False) for o in outs]


def vjp(
    spec: FunctionSpec, arrays: Sequence[Any], cotangents: Sequence[Any | None],
    wanted: Sequence[bool] | None = None,
) -> list[np.ndarray | None]:
    """Gradients of ``sum(cotangent * output)`` w.r.t. each input (None: not wanted)."""
    return _with_shadow_fallback(spec, lambda: _vjp(spec, arrays, cotangents, wanted))


def _vjp(
    spec: FunctionSpec, arrays: Sequence[Any], cotangents: Sequence[Any | None],
    wanted: Sequence[bool] | None,
) -> list[np.ndarray | None]:
    binding = spec.bind(infos(arrays))
    wanted = [True] * len(spec.inputs) if wanted is None else list(wanted)
    wanted = [w and spec.differentiable(n) for n, w in zip(spec.inputs, wanted, strict=True)]
    xs = [_c_array(spec, n, a) for n, a in zip(spec.inputs, arrays, strict=True)]
    grads: list[np.ndarray | None] = [
        np.zeros_like(x) if w else None for x, w in zip(xs, wanted, strict=True)]
    cts = [
        np.zeros(shape, spec.c_dtype(n)) if ct is None else _c_array(spec, n, ct)
        for n, ct, shape in zip(spec.outputs, cotangents, binding.out_shapes, strict=True)
    ]
    fixed = _fixed_args(spec, binding)
    scalar_grads: dict[int, list[Any]] = {}
    for b in _items(binding):
        args = dict(fixed)
        actives: list[int] = []
        for i, (name, x, batched) in enumerate(
                zip(spec.inputs, xs, binding.batched, strict=True)):
            x_b = _item(x, batched, b)
            if spec.param(name).kind == "float":
                value = _scalar(spec, name, x_b)
                args[name] = Active(value) if wanted[i] else Const(value)
                if wanted[i]:
                    actives.append(i)
            elif wanted[i]:
                g = grads[i]
                assert g is not None
                args[name] = Duplicated(x_b, _item(g, batched, b))
            elif _needs_scratch(spec, name):
                args[name] = Duplicated(x_b, np.zeros_like(x_b))
            else:
                args[name] = Const(x_b)
        seed = None
        for name, ct, shape in zip(spec.outputs, cts, binding.out_shapes, strict=True):
            ct_b = _item(ct, True, b)
            if name == RETURN:
                seed = float(ct_b)
            else:
                scratch = np.zeros(shape[1:] if b is not None else shape, spec.c_dtype(name))
                args[name] = Duplicated(scratch, np.array(ct_b, copy=True))
        kwargs = {} if seed is None else {"seed": seed}
        result = spec.library.autodiff(spec.name, *_ordered(spec, args), **kwargs)
        for i, d in zip(actives, _as_tuple(result), strict=True):
            scalar_grads.setdefault(i, []).append(d)
    for i, ds in scalar_grads.items():
        arr = np.asarray(ds, dtype=spec.c_dtype(spec.inputs[i]))
        grads[i] = arr if binding.batched[i] else np.asarray(arr.sum())
    return [
        None if g is None else g.astype(np.asarray(a).dtype, copy=False)
        for g, a in zip(grads, arrays, strict=True)
    ]


def jvp(
    spec: FunctionSpec, arrays: Sequence[Any], tangents: Sequence[Any | None]
) -> tuple[Arrays, Arrays]:
    """Outputs and their tangents for input tangents (None: zero tangent)."""
    return _with_shadow_fallback(spec, lambda: _jvp(spec, arrays, tangents))


def _jvp(
    spec: FunctionSpec, arrays: Sequence[Any], tangents: Sequence[Any | None]
) -> tuple[Arrays, Arrays]:
    binding = spec.bind(infos(arrays))
    xs = [_c_array(spec, n, a) for n, a in zip(spec.inputs, arrays, strict=True)]
    ts = [
        None if t is None or not spec.differentiable(n) else _c_array(spec, n, t)
        for n, t in zip(spec.inputs, tangents, strict=True)
    ]
    outs = _new_outputs(spec, binding)
    touts = _new_outputs(spec, binding)
    fixed = _fixed_args(spec, binding)
    returns = RETURN in spec.outputs
    for b in _items(binding):
        args = dict(fixed)
        for name, x, t, batched in zip(spec.inputs, xs, ts, binding.batched, strict=True):
            x_b = _item(x, batched, b)
            scalar = spec.param(name).kind == "float"
            value = _scalar(spec, name, x_b) if scalar else x_b
            if t is None and _needs_scratch(spec, name):
                args[name] = Duplicated(value, np.zeros_like(x_b))
            elif t is None:
                args[name] = Const(value)
            else:
                t_b = _item(t, batched, b)
                args[name] = Duplicated(value, _scalar(spec, name, t_b) if scalar else t_b)
        for name, out, tout in zip(spec.outputs, outs, touts, strict=True):
            if name != RETURN:
                args[name] = Duplicated(_item(out, True, b), _item(tout, True, b))
        result = spec.library.fwddiff(spec.name, *_ordered(spec, args), return_primal=returns)
        if returns:
            primal_value, tangent = result
            _store_return(spec, outs, b, primal_value)
            _store_return(spec, touts, b, tangent)
    dtype = binding.out_dtype
    return ([o.astype(dtype, copy=False) for o in outs],
            [t.astype(dtype, copy=False) for t in touts])


# --------------------------------------------------------------------------- helpers


def _needs_scratch(spec: FunctionSpec, name: str) -> bool:
    return (spec.shadow_all_inputs and spec.param(name).kind == "pointer"
            and spec.c_dtype(name).kind == "f")


def _with_shadow_fallback(spec: FunctionSpec, run: Callable[[], Any]) -> Any:
    try:
        return run()
    except DifferentiationError:
        if spec.shadow_all_inputs:
            raise
        spec.shadow_all_inputs = True
        return run()


def _new_outputs(spec: FunctionSpec, binding: Binding) -> Arrays:
    return [np.zeros(shape, spec.c_dtype(name))
            for name, shape in zip(spec.outputs, binding.out_shapes, strict=True)]


def _ordered(spec: FunctionSpec, args: dict[str, Any]) -> list[Any]:
    return [args[p.name] for p in spec.signature.params]


def _store_return(spec: FunctionSpec, outs: Arrays, b: int | None, value: Any) -> None:
    if RETURN not in spec.outputs:
        return
    out = outs[spec.outputs.index(RETURN)]
    if b is None:
        out[()] = value
    else:
        out[b] = value


def _as_tuple(result: Any) -> tuple[Any, ...]:
    if result is None:
        return ()
    if isinstance(result, tuple):
        return result
    return (result,)
