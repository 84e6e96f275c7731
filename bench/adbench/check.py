"""Agreement checks of the runner: every tool against the hand-written derivatives
(relative to the values' scale) and against ADBench's golden values (absolute), both
with tolerance 1e-8."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import F64

TOL = 1e-8


def scaled_error(got: F64, want: F64) -> float:
    """max |got - want| / (1 + max |want|); inf when the shapes differ or a value is NaN."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return float("inf")
    if want.size == 0:
        return 0.0
    err = float(np.max(np.abs(got - want))) / (1.0 + float(np.max(np.abs(want))))
    return err if np.isfinite(err) else float("inf")


def absolute_error(got: F64, want: F64) -> float:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return float("inf")
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    return err if np.isfinite(err) else float("inf")


@dataclass
class Agreement:
    """Errors of one tool's objective and derivative (each variant) on one instance."""

    vs_manual: dict[str, float]  # "objective", "derivative[:variant]" -> scaled error
    vs_golden: dict[str, float]  # same keys -> absolute error (golden instances only)

    @property
    def ok(self) -> bool:
        errs = [*self.vs_manual.values(), *self.vs_golden.values()]
        return all(e <= TOL for e in errs)


def agreement(
    objective: F64,
    derivatives: dict[str, F64],
    reference: tuple[F64, F64],
    golden: tuple[F64, F64] | None,
) -> Agreement:
    vs_manual = {"objective": scaled_error(objective, reference[0])}
    vs_golden = {} if golden is None else {"objective": absolute_error(objective, golden[0])}
    for variant, value in derivatives.items():
        key = f"derivative:{variant}"
        vs_manual[key] = scaled_error(value, reference[1])
        if golden is not None:
            vs_golden[key] = absolute_error(value, golden[1])
    return Agreement(vs_manual, vs_golden)
