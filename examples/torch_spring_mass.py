"""A C physics simulation trained as a PyTorch layer (irgrad.torch).

``examples/spring_mass.c`` simulates a damped chain of masses. ``SpringMassLayer`` wraps
it as a differentiable op: the forward pass runs the C code, the backward pass the
reverse-mode derivative that irgrad synthesizes from the same C code. Training recovers
the stiffnesses, dampers and coupling that produced a set of observed trajectories (a
batch of initial conditions sharing the physical parameters)::

    .venv/bin/python examples/torch_spring_mass.py [epochs]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import torch

import irgrad

HERE = Path(__file__).resolve().parent
N_MASSES, STEPS, DT = 4, 60, 0.05


def compile_simulation(opt_level: int = 2) -> Any:
    return irgrad.compile(sources=[HERE / "spring_mass.c"], opt_level=opt_level)


class SpringMassLayer(torch.nn.Module):
    """(x0, v0) -> trajectory (steps, n); batched over leading dimensions of x0/v0."""

    def __init__(self, lib: Any, n: int = N_MASSES, steps: int = STEPS, dt: float = DT
                 ) -> None:
        super().__init__()
        self.simulate = irgrad.torch.function(
            lib, "spring_mass", "k[n], c[n], kc, x0[n], v0[n] -> traj[steps, n]",
            constants={"steps": steps, "dt": dt},
        )
        # positive parameters through their logarithms
        self.log_k = torch.nn.Parameter(torch.zeros(n, dtype=torch.float64))
        self.log_c = torch.nn.Parameter(torch.full((n,), -2.0, dtype=torch.float64))
        self.log_kc = torch.nn.Parameter(torch.tensor(0.0, dtype=torch.float64))

    def forward(self, x0: torch.Tensor, v0: torch.Tensor) -> torch.Tensor:
        return self.simulate(self.log_k.exp(), self.log_c.exp(), self.log_kc.exp(), x0, v0)


def observations(lib: Any, batch: int = 8, seed: int = 0
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    """Trajectories of the 'true' system from random initial conditions."""
    gen = torch.Generator().manual_seed(seed)
    true = {"k": torch.tensor([1.0, 2.0, 3.0, 1.5], dtype=torch.float64),
            "c": torch.tensor([0.1, 0.3, 0.2, 0.05], dtype=torch.float64),
            "kc": torch.tensor(0.8, dtype=torch.float64)}
    x0 = torch.randn(batch, N_MASSES, dtype=torch.float64, generator=gen)
    v0 = torch.randn(batch, N_MASSES, dtype=torch.float64, generator=gen)
    layer = SpringMassLayer(lib)
    with torch.no_grad():
        traj = layer.simulate(true["k"], true["c"], true["kc"], x0, v0)
    return x0, v0, traj, true


def train(lib: Any, epochs: int = 150, lr: float = 0.05, log: bool = False
          ) -> tuple[list[float], SpringMassLayer, dict[str, torch.Tensor]]:
    x0, v0, target, true = observations(lib)
    layer = SpringMassLayer(lib)
    opt = torch.optim.Adam(layer.parameters(), lr=lr)
    losses = []
    for epoch in range(epochs):
        opt.zero_grad()
        loss = ((layer(x0, v0) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if log and (epoch % 25 == 0 or epoch == epochs - 1):
            print(f"epoch {epoch:4d}  loss {loss.item():.3e}")
    return losses, layer, true


def main(argv: list[str]) -> int:
    epochs = int(argv[1]) if len(argv) > 1 else 300
    lib = compile_simulation()
    losses, layer, true = train(lib, epochs, log=True)
    print("learned k ", layer.log_k.exp().detach().numpy().round(3), " true", true["k"].numpy())
    print("learned c ", layer.log_c.exp().detach().numpy().round(3), " true", true["c"].numpy())
    print(f"learned kc {layer.log_kc.exp().item():.3f}  true {true['kc'].item()}")
    print(f"loss {losses[0]:.3e} -> {losses[-1]:.3e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
