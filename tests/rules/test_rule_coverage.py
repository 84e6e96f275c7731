"""Every derivative rule checked numerically over its declared domain.

For each rule and several seeded random points:
* each partial against central finite differences of the rule's Python primal;
* forward mode (``rule.tangent()``) against a directional finite difference;
* the dot-product test <t, J^T c> = <J t, c>, with J^T c from ``rule.adjoint(i)``
  (reverse mode) and J t from finite differences.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable

import pytest

from irgrad.ad.rules import Rule, all_rules
from irgrad.ad.rules.expr import FUNCTIONS, OPERANDS, TANGENTS, Call

RULES = all_rules()
POINTS = 6
RTOL = 2e-6
ATOL = 2e-7


def _rng(rule: Rule) -> random.Random:
    return random.Random(zlib.crc32(("/".join(rule.names) + rule.kind).encode()))


def _sample(rule: Rule, rng: random.Random) -> list[float | None]:
    values: list[float | None] = []
    for kind, interval in zip(rule.operand_kinds, rule.domain, strict=True):
        if kind == "ptr":
            values.append(None)
            continue
        assert interval is not None, f"{rule.name}: operand without a domain"
        lo, hi = interval
        if kind == "int":
            values.append(float(rng.randint(math.ceil(lo), math.floor(hi))))
        else:
            values.append(rng.uniform(lo, hi))
    return values


def _env(rule: Rule, args: list[float | None]) -> dict[str, float]:
    assert rule.primal is not None
    env = {OPERANDS[i].name: v for i, v in enumerate(args) if v is not None}
    env["RESULT"] = float(rule.primal(*args))
    return env


def _step(x: float) -> float:
    return 1e-6 * max(1.0, abs(x))


def _central_difference(rule: Rule, args: list[float | None], i: int) -> float:
    """d primal / d operand i at ``args`` by central differences."""
    assert rule.primal is not None
    x = args[i]
    assert x is not None
    h = _step(x)
    plus, minus = list(args), list(args)
    plus[i], minus[i] = x + h, x - h
    return (float(rule.primal(*plus)) - float(rule.primal(*minus))) / (2 * h)


def _close(actual: float, expected: float) -> bool:
    return math.isclose(actual, expected, rel_tol=RTOL, abs_tol=ATOL)


def _directional(f: Callable[..., float], args: list[float | None], t: list[float]) -> float:
    scale = max([1.0] + [abs(a) for a in args if a is not None])
    h = 1e-6 * scale
    plus = [a + h * ti if a is not None else None for a, ti in zip(args, t, strict=True)]
    minus = [a - h * ti if a is not None else None for a, ti in zip(args, t, strict=True)]
    return (float(f(*plus)) - float(f(*minus))) / (2 * h)


def test_there_are_rules_of_every_kind() -> None:
    kinds = {r.kind for r in RULES}
    assert kinds == {"instruction", "intrinsic", "call"}
    assert len(RULES) >= 90


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.kind}:{r.name}")
def test_rule_is_complete(rule: Rule) -> None:
    assert rule.primal is not None, f"{rule.name} has no primal"
    assert len(rule.domain) == rule.arity == len(rule.partials)
    for kind, interval in zip(rule.operand_kinds, rule.domain, strict=True):
        if kind != "ptr":
            assert interval is not None and interval[0] < interval[1], rule.name
    for i in range(rule.arity):
        if i not in rule.active_operands:
            assert rule.adjoint(i).evaluate({}) == 0.0
    needed = {
        n.spec.emit.removeprefix("runtime:")
        for p in rule.partials
        for n in p.walk()
        if isinstance(n, Call) and n.spec.emit.startswith("runtime:")
    }
    assert needed <= set(rule.helpers), f"{rule.name} must declare helpers {needed}"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.kind}:{r.name}")
def test_partials_match_finite_differences(rule: Rule) -> None:
    assert rule.primal is not None
    rng = _rng(rule)
    for _ in range(POINTS):
        args = _sample(rule, rng)
        env = _env(rule, args)
        for i in rule.active_operands:
            fd = _central_difference(rule, args, i)
            got = rule.partials[i].evaluate(env)
            assert _close(got, fd), (
                f"{rule.name}: d/d{OPERANDS[i]} at {args} is {got}, finite differences {fd}"
            )


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.kind}:{r.name}")
def test_forward_and_dot_product(rule: Rule) -> None:
    assert rule.primal is not None
    rng = _rng(rule)
    rng.random()
    for _ in range(POINTS):
        args = _sample(rule, rng)
        env = _env(rule, args)
        t = [rng.uniform(-1, 1) if i in rule.active_operands else 0.0 for i in range(rule.arity)]
        c = rng.uniform(-2, 2)
        jt = _directional(rule.primal, args, t)
        # forward mode: the tangent expression with DX, DY, DZ = t
        fwd_env = dict(env, **{TANGENTS[i].name: t[i] for i in range(rule.arity)})
        assert _close(rule.tangent().evaluate(fwd_env), jt), f"{rule.name}: forward at {args}"
        # reverse mode: <t, J^T c> == <J t, c>
        rev_env = dict(env, DRET=c)
        jtc = [rule.adjoint(i).evaluate(rev_env) for i in range(rule.arity)]
        lhs = sum(ti * gi for ti, gi in zip(t, jtc, strict=True))
        assert math.isclose(lhs, jt * c, rel_tol=1e-5, abs_tol=1e-6), (
            f"{rule.name}: dot-product test at {args}: {lhs} vs {jt * c}"
        )


def test_function_nodes_are_documented() -> None:
    for spec in FUNCTIONS.values():
        assert spec.doc and spec.emit and spec.arity >= 1


WITH_CONSTANT_FORMS = [r for r in RULES if r.when_constant]


def test_some_rules_have_constant_operand_forms() -> None:
    assert any(r.name == "fdiv" for r in WITH_CONSTANT_FORMS)


@pytest.mark.parametrize("rule", WITH_CONSTANT_FORMS, ids=lambda r: f"{r.kind}:{r.name}")
def test_constant_operand_forms_match_finite_differences(rule: Rule) -> None:
    """A ``when_constant`` form is the same derivative as ``partials`` where operand k is a
    constant: its partials for every other operand match finite differences (with k held
    fixed at sampled values of either sign), in both modes."""
    assert rule.primal is not None
    rng = _rng(rule)
    for k, forms in rule.when_constant:
        constants = frozenset({k})
        assert rule.partials_given(constants) is forms
        for point in range(POINTS):
            args = _sample(rule, rng)
            sign = -1.0 if point % 2 else 1.0
            args[k] = sign * rng.uniform(1e-3, 1e3) ** rng.choice([-1, 1])
            env = _env(rule, args)
            for i in rule.active_operands:
                if i == k:
                    continue
                fd = _central_difference(rule, args, i)
                got = forms[i].evaluate(env)
                assert math.isclose(got, fd, rel_tol=RTOL, abs_tol=ATOL * max(1.0, abs(fd))), (
                    f"{rule.name} with operand {k} constant: d/d{OPERANDS[i]} at {args} is "
                    f"{got}, finite differences {fd}"
                )
                c = rng.uniform(-2, 2)
                rev = rule.adjoint(i, constants).evaluate(dict(env, DRET=c))
                assert math.isclose(rev, c * got, rel_tol=1e-12, abs_tol=1e-300), rule.name
