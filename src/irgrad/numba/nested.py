"""Wrappers for a derivative of a derivative: ``irgrad.grad(irgrad.grad(f))``.

The inner gradient is not called through its compiled code (a native function pointer,
whose derivative irgrad cannot know) but put into the module as IR: the inner wrappers of
:mod:`irgrad.numba.abi` under names of their own (``irgrad_nb_rev_inner``, ...) with
their ``__enzyme_autodiff`` call still to be lowered, and an outer primal wrapper that
returns the inner gradient as a float::

    double @irgrad_nb_primal(ptr %status, args...)
      = { ds[0] after irgrad_nb_rev_inner(status, ds, 1.0, args...) }

The outer seeded and reverse wrappers are the ordinary ones on that primal, so irgrad's
lowering differentiates reverse over reverse (the inner ``__enzyme_autodiff`` is lowered
inside the function the outer one differentiates). The inner wrappers do not take the
arena's lock: the outer wrappers hold it while both run.
"""

from __future__ import annotations

import re

from irgrad.numba.abi import (
    PRIMAL,
    SEEDED,
    ArgKind,
    primal_wrapper,
    reverse_wrapper,
    seeded_wrapper,
)

INNER_SUFFIX = "_inner"
_WRAPPER_REF = re.compile(r"@(irgrad_nb_(?:primal|seeded|rev|fwd))\b")
_LOCK_CALL = re.compile(r"^\s*call void @irgrad_nb_(?:acquire|release)\(\)\n", re.M)


def inner_wrappers(kinds: list[ArgKind], has_return: bool, internal: str,
                   ret_ll: str) -> str:
    """The inner gradient's primal, seeded and reverse wrappers, renamed, without the
    arena's lock."""
    text = "\n".join([primal_wrapper(kinds, has_return, internal, 0, ret_ll),
                      seeded_wrapper(kinds, has_return), reverse_wrapper(kinds)])
    text = _WRAPPER_REF.sub(lambda m: f"@{m.group(1)}{INNER_SUFFIX}", text)
    text = text.replace("@__enzyme_autodiff_irgrad_nb_", "@__enzyme_autodiff_irgrad_nbi_")
    return _LOCK_CALL.sub("", text)


def gradient_primal(kinds: list[ArgKind]) -> str:
    """``irgrad_nb_primal(status, args...) -> double``: the inner gradient (its one
    float). Array arguments are constant in both gradients (their shadow is the array
    itself, unused)."""
    params: list[str] = ["ptr %status"]
    call: list[str] = ["ptr %status", "ptr %ds", "double 1.0"]
    for i, k in enumerate(kinds):
        if k.kind == "array":
            shapes = [f"i64 %a{i}.s{d}" for d in range(k.ndim)]
            params += [f"ptr %a{i}", *shapes]
            call += [f"ptr %a{i}", f"ptr %a{i}", *shapes]
        else:
            params.append(f"{k.ll} %a{i}")
            call.append(f"{k.ll} %a{i}")
    return "\n".join([
        f"define double @{PRIMAL}({', '.join(params)}) {{",
        "entry:",
        "  %ds = alloca [1 x double], align 8",
        f"  call void @irgrad_nb_rev{INNER_SUFFIX}({', '.join(call)})",
        "  %g = load double, ptr %ds, align 8",
        "  ret double %g",
        "}",
    ])


__all__ = ["INNER_SUFFIX", "SEEDED", "gradient_primal", "inner_wrappers"]
