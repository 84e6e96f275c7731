"""Wall-clock timing: one warm-up call, then repeated calls until both a minimum count and
a time budget are reached (capped), reporting median and min. ``measure_interleaved``
times several closures (a tool's objective and derivatives) round by round, so that on a
loaded machine they see the same load and their ratio stays meaningful."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class TimingPolicy:
    min_runs: int = 3
    max_runs: int = 20
    budget_s: float = 1.0  # stop adding runs once they took this long in total


QUICK = TimingPolicy(min_runs=3, max_runs=7, budget_s=0.3)
FULL = TimingPolicy(min_runs=3, max_runs=15, budget_s=0.5)


@dataclass(frozen=True)
class Timing:
    median: float  # seconds
    min: float
    runs: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def measure(fn: Callable[[], object], policy: TimingPolicy, warmup: bool = True) -> Timing:
    if warmup:
        fn()
    times: list[float] = []
    while len(times) < policy.max_runs and (
        len(times) < policy.min_runs or sum(times) < policy.budget_s
    ):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return Timing(statistics.median(times), min(times), len(times))


def measure_interleaved(
    fns: dict[str, Callable[[], object]], policy: TimingPolicy
) -> dict[str, Timing]:
    """Time every closure once per round, each right after an untimed call of itself: a
    cheap objective timed straight after an expensive derivative runs on caches the
    derivative left cold (Hand's objective read 0.17 ms that way, 0.04 ms warm), which
    inflated every ratio whose derivative is slow."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    rounds = 0
    total = 0.0
    while rounds < policy.max_runs and (rounds < policy.min_runs or total < policy.budget_s):
        for key, fn in fns.items():
            fn()
            t0 = time.perf_counter()
            fn()
            dt = time.perf_counter() - t0
            times[key].append(dt)
            total += dt
        rounds += 1
    return {k: Timing(statistics.median(v), min(v), len(v)) for k, v in times.items()}
