"""``irgrad.jax.function(..., mode="both")``: forward AND reverse mode on one JAX function.

``jax.custom_vjp`` functions refuse ``jax.jvp`` and ``jax.custom_jvp`` rules made of host
callbacks cannot be transposed, so neither public API gives both modes. Three JAX
primitives per C function do:

* ``call``:  inputs -> outputs (the C primal);
* ``jvp``:   (inputs, input tangents) -> output tangents, linear in the tangents
  (``lib.fwddiff``); it is ``call``'s JVP rule;
* ``vjp``:   (inputs, output cotangents) -> input cotangents (``lib.autodiff``); it is the
  transpose rule of ``jvp`` with respect to the tangents.

So ``jax.jvp``/``jacfwd`` run forward mode, and ``jax.grad``/``vjp``/``jacrev`` run JAX's
linearize-then-transpose, which lands on the reverse sweep. Each primitive is lowered
through ``jax.pure_callback`` (works under ``jax.jit``). Under ``jax.vmap`` the mapped
call becomes a ``lax.map`` over the batch of the same primitive, so transformations
compose in any order. This uses JAX's primitive-extension API (``jax.extend.core``,
``jax.interpreters.ad/mlir/batching``), which is less stable across JAX releases than
``custom_vjp``/``custom_jvp``; hence opt-in.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from irgrad.integrations import ops
from irgrad.integrations.spec import FunctionSpec, ShapeInfo

_ids = itertools.count()


def _infos(args: Sequence[Any]) -> list[ShapeInfo]:
    return [ShapeInfo(tuple(a.shape), np.dtype(a.dtype)) for a in args]


def _avals(structs: Sequence[jax.ShapeDtypeStruct]) -> list[jax.core.ShapedArray]:
    return [jax.core.ShapedArray(s.shape, s.dtype) for s in structs]


def _callback(host: Callable[..., list[np.ndarray]],
              structs: Callable[[Sequence[Any]], list[jax.ShapeDtypeStruct]]
              ) -> Callable[..., list[Any]]:
    def impl(*args: Any) -> list[Any]:
        return list(jax.pure_callback(host, structs(args), *args, vmap_method="sequential"))
    return impl


def _define(name: str, impl: Callable[..., list[Any]],
            structs: Callable[[Sequence[Any]], list[jax.ShapeDtypeStruct]]) -> Primitive:
    prim = Primitive(name)
    prim.multiple_results = True
    prim.def_impl(impl)
    prim.def_abstract_eval(lambda *avals: _avals(structs(avals)))
    mlir.register_lowering(prim, mlir.lower_fun(impl, multiple_results=True))
    batching.primitive_batchers[prim] = _sequential_batcher(prim)
    return prim


def _sequential_batcher(prim: Primitive) -> Callable[..., Any]:
    """vmap rule: lax.map over the mapped axis, binding the same primitive per item."""
    def rule(args: Sequence[Any], dims: Sequence[int | None], **params: Any) -> Any:
        mapped = [i for i, d in enumerate(dims) if d is not None]
        moved = [jnp.moveaxis(args[i], dims[i], 0) for i in mapped]  # type: ignore[arg-type]

        def one(items: Sequence[Any]) -> list[Any]:
            full = list(args)
            for i, item in zip(mapped, items, strict=True):
                full[i] = item
            return prim.bind(*full, **params)  # type: ignore[no-any-return]

        outs = jax.lax.map(one, moved)
        return outs, [0] * len(outs)
    return rule


def build_both(spec: FunctionSpec) -> Callable[..., tuple[Any, ...]]:
    """The bind function of ``spec``'s ``call`` primitive (tuple of outputs)."""
    n = len(spec.inputs)
    diff = [spec.differentiable(name) for name in spec.inputs]
    diff_idx = [i for i, d in enumerate(diff) if d]
    tag = f"irgrad_{spec.name}_{next(_ids)}"

    def out_structs(args: Sequence[Any]) -> list[jax.ShapeDtypeStruct]:
        binding = spec.bind(_infos(args[:n]))
        return [jax.ShapeDtypeStruct(s, binding.out_dtype) for s in binding.out_shapes]

    def grad_structs(args: Sequence[Any]) -> list[jax.ShapeDtypeStruct]:
        return [jax.ShapeDtypeStruct(args[i].shape, args[i].dtype) for i in diff_idx]

    def host_call(*xs: Any) -> list[np.ndarray]:
        return ops.primal(spec, [np.asarray(x) for x in xs])

    def host_jvp(*xs: Any) -> list[np.ndarray]:
        tangents: list[Any] = [None] * n
        for i, t in zip(diff_idx, xs[n:], strict=True):
            tangents[i] = np.asarray(t)
        return ops.jvp(spec, [np.asarray(x) for x in xs[:n]], tangents)[1]

    def host_vjp(*xs: Any) -> list[np.ndarray]:
        grads = ops.vjp(spec, [np.asarray(x) for x in xs[:n]],
                        [np.asarray(c) for c in xs[n:]], diff)
        return [grads[i] for i in diff_idx]  # type: ignore[misc]

    call_p = _define(f"{tag}_call", _callback(host_call, out_structs), out_structs)
    jvp_p = _define(f"{tag}_jvp", _callback(host_jvp, out_structs), out_structs)
    vjp_p = _define(f"{tag}_vjp", _callback(host_vjp, grad_structs), grad_structs)

    def call_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
        outs = call_p.bind(*primals)
        ts = [ad.instantiate_zeros(tangents[i]) for i in diff_idx]
        return outs, jvp_p.bind(*primals, *ts)

    def jvp_transpose(cts: Sequence[Any], *args: Any) -> list[Any]:
        primals = args[:n]
        if any(ad.is_undefined_primal(p) for p in primals):
            raise NotImplementedError(f"{spec.where()}: the JVP is linear in the tangents "
                                      "only")
        cts = [ad.instantiate_zeros(c) for c in cts]
        grads = vjp_p.bind(*primals, *cts)
        return [None] * n + [g if ad.is_undefined_primal(t) else None
                             for g, t in zip(grads, args[n:], strict=True)]

    ad.primitive_jvps[call_p] = call_jvp
    ad.primitive_transposes[jvp_p] = jvp_transpose

    def bind(*args: Any) -> tuple[Any, ...]:
        return tuple(call_p.bind(*args))
    return bind
