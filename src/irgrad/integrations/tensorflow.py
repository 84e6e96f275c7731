"""A compiled C function as a TensorFlow op (``tf.custom_gradient``).

::

    f = irgrad.tensorflow.function(lib, "f", "x[n], w[n] -> y[n]")
    with tf.GradientTape() as tape:
        y = f(x, w)                 # eagerly, or inside a tf.function
    tape.gradient(y, [x, w])        # lib.autodiff

The primal and the reverse sweep run through ``tf.numpy_function`` (host NumPy calls
that TensorFlow can trace into a graph), so the op works eagerly and inside
``tf.function``. Output shapes are set statically when the input shapes are known at
trace time. Inputs must have the C dtype unless ``convert=True``; integer and
``nondiff`` inputs get no gradient (None).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Unpack

import numpy as np
import tensorflow as tf

from irgrad.integrations import ops
from irgrad.integrations.spec import FunctionSpec, ShapeInfo, SpecOptions, as_op, make_spec


def _static_binding(spec: FunctionSpec, xs: Sequence[tf.Tensor]) -> Any:
    """The binding from static shapes when they are all known (else None: run time)."""
    infos = []
    for x in xs:
        shape = x.shape
        if shape.rank is None or any(d is None for d in shape.as_list()):
            return None
        infos.append(ShapeInfo(tuple(shape.as_list()), np.dtype(x.dtype.as_numpy_dtype)))
    return spec.bind(infos)


def _out_dtype(spec: FunctionSpec, xs: Sequence[tf.Tensor]) -> tf.DType:
    floats = [np.dtype(x.dtype.as_numpy_dtype) for x in xs
              if np.dtype(x.dtype.as_numpy_dtype).kind == "f"]
    if spec.convert and floats:
        return tf.as_dtype(np.result_type(*floats))
    return tf.as_dtype(spec.c_dtype(spec.outputs[0]))


def apply(spec: FunctionSpec, *args: Any) -> Any:
    """Call the op described by ``spec`` (one output: a tensor, else a tuple)."""
    spec.check_arity(args)
    xs = [tf.convert_to_tensor(a) for a in args]
    binding = _static_binding(spec, xs)
    out_dtype = _out_dtype(spec, xs)
    diff = [spec.differentiable(n) for n in spec.inputs]
    n_out = len(spec.outputs)

    @tf.custom_gradient
    def op(*inner: tf.Tensor) -> Any:
        def primal_host(*arrays: np.ndarray) -> list[np.ndarray]:
            return ops.primal(spec, list(arrays))

        outs = tf.numpy_function(primal_host, list(inner), [out_dtype] * n_out,
                                 stateful=False, name=f"irgrad_{spec.name}")
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        if binding is not None:
            for o, shape in zip(outs, binding.out_shapes, strict=True):
                o.set_shape(shape)

        def grad(*dys: tf.Tensor, **_: Any) -> list[tf.Tensor | None]:
            def vjp_host(*arrays: np.ndarray) -> list[np.ndarray]:
                k = len(inner)
                grads = ops.vjp(spec, list(arrays[:k]), list(arrays[k:]), diff)
                return [g for g, d in zip(grads, diff, strict=True) if d]  # type: ignore[misc]

            cts = [tf.zeros_like(o) if dy is None else dy for o, dy in zip(outs, dys,
                                                                           strict=True)]
            types = [x.dtype for x, d in zip(inner, diff, strict=True) if d]
            found_grads = tf.numpy_function(vjp_host, [*inner, *cts], types, stateful=False,
                                            name=f"irgrad_{spec.name}_vjp")
            found = iter(found_grads if isinstance(found_grads, (list, tuple))
                         else [found_grads])
            result = []
            for x, d in zip(inner, diff, strict=True):
                if d:
                    g = next(found)
                    g.set_shape(x.shape)
                    result.append(g)
                else:
                    result.append(None)
            return result

        return (outs[0] if n_out == 1 else tuple(outs)), grad

    return op(*xs)


def function(
    lib: Any,
    name: str,
    signature: str | None = None,
    **options: Unpack[SpecOptions],
) -> Callable[..., Any]:
    """``lib[name]`` as a TensorFlow op; arguments as in :func:`spec.make_spec`."""
    spec = make_spec(lib, name, signature, **options)

    @tf.autograph.experimental.do_not_convert  # plain Python: UsageError stays UsageError
    def op(*args: Any) -> Any:
        return apply(spec, *args)

    return as_op(spec, op, f"irgrad TensorFlow op around C function '{spec.name}'")


__all__ = ["apply", "function"]
