"""A compiled C function as a differentiable PyTorch op (``torch.autograd.Function``).

::

    lib = irgrad.compile_c(source)
    f = irgrad.torch.function(lib, "f", "x[n], w[n] -> y[n]")
    y = f(x, w)                    # x, w: CPU tensors; y.backward(...) runs lib.autodiff

Inputs are CPU tensors (or Python numbers for scalar inputs). Their dtype must be the C
parameter's (``double *`` <-> float64, ``float *`` <-> float32); ``convert=True`` casts
to the C type and casts outputs and gradients back to the inputs' floating dtype. Inputs
with one extra leading dimension are a batch (a loop over the items; see
:mod:`irgrad.integrations.spec`). Backward calls ``lib.autodiff`` once per item with
``Const`` for inputs that need no gradient. The backward itself is not differentiable
(no double backward: ``torch.autograd.gradcheck`` passes, ``gradgradcheck`` does not).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Unpack

import numpy as np
import torch
from torch.autograd.function import once_differentiable

from irgrad.errors import UsageError
from irgrad.integrations import ops
from irgrad.integrations.spec import FunctionSpec, SpecOptions, as_op, make_spec


def _to_numpy(spec: FunctionSpec, name: str, value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        if value.device.type != "cpu":
            raise UsageError(f"{spec.where()}: input '{name}' is on {value.device}; irgrad "
                             "ops run on CPU tensors (call .cpu())")
        if value.is_complex():
            raise UsageError(f"{spec.where()}: input '{name}' is complex ({value.dtype})")
        return value.detach().numpy()
    if isinstance(value, (int, float, np.ndarray, np.generic)):
        return np.asarray(value)
    raise UsageError(f"{spec.where()}: input '{name}' must be a torch.Tensor, got "
                     f"{type(value).__name__}")


class _IrgradFunction(torch.autograd.Function):
    """forward: the C primal; backward: one reverse sweep (lib.autodiff) per item."""

    @staticmethod
    def forward(ctx: Any, spec: FunctionSpec, *inputs: Any) -> Any:
        arrays = [_to_numpy(spec, n, x) for n, x in zip(spec.inputs, inputs, strict=True)]
        outs = ops.primal(spec, arrays)
        ctx.spec = spec
        # tensors through save_for_backward: PyTorch then reports in-place changes made
        # between forward and backward instead of letting backward read new values
        ctx.is_tensor = [isinstance(x, torch.Tensor) for x in inputs]
        ctx.others = [None if t else a for t, a in zip(ctx.is_tensor, arrays, strict=True)]
        ctx.save_for_backward(*[x for x in inputs if isinstance(x, torch.Tensor)])
        ctx.dtypes = [x.dtype if isinstance(x, torch.Tensor) else None for x in inputs]
        return tuple(torch.from_numpy(o) for o in outs)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        spec: FunctionSpec = ctx.spec
        wanted = list(ctx.needs_input_grad[1:])
        cts = [None if g is None else g.detach().cpu().numpy() for g in grad_outputs]
        saved = iter(ctx.saved_tensors)
        arrays = [next(saved).detach().numpy() if t else a
                  for t, a in zip(ctx.is_tensor, ctx.others, strict=True)]
        grads = ops.vjp(spec, arrays, cts, wanted)
        result: list[Any] = [None]
        for g, w, dtype in zip(grads, wanted, ctx.dtypes, strict=True):
            if g is None or not w:
                result.append(None)
            else:
                t = torch.from_numpy(g)
                result.append(t.to(dtype) if dtype is not None else t)
        return tuple(result)


def apply(spec: FunctionSpec, *inputs: Any) -> torch.Tensor | tuple[torch.Tensor, ...]:
    """Call the op described by ``spec`` on tensors (one output: a tensor, else a tuple)."""
    spec.check_arity(inputs)
    for name, x in zip(spec.inputs, inputs, strict=True):
        if isinstance(x, torch.Tensor) and x.requires_grad and not spec.differentiable(name):
            raise UsageError(f"{spec.where()}: input '{name}' requires grad but is not "
                             "differentiable (integer C type or nondiff)")
    outs = _IrgradFunction.apply(spec, *inputs)
    return outs[0] if len(outs) == 1 else outs


def function(
    lib: Any,
    name: str,
    signature: str | None = None,
    **options: Unpack[SpecOptions],
) -> Callable[..., Any]:
    """``lib[name]`` as a PyTorch op; the arguments are those of :func:`spec.make_spec`."""
    spec = make_spec(lib, name, signature, **options)

    def op(*args: Any) -> Any:
        return apply(spec, *args)

    return as_op(spec, op, f"irgrad PyTorch op around C function '{spec.name}'")


__all__ = ["apply", "function"]
