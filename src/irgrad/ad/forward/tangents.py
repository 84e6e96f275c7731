"""Tangent values of forward mode: one value (width 1, or an ``<N x T>`` vector for a
floating-point scalar at width N) or a list of N values (width N, other types); None is a
symbolic zero."""

from __future__ import annotations

from collections.abc import Sequence

from irgrad import ir
from irgrad.ad.rules.emit import fp_constant
from irgrad.ir.builder import IRBuilder

Tangent = ir.Value | list[ir.Value]


def tangent_type(ty: ir.Type, width: int) -> ir.Type:
    """The IR type of one tangent value of a primal of type ``ty`` (width 1: ``ty``)."""
    if width > 1 and ty.is_float:
        return ir.VectorType(width, ty)
    return ty


def zero_tangent(ty: ir.Type, width: int) -> Tangent:
    """An explicit zero tangent (for stores and returns of inactive values)."""
    if ty.is_float:
        return fp_constant(tangent_type(ty, width), 0.0)
    z = ir.null_value(ty)
    return z if width == 1 else [ir.null_value(ty) for _ in range(width)]


def pack_lanes(b: IRBuilder, lanes: Sequence[ir.Value], ty: ir.Type, width: int) -> Tangent:
    """The tangent made of ``width`` lane values (an ``<N x T>`` vector for a float)."""
    if width == 1:
        return lanes[0]
    if ty.is_float:
        vec: ir.Value = ir.PoisonValue(ir.VectorType(width, ty))
        for k, v in enumerate(lanes):
            vec = b.insert_element(vec, v, k)
        return vec
    return list(lanes)


__all__ = ["Tangent", "pack_lanes", "tangent_type", "zero_tangent"]
