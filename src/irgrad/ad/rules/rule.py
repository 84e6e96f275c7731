"""Rule records and the registry the rule tables fill.

A :class:`Rule` describes one differentiable operation (an instruction opcode, an LLVM
intrinsic or a C library function) as data: its partial derivatives
``d result / d operand_i`` as :mod:`~irgrad.ad.rules.expr` expressions in ``X, Y, Z,
RESULT``. The engine derives both modes from the same partials, so no rule is written
twice:

* reverse mode: ``adjoint_i = DRET * partial_i`` (added into operand i's adjoint);
* forward mode: ``tangent = sum_i partial_i * d(operand_i)``.

A rule may also give cheaper partials for when one operand is a nonzero finite constant
(``when_constant``): ``c / y`` has ``d/dy = -RESULT / y = -RESULT * RESULT / c``, a
multiplication by the folded ``1 / c`` where the general form divides again.

Every rule also carries a Python ``primal`` and a sampling ``domain`` per operand, used by
``tests/rules/test_rule_coverage.py`` to check each partial against finite differences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from irgrad.ad.rules.expr import (
    DRET,
    OPERANDS,
    TANGENTS,
    ZERO,
    Expr,
    ExprLike,
    as_expr,
    is_zero,
    simplify,
)

RuleKind = Literal["instruction", "intrinsic", "call"]
OperandKind = Literal["float", "int", "ptr"]
ResultKind = Literal["float", "int", "struct"]
Interval = tuple[float, float]


@dataclass(frozen=True)
class Rule:
    """The derivative of one operation, as data.

    ``names``: every name this rule answers to (opcodes; intrinsic base names such as
    ``llvm.sin``; C names with their ``f``/``l`` variants).
    ``partials[i]``: d result / d operand i (``Const(0)`` for inactive operands).
    ``operand_kinds[i]``: ``float`` (differentiable), ``int`` or ``ptr`` (never active).
    ``active_operands``: indices of the operands that carry derivatives.
    ``result_kind``: ``float``; ``int`` (e.g. ``lround``: the derivative is zero and the
    result is never active); ``struct`` (e.g. ``llvm.frexp``: element ``result_index``
    is the differentiable one and ``RESULT`` means that element).
    ``domain[i]``: the sampling interval for the numerical test (``None`` for pointers);
    integer operands are sampled as integers in it.
    ``primal``: the operation in Python (takes every operand; pointers are passed None).
    ``helpers``: runtime helpers the emitter must provide (e.g. ``__irgrad_digamma``).
    ``when_constant``: ``(k, partials)`` pairs: the partials to use instead when operand
    ``k`` is a nonzero finite constant (checked numerically like ``partials``).
    """

    names: tuple[str, ...]
    kind: RuleKind
    partials: tuple[Expr, ...]
    operand_kinds: tuple[OperandKind, ...]
    domain: tuple[Interval | None, ...]
    primal: Callable[..., float] | None
    result_kind: ResultKind = "float"
    result_index: int | None = None
    notes: str = ""
    helpers: tuple[str, ...] = field(default=())
    when_constant: tuple[tuple[int, tuple[Expr, ...]], ...] = field(default=())

    @property
    def name(self) -> str:
        return self.names[0]

    @property
    def arity(self) -> int:
        return len(self.operand_kinds)

    @property
    def active_operands(self) -> tuple[int, ...]:
        return tuple(i for i, k in enumerate(self.operand_kinds) if k == "float")

    @property
    def is_zero_derivative(self) -> bool:
        """True when no operand influences the result differentiably (floor, lround...)."""
        return all(is_zero(self.partials[i]) for i in self.active_operands)

    @property
    def uses_result(self) -> bool:
        """True when a partial refers to RESULT (the primal result must be available)."""
        return any("RESULT" in p.symbols() for p in self.partials)

    def partial(self, i: int) -> Expr:
        return self.partials[i]

    def partials_given(self, constants: frozenset[int] = frozenset()) -> tuple[Expr, ...]:
        """The partials to emit when the operands in ``constants`` are nonzero finite
        constants: the first ``when_constant`` form that applies, else ``partials``."""
        for k, forms in self.when_constant:
            if k in constants:
                return forms
        return self.partials

    def adjoint(self, i: int, constants: frozenset[int] = frozenset()) -> Expr:
        """Reverse mode: what to add to operand i's adjoint (``DRET * partial_i``)."""
        if i not in self.active_operands:
            return ZERO
        return simplify(DRET * self.partials_given(constants)[i])

    def tangent(self) -> Expr:
        """Forward mode: ``sum_i partial_i * D<operand_i>`` (DX, DY, DZ)."""
        total: Expr = ZERO
        for i in self.active_operands:
            total = total + self.partials[i] * TANGENTS[i]
        return simplify(total)

    def __str__(self) -> str:
        parts = ", ".join(
            f"d/d{OPERANDS[i]} = {self.partials[i]}" for i in self.active_operands
        )
        return f"{self.kind} {'/'.join(self.names)}: {parts or 'zero derivative'}"


class RuleRegistry:
    """All rules by kind and name; a name registered twice is an error."""

    def __init__(self) -> None:
        self._by_kind: dict[RuleKind, dict[str, Rule]] = {
            "instruction": {},
            "intrinsic": {},
            "call": {},
        }
        self._rules: list[Rule] = []

    def add(self, rule: Rule) -> Rule:
        table = self._by_kind[rule.kind]
        for name in rule.names:
            if name in table:
                raise ValueError(f"{rule.kind} rule for {name!r} registered twice")
        for name in rule.names:
            table[name] = rule
        self._rules.append(rule)
        return rule

    def get(self, kind: RuleKind, name: str) -> Rule | None:
        return self._by_kind[kind].get(name)

    def all(self) -> list[Rule]:
        return list(self._rules)


REGISTRY = RuleRegistry()

# A trailing component of an intrinsic name that spells an overloaded type:
# f64, f32, f16, bf16, f80, f128, ppcf128, i32, v4f64, nxv2f64, p0, ...
_TYPE_SUFFIX = re.compile(r"^(?:nx)?(?:v\d+)?(?:f\d+|bf16|ppcf128|i\d+|p\d+)$")


def intrinsic_base_name(name: str) -> str:
    """``llvm.sin.v4f64`` -> ``llvm.sin``; ``llvm.powi.f64.i32`` -> ``llvm.powi``."""
    parts = name.split(".")
    while len(parts) > 2 and _TYPE_SUFFIX.match(parts[-1]):
        parts.pop()
    return ".".join(parts)


def lookup_call(name: str) -> Rule | None:
    """The rule for a C library call (``sin``, ``sinf``, ``sinl``...), or None."""
    return REGISTRY.get("call", name)


def lookup_intrinsic(name: str) -> Rule | None:
    """The rule for an intrinsic, matched by base name (type suffixes ignored)."""
    return REGISTRY.get("intrinsic", intrinsic_base_name(name))


def lookup_instruction(opcode: str) -> Rule | None:
    """The rule for an instruction opcode (``fadd``, ``fneg``, ``fpext``...), or None."""
    return REGISTRY.get("instruction", opcode)


def all_rules() -> list[Rule]:
    return REGISTRY.all()


def _make(
    kind: RuleKind,
    names: Sequence[str],
    partials: Sequence[ExprLike],
    domain: Sequence[Interval | None],
    primal: Callable[..., float] | None,
    operand_kinds: Sequence[OperandKind] | None,
    result_kind: ResultKind,
    result_index: int | None,
    notes: str,
    helpers: Sequence[str],
    when_constant: dict[int, Sequence[ExprLike]] | None = None,
) -> Rule:
    kinds: tuple[OperandKind, ...] = (
        tuple(operand_kinds) if operand_kinds is not None else ("float",) * len(partials)
    )
    if len(partials) != len(kinds) or len(domain) != len(kinds):
        raise ValueError(f"{names[0]}: partials, domain and operand kinds differ in length")
    exprs = _partials(names[0], kinds, partials)
    forms: list[tuple[int, tuple[Expr, ...]]] = []
    for k, alt in (when_constant or {}).items():
        if not 0 <= k < len(kinds) or kinds[k] != "float":
            raise ValueError(f"{names[0]}: when_constant names operand {k}, not a float one")
        if len(alt) != len(kinds):
            raise ValueError(f"{names[0]}: when_constant partials differ in length")
        forms.append((k, _partials(names[0], kinds, alt)))
    return REGISTRY.add(
        Rule(
            names=tuple(names),
            kind=kind,
            partials=exprs,
            operand_kinds=kinds,
            domain=tuple(domain),
            primal=primal,
            result_kind=result_kind,
            result_index=result_index,
            notes=notes,
            helpers=tuple(helpers),
            when_constant=tuple(forms),
        )
    )


def _partials(name: str, kinds: tuple[OperandKind, ...], partials: Sequence[ExprLike]
              ) -> tuple[Expr, ...]:
    exprs = tuple(simplify(as_expr(p)) for p in partials)
    for i, (k, p) in enumerate(zip(kinds, exprs, strict=True)):
        if k != "float" and not is_zero(p):
            raise ValueError(f"{name}: operand {i} is {k} but has a nonzero partial")
        allowed = {"X", "Y", "Z", "RESULT"}
        if not p.symbols() <= allowed:
            raise ValueError(f"{name}: partial {i} uses {sorted(p.symbols() - allowed)}")
    return exprs


def def_instruction(
    opcodes: Sequence[str],
    *,
    partials: Sequence[ExprLike],
    domain: Sequence[Interval | None],
    primal: Callable[..., float] | None,
    operand_kinds: Sequence[OperandKind] | None = None,
    result_kind: ResultKind = "float",
    notes: str = "",
    when_constant: dict[int, Sequence[ExprLike]] | None = None,
) -> Rule:
    return _make(
        "instruction", opcodes, partials, domain, primal, operand_kinds, result_kind, None,
        notes, (), when_constant,
    )


def def_intrinsic(
    names: Sequence[str],
    *,
    partials: Sequence[ExprLike],
    domain: Sequence[Interval | None],
    primal: Callable[..., float] | None,
    operand_kinds: Sequence[OperandKind] | None = None,
    result_kind: ResultKind = "float",
    result_index: int | None = None,
    notes: str = "",
    helpers: Sequence[str] = (),
) -> Rule:
    for n in names:
        if not n.startswith("llvm.") or intrinsic_base_name(n) != n:
            raise ValueError(f"intrinsic rule name {n!r} must be a base name like llvm.sin")
    return _make(
        "intrinsic", names, partials, domain, primal, operand_kinds, result_kind,
        result_index, notes, helpers,
    )


def def_call(
    names: Sequence[str],
    *,
    partials: Sequence[ExprLike],
    domain: Sequence[Interval | None],
    primal: Callable[..., float] | None,
    operand_kinds: Sequence[OperandKind] | None = None,
    result_kind: ResultKind = "float",
    notes: str = "",
    helpers: Sequence[str] = (),
) -> Rule:
    return _make(
        "call", names, partials, domain, primal, operand_kinds, result_kind, None, notes,
        helpers,
    )

