"""Every derivative rule, through GENERATED code and the real pipeline.

``rule_cases`` turns each entry of ``irgrad.ad.rules.all_rules()`` (every name: ``sin``,
``sinf``, ``sinl``, ``llvm.sin`` at f64 and f32, ``fadd`` in float/double/x86_fp80, the
casts...) into an LLVM IR primal plus ``__enzyme_autodiff`` / ``__enzyme_fwddiff``
wrappers. All cases of one configuration are ONE module, compiled once through
``run_pipeline`` and JIT-compiled; a module that fails is split in halves until the
failing cases are found, so one bad rule fails only its own tests.

At points drawn from the rule's domain each case checks: the compiled primal against the
rule's Python primal; forward tangents against central differences; reverse mode with the
dot-product test; forward against reverse. A new rule is covered automatically, and a rule
the generator cannot handle fails ``test_rule_has_generated_cases``.
"""

from __future__ import annotations

import ctypes
from functools import cache

import numpy as np
import pytest
from rule_cases import CaseError, RuleCase, cases_for, module_text, sample_point

from irgrad.ad.rules import Rule, all_rules
from irgrad.errors import IRGradError
from irgrad.llvm.jit import JITModule
from irgrad.testing import (
    GradientCheckError,
    assert_close,
    check_forward,
    check_forward_vs_reverse,
    check_reverse,
    compile_ir_to_jit,
)

RULES = all_rules()
POINTS = 3

# (post-AD -O level, run the pre-AD pipeline). O0 without pre-AD differentiates the call
# or instruction exactly as generated (pre-AD O2 may turn fabs() into llvm.fabs...).
CONFIGS: dict[str, tuple[int, bool]] = {
    "O0-no-pre-ad": (0, False),
    "O0": (0, True),
    "O1": (1, True),
    "O2": (2, True),
    "O3": (3, True),
}
FULL_CONFIGS = ("O0-no-pre-ad", "O0", "O2")  # every case; O1/O3: the double cases


def _generate() -> tuple[list[RuleCase], dict[str, str]]:
    cases: list[RuleCase] = []
    errors: dict[str, str] = {}
    for rule in RULES:
        try:
            cases += cases_for(rule)
        except CaseError as exc:
            errors[_rule_id(rule)] = str(exc)
    return cases, errors


def _rule_id(rule: Rule) -> str:
    return f"{rule.kind}:{'/'.join(rule.names)}"


CASES, GENERATION_ERRORS = _generate()


def _in_config(case: RuleCase, config: str) -> bool:
    return config in FULL_CONFIGS or case.fp == "double"


Built = dict[str, JITModule | str]  # case ident -> its module, or the error building it


def _build(cases: list[RuleCase], opt_level: int, pre_ad: bool, out: Built) -> None:
    """Compile ``cases`` as one module; on failure, halve until the culprits are alone."""
    try:
        jit = compile_ir_to_jit(module_text(cases), opt_level, pre_ad=pre_ad,
                                filename=f"<rules {cases[0].ident}..>")
    except (IRGradError, ValueError, RuntimeError) as exc:
        if len(cases) == 1:
            out[cases[0].ident] = f"{type(exc).__name__}: {exc}"
            return
        half = len(cases) // 2
        _build(cases[:half], opt_level, pre_ad, out)
        _build(cases[half:], opt_level, pre_ad, out)
        return
    for case in cases:
        out[case.ident] = jit


@cache
def _built(config: str) -> Built:
    opt_level, pre_ad = CONFIGS[config]
    out: Built = {}
    _build([c for c in CASES if _in_config(c, config)], opt_level, pre_ad, out)
    return out


@pytest.mark.parametrize("rule", RULES, ids=_rule_id)
def test_rule_has_generated_cases(rule: Rule) -> None:
    rid = _rule_id(rule)
    assert rid not in GENERATION_ERRORS, f"no generated test for {rid}: {GENERATION_ERRORS[rid]}"
    names = {c.name for c in CASES if c.rule is rule}
    assert names == set(rule.names), f"{rid}: names without a case: {set(rule.names) - names}"


def test_enough_cases() -> None:
    assert len(RULES) >= 90
    assert len(CASES) >= 250


_D = ctypes.POINTER(ctypes.c_double)
_I = ctypes.POINTER(ctypes.c_int32)


def _tolerances(case: RuleCase) -> dict[str, float]:
    if case.low_precision:  # float arithmetic: a larger step, looser agreement
        return {"rtol": 3e-3, "atol": 3e-4, "eps": 1e-3}
    return {"rtol": 2e-5, "atol": 1e-7}


PARAMS = [
    pytest.param(config, case, id=f"{config}-{case.test_id}")
    for config in CONFIGS
    for case in CASES
    if _in_config(case, config)
]


@pytest.mark.parametrize(("config", "case"), PARAMS)
def test_rule_numerically(config: str, case: RuleCase) -> None:
    built = _built(config)[case.ident]
    if isinstance(built, str):
        pytest.fail(f"{case.test_id} at {config} does not build:\n{built}\n--- IR ---\n"
                    f"{case.ir()}")
    p = built.get(f"p_{case.ident}", ctypes.c_double, [_D, _I])
    g = built.get(f"g_{case.ident}", None, [_D, _D, _I])
    t = built.get(f"t_{case.ident}", ctypes.c_double, [_D, _D, _I])
    tol = _tolerances(case)
    for seed in range(POINTS):
        x_list, k_list = sample_point(case, seed)
        x0 = np.array(x_list, dtype=np.float64)
        k = np.array(k_list or [0], dtype=np.int32)
        kp = k.ctypes.data_as(_I)

        def f(x: np.ndarray, kp: ctypes._Pointer[ctypes.c_int32] = kp) -> float:
            buf = np.array(x, dtype=np.float64)
            return float(p(buf.ctypes.data_as(_D), kp))

        def rev(x: np.ndarray, c: object, kp: ctypes._Pointer[ctypes.c_int32] = kp
                ) -> np.ndarray:
            buf, dx = np.array(x, dtype=np.float64), np.zeros(len(x))
            g(buf.ctypes.data_as(_D), dx.ctypes.data_as(_D), kp)
            assert np.array_equal(buf, x), f"the gradient changed its input: {x} -> {buf}"
            return dx * float(np.asarray(c).reshape(-1)[0])

        def fwd(x: np.ndarray, dx: np.ndarray,
                kp: ctypes._Pointer[ctypes.c_int32] = kp) -> float:
            buf, tangent = np.array(x, dtype=np.float64), np.array(dx, dtype=np.float64)
            return float(t(buf.ctypes.data_as(_D), tangent.ctypes.data_as(_D), kp))

        where = f"{case.test_id} at {config}, x={x_list}, k={k_list}"
        if case.expected is not None:
            xs = x0.astype(np.float32).astype(np.float64) if case.low_precision else x0
            assert_close(f(x0), case.expected(list(xs), k_list),
                         rtol=1e-5 if case.low_precision else 1e-9, atol=1e-9,
                         what=f"primal of {where}", expected_name="Python primal")
        try:
            check_forward(f, fwd, x0, **tol)
            check_reverse(f, rev, x0, **tol)
            check_forward_vs_reverse(fwd, rev, x0, rtol=1e-6 if case.low_precision else 1e-10)
        except GradientCheckError as exc:
            raise GradientCheckError(f"{where}:\n{exc}\n--- IR ---\n{case.ir()}") from None
