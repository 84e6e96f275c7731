"""A compiled C function as a JAX function (``custom_vjp`` or ``custom_jvp``).

::

    f = irgrad.jax.function(lib, "f", "x[n], w[n] -> y[n]")            # reverse mode
    jax.jit(jax.grad(lambda x, w: f(x, w).sum()))(x, w)
    g = irgrad.jax.function(lib, "f", "x[n], w[n] -> y[n]", mode="fwd")  # forward mode
    jax.jvp(g, (x, w), (tx, tw)); jax.jacfwd(g)(x, w)

The C code runs through ``jax.pure_callback``: the primal, ``lib.autodiff`` (the VJP of
``mode="rev"``, a ``jax.custom_vjp``) and ``lib.fwddiff`` (the JVP of ``mode="fwd"``, a
``jax.custom_jvp``) are host callbacks that work under ``jax.jit``, ``jax.grad`` and
``jax.vmap`` (``vmap_method="sequential"``: one call per mapped item; a declared leading
batch dimension is looped inside the callback instead).

Why pure_callback and not the XLA FFI: irgrad's functions are JIT-compiled in-process by
LLVM's ORC JIT from IR synthesized at run time, with plain C-pointer signatures. The XLA
FFI wants a handler with XLA's C++ call-frame ABI (``XLA_FFI_Handler``) registered per
target; each primal/derivative would need a generated adapter compiled against jaxlib's
headers. pure_callback reuses the NumPy-level calls shared with PyTorch and TensorFlow
and costs a host round trip per call (measured in ``bench/frameworks.py``); an FFI
adapter is the way to remove that overhead later.

JAX cannot combine ``custom_vjp`` and ``custom_jvp`` on one function (a custom_jvp rule
made of callbacks has no transpose), hence the two modes; ``mode="both"`` gives forward
and reverse mode on one function through JAX primitives
(:mod:`irgrad.integrations.jax_primitives`, JAX's less stable extension API). Inputs must have the C dtype
(``double *`` needs ``jax.config.update("jax_enable_x64", True)``) unless
``convert=True``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Unpack

import jax
import numpy as np

from irgrad.errors import UsageError
from irgrad.integrations import ops
from irgrad.integrations.spec import FunctionSpec, ShapeInfo, SpecOptions, as_op, make_spec


def _infos(spec: FunctionSpec, args: Sequence[Any]) -> list[ShapeInfo]:
    infos = []
    for name, a in zip(spec.inputs, args, strict=True):
        if not hasattr(a, "shape") or not hasattr(a, "dtype"):
            raise UsageError(f"{spec.where()}: input '{name}' must be an array, got "
                             f"{type(a).__name__}")
        infos.append(ShapeInfo(tuple(a.shape), np.dtype(a.dtype)))
    return infos


def _out_structs(spec: FunctionSpec, args: Sequence[Any]) -> list[jax.ShapeDtypeStruct]:
    binding = spec.bind(_infos(spec, args))
    return [jax.ShapeDtypeStruct(s, binding.out_dtype) for s in binding.out_shapes]


def _primal(spec: FunctionSpec, args: Sequence[Any]) -> tuple[Any, ...]:
    structs = _out_structs(spec, args)

    def host(*xs: Any) -> list[np.ndarray]:
        return ops.primal(spec, [np.asarray(x) for x in xs])

    return tuple(jax.pure_callback(host, structs, *args, vmap_method="sequential"))


def _vjp(spec: FunctionSpec, args: Sequence[Any], cts: Sequence[Any]) -> tuple[Any, ...]:
    diff = [spec.differentiable(n) for n in spec.inputs]
    structs = [jax.ShapeDtypeStruct(a.shape, a.dtype)
               for a, d in zip(args, diff, strict=True) if d]
    n = len(args)

    def host(*xs: Any) -> list[np.ndarray]:
        arrays = [np.asarray(x) for x in xs[:n]]
        grads = ops.vjp(spec, arrays, [np.asarray(c) for c in xs[n:]], diff)
        return [g for g, d in zip(grads, diff, strict=True) if d]  # type: ignore[misc]

    found = iter(jax.pure_callback(host, structs, *args, *cts, vmap_method="sequential"))
    return tuple(next(found) if d else None for d in diff)


def _jvp(spec: FunctionSpec, args: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, ...]:
    """Output tangents only: under jax.vmap (jacfwd) the tangents are batched while the
    primal outputs must not be, so the primal is a separate callback."""
    structs = _out_structs(spec, args)
    n = len(args)

    def host(*xs: Any) -> list[np.ndarray]:
        _, touts = ops.jvp(spec, [np.asarray(x) for x in xs[:n]],
                           [np.asarray(t) for t in xs[n:]])
        return touts

    return tuple(jax.pure_callback(host, structs, *args, *tangents,
                                   vmap_method="sequential"))


def _unwrap(outs: tuple[Any, ...]) -> Any:
    return outs[0] if len(outs) == 1 else outs


def _wrap(outs: Any) -> tuple[Any, ...]:
    return outs if isinstance(outs, tuple) else (outs,)


def build(spec: FunctionSpec, mode: str = "rev") -> Callable[..., Any]:
    """A JAX function for ``spec``: ``mode="rev"`` (custom_vjp) or ``"fwd"`` (custom_jvp)."""
    if mode == "rev":
        @jax.custom_vjp
        def f(*args: Any) -> Any:
            return _unwrap(_primal(spec, args))

        def f_fwd(*args: Any) -> tuple[Any, tuple[Any, ...]]:
            return _unwrap(_primal(spec, args)), args

        def f_bwd(args: tuple[Any, ...], cts: Any) -> tuple[Any, ...]:
            return _vjp(spec, args, _wrap(cts))

        f.defvjp(f_fwd, f_bwd)
    elif mode == "fwd":
        @jax.custom_jvp
        def f(*args: Any) -> Any:
            return _unwrap(_primal(spec, args))

        @f.defjvp
        def f_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> Any:
            return _unwrap(_primal(spec, primals)), _unwrap(_jvp(spec, primals, tangents))
    elif mode == "both":
        from irgrad.integrations.jax_primitives import build_both

        bind = build_both(spec)

        def f(*args: Any) -> Any:
            return _unwrap(bind(*args))
    else:
        raise UsageError(f"{spec.where()}: mode must be 'rev' (custom_vjp), 'fwd' "
                         f"(custom_jvp) or 'both' (JAX primitives), not {mode!r}")

    def op(*args: Any) -> Any:
        spec.check_arity(args)
        args = tuple(jax.numpy.asarray(a) for a in args)
        spec.bind(_infos(spec, args))  # clear errors at trace time, before any callback
        return f(*args)

    return as_op(spec, op, f"irgrad JAX function ({mode}) around C function '{spec.name}'")


def function(
    lib: Any,
    name: str,
    signature: str | None = None,
    *,
    mode: str = "rev",
    **options: Unpack[SpecOptions],
) -> Callable[..., Any]:
    """``lib[name]`` as a JAX function; arguments as in :func:`spec.make_spec`, plus mode."""
    spec = make_spec(lib, name, signature, **options)
    return build(spec, mode)


__all__ = ["build", "function"]
