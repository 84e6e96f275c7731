"""Vector intrinsics as data: reductions and fixed lane maps (horizontal adds).

The elementwise rules (``llvm.sin.v4f64``) apply lane by lane; these do not:

* :data:`REDUCTIONS`: ``llvm.vector.reduce.{fadd,fmul,fmax,fmin,fmaximum,fminimum}``
  (ordered or ``reassoc``: the same derivative). A record says whether a start value
  comes first and how the result depends on the lanes: a *sum* (every lane's partial is
  1), a *product* (lane i's partial is the product of the start and the other lanes), an
  *extremum* (the first lane equal to the result gets 1, the others 0, so forward and
  reverse mode agree at ties).
* :data:`LANE_MAPS`: target intrinsics that add or subtract fixed lanes of their operands
  (SSE3/AVX ``hadd``/``hsub``, which Eigen's reductions use with ``-march=native``):
  result lane ``k`` is ``sum(coef * operand[j][lane])`` over its terms; linear, so the
  reverse pass applies the transpose.

:func:`reduction_partials` and :func:`lane_map_terms` give the engine what it emits;
``tests/rules/test_vector_rules.py`` checks every record against finite differences.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from irgrad import ir
from irgrad.ad.rules.emit import fp_constant, splat
from irgrad.ir.builder import IRBuilder

Combine = Literal["sum", "product", "extremum"]


def _max_num(v: Sequence[float]) -> float:
    vals = [x for x in v if not math.isnan(x)]
    return max(vals) if vals else math.nan


def _min_num(v: Sequence[float]) -> float:
    vals = [x for x in v if not math.isnan(x)]
    return min(vals) if vals else math.nan


def _max_nan(v: Sequence[float]) -> float:
    return math.nan if any(math.isnan(x) for x in v) else max(v)


def _min_nan(v: Sequence[float]) -> float:
    return math.nan if any(math.isnan(x) for x in v) else min(v)


@dataclass(frozen=True)
class Reduction:
    """A horizontal reduction of a vector to a scalar."""

    name: str
    has_start: bool
    combine: Combine
    primal: Callable[[float, Sequence[float]], float]


REDUCTIONS: dict[str, Reduction] = {
    r.name: r
    for r in (
        Reduction("llvm.vector.reduce.fadd", True, "sum", lambda s, v: s + math.fsum(v)),
        Reduction("llvm.vector.reduce.fmul", True, "product", lambda s, v: s * math.prod(v)),
        Reduction("llvm.vector.reduce.fmax", False, "extremum", lambda _, v: _max_num(v)),
        Reduction("llvm.vector.reduce.fmin", False, "extremum", lambda _, v: _min_num(v)),
        Reduction("llvm.vector.reduce.fmaximum", False, "extremum", lambda _, v: _max_nan(v)),
        Reduction("llvm.vector.reduce.fminimum", False, "extremum", lambda _, v: _min_nan(v)),
    )
}


def reduction(name: str | None) -> Reduction | None:
    """The reduction record of an intrinsic (``llvm.vector.reduce.fadd.v4f64``)."""
    if name is None or not name.startswith("llvm.vector.reduce.f"):
        return None
    return REDUCTIONS.get(".".join(name.split(".")[:4]))


def _exclusive_products(b: IRBuilder, vec: ir.Value) -> ir.Value:
    """Lane i: the product of every other lane (prefix times suffix products)."""
    ty = vec.type
    assert isinstance(ty, ir.VectorType)
    n = ty.count
    lanes = [b.extract_element(vec, k) for k in range(n)]
    one = fp_constant(ty.element, 1.0)
    prefix: list[ir.Value] = [one]
    for k in range(n - 1):
        prefix.append(b.fmul(prefix[-1], lanes[k]))
    suffix: list[ir.Value] = [one] * n
    for k in range(n - 2, -1, -1):
        suffix[k] = b.fmul(suffix[k + 1], lanes[k + 1])
    out: ir.Value = ir.PoisonValue(ty)
    for k in range(n):
        out = b.insert_element(out, b.fmul(prefix[k], suffix[k]), k)
    return out


def _first_equal(b: IRBuilder, vec: ir.Value, value: ir.Value) -> ir.Value:
    """1.0 in the first lane equal to ``value``, 0.0 elsewhere."""
    ty = vec.type
    assert isinstance(ty, ir.VectorType)
    n = ty.count
    eq = b.fcmp("oeq", vec, splat(b, value, ty))
    found: ir.Value = ir.ConstantInt(ir.i1, 0)
    out: ir.Value = fp_constant(ty, 0.0)
    one, zero = fp_constant(ty.element, 1.0), fp_constant(ty.element, 0.0)
    for k in range(n):
        hit = b.extract_element(eq, k)
        take = b.and_(hit, b.xor(found, ir.ConstantInt(ir.i1, 1)))
        out = b.insert_element(out, b.select(take, one, zero), k)
        found = b.or_(found, hit)
    return out


def reduction_partials(b: IRBuilder, red: Reduction, args: Sequence[ir.Value],
                       result: ir.Value) -> tuple[ir.Value | None, ir.Value]:
    """(d result / d start, d result / d vector lanes) at the call's operands."""
    vec = args[1] if red.has_start else args[0]
    vty = vec.type
    assert isinstance(vty, ir.VectorType)
    elem = vty.element
    if red.combine == "sum":
        return (fp_constant(elem, 1.0) if red.has_start else None), fp_constant(vty, 1.0)
    if red.combine == "product":
        start = args[0]
        others = _exclusive_products(b, vec)
        prod = b.fmul(b.extract_element(others, 0), b.extract_element(vec, 0))
        return prod, b.fmul(splat(b, start, vty), others)
    return None, _first_equal(b, vec, result)


# -- fixed lane maps ---------------------------------------------------------------------

Term = tuple[int, int, float]  # (operand, lane, coefficient)


def _hadd(lanes_per_half: int, halves: int, sign: float) -> tuple[tuple[Term, ...], ...]:
    """x86 horizontal add/sub: within each 128-bit half, the pairs of the first operand,
    then the pairs of the second."""
    out: list[tuple[Term, ...]] = []
    for h in range(halves):
        base = h * lanes_per_half
        for op in (0, 1):
            for p in range(lanes_per_half // 2):
                j = base + 2 * p
                out.append(((op, j, 1.0), (op, j + 1, sign)))
    return tuple(out)


LANE_MAPS: dict[str, tuple[tuple[Term, ...], ...]] = {
    "llvm.x86.sse3.hadd.pd": _hadd(2, 1, 1.0),
    "llvm.x86.sse3.hsub.pd": _hadd(2, 1, -1.0),
    "llvm.x86.sse3.hadd.ps": _hadd(4, 1, 1.0),
    "llvm.x86.sse3.hsub.ps": _hadd(4, 1, -1.0),
    "llvm.x86.avx.hadd.pd.256": _hadd(2, 2, 1.0),
    "llvm.x86.avx.hsub.pd.256": _hadd(2, 2, -1.0),
    "llvm.x86.avx.hadd.ps.256": _hadd(4, 2, 1.0),
    "llvm.x86.avx.hsub.ps.256": _hadd(4, 2, -1.0),
}


def lane_map_terms(name: str | None) -> tuple[tuple[Term, ...], ...] | None:
    return LANE_MAPS.get(name) if name is not None else None


def apply_lane_map(b: IRBuilder, terms: tuple[tuple[Term, ...], ...],
                   operands: Sequence[ir.Value | None], ty: ir.Type) -> ir.Value:
    """The lane map applied to ``operands`` (None: zero), a value of type ``ty``."""
    out: ir.Value = fp_constant(ty, 0.0)
    for k, lane_terms in enumerate(terms):
        acc: ir.Value | None = None
        for op, lane, coef in lane_terms:
            v = operands[op]
            if v is None:
                continue
            x = b.extract_element(v, lane)
            x = x if coef == 1.0 else b.fmul(x, fp_constant(x.type, coef))
            acc = x if acc is None else b.fadd(acc, x)
        if acc is not None:
            out = b.insert_element(out, acc, k)
    return out


def transpose_lane_map(b: IRBuilder, terms: tuple[tuple[Term, ...], ...], d: ir.Value,
                       operand: int, ty: ir.Type) -> ir.Value | None:
    """The adjoint of operand ``operand`` given the result's adjoint ``d``."""
    per_lane: dict[int, ir.Value] = {}
    for k, lane_terms in enumerate(terms):
        for op, lane, coef in lane_terms:
            if op != operand:
                continue
            x = b.extract_element(d, k)
            x = x if coef == 1.0 else b.fmul(x, fp_constant(x.type, coef))
            per_lane[lane] = x if lane not in per_lane else b.fadd(per_lane[lane], x)
    if not per_lane:
        return None
    out: ir.Value = fp_constant(ty, 0.0)
    for lane, v in sorted(per_lane.items()):
        out = b.insert_element(out, v, lane)
    return out


__all__ = [
    "LANE_MAPS",
    "REDUCTIONS",
    "Reduction",
    "apply_lane_map",
    "lane_map_terms",
    "reduction",
    "reduction_partials",
    "transpose_lane_map",
]
