"""Adjoint values: zeros of any type, the start value of an adjoint, and accumulation."""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.emit import fp_constant
from irgrad.analysis.activity import has_float
from irgrad.ir.builder import IRBuilder, constant_of


def zero_of(t: ir.Type) -> ir.Value:
    if isinstance(t, ir.FloatType | ir.VectorType):
        return fp_constant(t, 0.0) if has_float(t) else constant_of(t, 0)
    return ir.ConstantAggregateZero(t)


def adjoint_zero(t: ir.Type) -> ir.Value:
    """The start (and reset) value of an adjoint: -0.0, the additive identity of IEEE
    addition (``-0.0 + x == x`` for every x, -0.0 included, so LLVM folds the first
    accumulation away; +0.0 would turn a -0.0 derivative into +0.0 and block the fold)."""
    if isinstance(t, ir.FloatType) or (isinstance(t, ir.VectorType) and has_float(t)):
        return fp_constant(t, -0.0)
    return zero_of(t)


def add_values(b: IRBuilder, a: ir.Value, c: ir.Value, *, nsz: bool = False) -> ir.Value:
    """``a + c`` for floats, float vectors and aggregates of them.

    Adjoint accumulation is a sum of contributions in no prescribed order, so the adds are
    ``reassoc``: an adjoint summed over a loop (``dx[j] += l[i] * dy[i]``) becomes a
    reduction LLVM may vectorize.

    ``nsz`` is for adds into shadow memory (:func:`shadow_add`). Adds into adjoints held
    in registers go without it: they start from -0.0, and where one starts from a +0.0
    read from a caller's shadow the kept add is a single instruction, not a store in a
    loop, while ``nsz`` on them made LLVM's SLP vectorizer choose worse (see
    :func:`shadow_add`)."""
    t = a.type
    if isinstance(t, ir.FloatType) or (isinstance(t, ir.VectorType) and has_float(t)):
        return b.fadd(a, c, flags=("reassoc", "nsz") if nsz else ("reassoc",))
    if isinstance(t, ir.ArrayType) or t.is_struct:
        elems = t.elements if t.is_struct else [t.element] * t.count  # type: ignore[attr-defined]
        out = a
        for k, et in enumerate(elems):
            if not has_float(et):
                continue
            x = b.extract_value(a, [k])
            y = b.extract_value(c, [k])
            out = b.insert_value(out, add_values(b, x, y, nsz=nsz), [k])
        return out
    return a


def shadow_add(b: IRBuilder, old: ir.Value, d: ir.Value) -> ir.Value:
    """``old + d`` for an adjoint added into shadow memory (``*shadow(p) += d``), ``nsz``.

    The sign of a zero derivative means nothing, and the shadows a caller passes are reset
    to +0.0 (what the caller reads where nothing was accumulated), which is not the
    identity of IEEE addition. Without ``nsz`` the reverse of an update in place of the
    caller's data, ``b[i].vx -= e``, is "reset ``dvx`` to +0.0, add the old value's adjoint
    back": ``dvx = +0.0 + dvx``, which LLVM must keep (it turns -0.0 into +0.0), a load and
    a store of the same shadow in every iteration of the reverse loop, each waiting on the
    previous store. With ``nsz`` the add folds and the store of the reloaded value goes.
    (Adds into register adjoints stay without it: ``nsz`` on them changed nothing that
    mattered but LLVM's SLP vectorizer's choices, for the worse on an n-body gradient.)"""
    return add_values(b, old, d, nsz=True)


__all__ = ["add_values", "adjoint_zero", "shadow_add", "zero_of"]
