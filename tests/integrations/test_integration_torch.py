"""irgrad.torch: compiled C functions as torch.autograd.Function ops (gradcheck, batch, dtypes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from integ_kernels import rng
from readme_snippets import run_readme_section

import irgrad
from irgrad.errors import UsageError


def t64(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.tensor(rng(seed).normal(size=shape), dtype=torch.float64, requires_grad=True)


def test_gradcheck_elementwise_at_several_levels(lib_levels: Any) -> None:
    f = irgrad.torch.function(lib_levels, "f", "x[n], w[n] -> y[n]")
    assert torch.autograd.gradcheck(f, (t64(6, seed=1), t64(6, seed=2)))


def test_gradcheck_matrix_vector_scalar_return_two_outputs(lib: Any) -> None:
    mv = irgrad.torch.function(lib, "mv", "A[m, n], x[n] -> y[m]")
    assert torch.autograd.gradcheck(mv, (t64(3, 4, seed=3), t64(4, seed=4)))
    g = irgrad.torch.function(lib, "g", "x[n], a -> return")
    assert torch.autograd.gradcheck(g, (t64(5, seed=5), t64(seed=6)))
    stats = irgrad.torch.function(lib, "stats", "x[n] -> mean[], sq[n]")
    assert torch.autograd.gradcheck(stats, (t64(5, seed=7),))


def test_gradcheck_batched_inputs_shared_and_per_item(lib: Any) -> None:
    mv = irgrad.torch.function(lib, "mv", "A[m, n], x[n] -> y[m]")
    A, xs = t64(3, 4, seed=8), t64(5, 4, seed=9)
    y = mv(A, xs)
    assert y.shape == (5, 3)
    torch.testing.assert_close(y, (A @ torch.tanh(xs).T).T.detach())
    assert torch.autograd.gradcheck(mv, (A, xs))
    assert torch.autograd.gradcheck(mv, (t64(2, 3, 4, seed=10), xs[:2]))
    g = irgrad.torch.function(lib, "g", "x[n], a -> return")
    assert torch.autograd.gradcheck(g, (t64(4, 5, seed=11), t64(4, seed=12)))


def test_only_needed_gradients_and_integer_inputs(lib: Any) -> None:
    f = irgrad.torch.function(lib, "f", "x[n], w[n] -> y[n]")
    x, w = t64(5, seed=13), t64(5, seed=14).detach()
    f(x, w).sum().backward()
    xd = x.detach()
    torch.testing.assert_close(x.grad, torch.cos(xd) * w + 2 * xd)
    gather = irgrad.torch.function(lib, "gather", "x[n], idx[m] -> y[m]",
                                   constants={"c": 0.5})
    xg = t64(4, seed=15)
    idx = torch.tensor([1, 1, 3], dtype=torch.int32)
    assert torch.autograd.gradcheck(lambda x: gather(x, idx), (xg,))


def test_float32_function_and_convert(lib: Any) -> None:
    h = irgrad.torch.function(lib, "h", "x[n] -> y[n]")
    x = torch.linspace(-1, 1, 7, requires_grad=True)
    y = h(x)
    assert y.dtype == torch.float32
    y.backward(torch.ones(7))
    torch.testing.assert_close(x.grad, 3 * x.detach() ** 2)
    f = irgrad.torch.function(lib, "f", "x[n], w[n] -> y[n]", convert=True)
    x32 = torch.linspace(0, 1, 4, requires_grad=True)
    out = f(x32, torch.ones(4))
    assert out.dtype == torch.float32
    out.sum().backward()
    assert x32.grad is not None and x32.grad.dtype == torch.float32
    torch.testing.assert_close(x32.grad, torch.cos(x32.detach()) + 2 * x32.detach())


def test_explicit_form_as_in_the_issue(lib: Any) -> None:
    f = irgrad.torch.function(lib, "f", inputs=["x", "w"],
                              outputs={"y": lambda x, w: x.shape},
                              sizes={"n": lambda x, w: x.shape[0]})
    assert torch.autograd.gradcheck(f, (t64(4, seed=16), t64(4, seed=17)))


def test_inside_a_module_with_optimizer(lib: Any) -> None:
    mv = irgrad.torch.function(lib, "mv", "A[m, n], x[n] -> y[m]")
    A = torch.nn.Parameter(torch.zeros(2, 3, dtype=torch.float64))
    xs = torch.tensor(rng(18).normal(size=(8, 3)))
    target = (torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 1.0]], dtype=torch.float64)
              @ torch.tanh(xs).T).T
    opt = torch.optim.Adam([A], lr=0.1)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = ((mv(A, xs) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 1e-2 * losses[0]


def test_wrong_inputs_give_clear_errors(lib: Any) -> None:
    f = irgrad.torch.function(lib, "f", "x[n], w[n] -> y[n]")
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(UsageError, match=r"input 'x' must be float64 .*got float32; pass convert=True"):
        f(x.float(), x)
    with pytest.raises(UsageError, match="dimension 'n' is 3 from input 'x' but 2"):
        f(x, x[:2])
    with pytest.raises(UsageError, match="expected 2 inputs \\(x, w\\), got 3"):
        f(x, x, x)
    with pytest.raises(UsageError, match=r"input 'w' must be a torch\.Tensor, got str"):
        f(x, "w")
    with pytest.raises(UsageError, match="input 'x' is complex"):
        f(x.to(torch.complex128), x)
    with pytest.raises(UsageError, match="no role"):
        irgrad.torch.function(lib, "f", "x[n] -> y[n]")


def test_inplace_change_between_forward_and_backward_is_reported(lib: Any) -> None:
    f = irgrad.torch.function(lib, "f", "x[n], w[n] -> y[n]")
    x, w = t64(3, seed=30), t64(3, seed=31)
    y = f(x, w)
    with torch.no_grad():
        w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_readme_pytorch_snippet_runs() -> None:
    namespace = run_readme_section("PyTorch")
    assert namespace["ok"] is True
    assert isinstance(namespace["x"].grad, torch.Tensor)
    np.testing.assert_allclose(namespace["x"].grad.numpy(), namespace["expected"], rtol=1e-12)


def _example_module() -> Any:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "torch_spring_mass.py"
    spec = importlib.util.spec_from_file_location("torch_spring_mass", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_spring_mass_example_gradcheck_and_training() -> None:
    example = _example_module()
    lib = example.compile_simulation()
    layer = example.SpringMassLayer(lib, n=3, steps=7, dt=0.1)
    k, c = t64(3, seed=20).detach().abs().requires_grad_(), t64(3, seed=21).detach().abs()
    kc = torch.tensor(0.4, dtype=torch.float64, requires_grad=True)
    x0, v0 = t64(2, 3, seed=22), t64(3, seed=23)   # a batch of 2 starts, one shared v0
    assert torch.autograd.gradcheck(layer.simulate, (k, c.requires_grad_(), kc, x0, v0))
    # x0/v0 without gradients: the C code mixes x0 with the output buffer (a select), so
    # the op falls back to scratch shadows instead of Const; gradients must not change
    grads = torch.autograd.grad(layer.simulate(k, c, kc, x0, v0).sum(), (k, c, kc))
    more = torch.autograd.grad(
        layer.simulate(k, c, kc, x0.detach(), v0.detach()).sum(), (k, c, kc))
    for a, b in zip(grads, more, strict=True):
        torch.testing.assert_close(a, b)
    losses, trained, true = example.train(lib, epochs=80)
    assert losses[-1] < 1e-3 * losses[0]
    torch.testing.assert_close(trained.log_kc.exp().detach(), true["kc"], rtol=0.05, atol=0)
