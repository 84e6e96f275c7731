"""The operands of LLVM's masked memory intrinsics, and emitting them, for both modes.

``llvm.masked.load(ptr, mask, passthru)``, ``llvm.masked.store(value, ptr, mask)``,
``llvm.masked.gather(<N x ptr>, mask, passthru)``, ``llvm.masked.scatter(value,
<N x ptr>, mask)`` (LLVM 22 spells the alignment as an ``align`` attribute of the pointer
operand; older IR passes it as an ``i32`` operand before the mask, which is skipped).
"""

from __future__ import annotations

from dataclasses import dataclass

from irgrad import ir
from irgrad.ad.rules.emit import fp_constant, type_suffix
from irgrad.ir.builder import IRBuilder

MASKED_KINDS = ("load", "store", "gather", "scatter")


@dataclass
class MaskedAccess:
    """One masked memory intrinsic call, by role."""

    kind: str  # load | store | gather | scatter
    pointer: ir.Value  # ptr (load/store) or <N x ptr> (gather/scatter)
    mask: ir.Value
    value: ir.Value | None  # the stored vector (store/scatter)
    passthru: ir.Value | None  # load/gather
    pointer_attrs: list[str]

    @property
    def data_type(self) -> ir.VectorType:
        t = self.value.type if self.value is not None else self.passthru.type  # type: ignore[union-attr]
        assert isinstance(t, ir.VectorType)
        return t


def masked_kind(name: str | None) -> str | None:
    if name is None or not name.startswith("llvm.masked."):
        return None
    kind = name.split(".")[2]
    return kind if kind in MASKED_KINDS else None


def masked_access(call: ir.CallBase) -> MaskedAccess | None:
    fn = call.called_function
    kind = masked_kind(fn.name if fn is not None else None)
    if kind is None:
        return None
    args = list(call.args)
    attrs = [list(a) for a in call.arg_attrs] if call.arg_attrs else [[] for _ in args]
    keep = [k for k, a in enumerate(args)
            if not (isinstance(a, ir.ConstantInt) and a.type == ir.i32)]
    ops = [args[k] for k in keep]
    if kind in ("load", "gather"):
        return MaskedAccess(kind, ops[0], ops[1], None, ops[2], attrs[keep[0]])
    return MaskedAccess(kind, ops[1], ops[2], ops[0], None, attrs[keep[1]])


def _align_attrs(attrs: list[str]) -> list[str]:
    return [a for a in attrs if a.startswith("align")]


def emit_masked_load(b: IRBuilder, ptr: ir.Value, mask: ir.Value, passthru: ir.Value,
                     attrs: list[str], gather: bool = False) -> ir.Value:
    ty = passthru.type
    kind = "gather" if gather else "load"
    name = f"llvm.masked.{kind}.{type_suffix(ty)}.{type_suffix(ptr.type)}"
    fn = b.get_or_insert_function(name, ir.FunctionType(ty, [ptr.type, mask.type, ty]))
    return b.call(fn, [ptr, mask, passthru], arg_attrs=[_align_attrs(attrs), [], []])


def emit_masked_store(b: IRBuilder, value: ir.Value, ptr: ir.Value, mask: ir.Value,
                      attrs: list[str], scatter: bool = False) -> None:
    kind = "scatter" if scatter else "store"
    name = f"llvm.masked.{kind}.{type_suffix(value.type)}.{type_suffix(ptr.type)}"
    fn = b.get_or_insert_function(name, ir.FunctionType(ir.void, [value.type, ptr.type,
                                                                  mask.type]))
    b.call(fn, [value, ptr, mask], arg_attrs=[[], _align_attrs(attrs), []])


def lanewise_add_scatter(b: IRBuilder, ptrs: ir.Value, mask: ir.Value, d: ir.Value,
                         attrs: list[str]) -> None:
    """``*ptrs[k] += d[k]`` for every enabled lane, one lane at a time (two lanes may
    point at the same element: each contribution counts)."""
    ty = d.type
    assert isinstance(ty, ir.VectorType)
    one_ty = ir.VectorType(1, ty.element)
    mask1_ty = ir.VectorType(1, ir.i1)
    for k in range(ty.count):
        p = b.extract_element(ptrs, k)
        m = b.insert_element(ir.PoisonValue(mask1_ty), b.extract_element(mask, k), 0)
        old = emit_masked_load(b, p, m, fp_constant(one_ty, 0.0), attrs)
        add = b.insert_element(ir.PoisonValue(one_ty), b.extract_element(d, k), 0)
        emit_masked_store(b, b.fadd(old, add), p, m, attrs)


def lanewise_take_scatter(b: IRBuilder, ptrs: ir.Value, mask: ir.Value, ty: ir.VectorType,
                          attrs: list[str]) -> ir.Value:
    """Lane k: ``*ptrs[k]`` (then zeroed) for the enabled lanes, the highest lane first:
    of lanes that wrote the same element, the one whose value stayed takes its adjoint."""
    one_ty = ir.VectorType(1, ty.element)
    mask1_ty = ir.VectorType(1, ir.i1)
    zero1 = fp_constant(one_ty, 0.0)
    out: ir.Value = fp_constant(ty, 0.0)
    for k in range(ty.count - 1, -1, -1):
        p = b.extract_element(ptrs, k)
        m = b.insert_element(ir.PoisonValue(mask1_ty), b.extract_element(mask, k), 0)
        got = emit_masked_load(b, p, m, zero1, attrs)
        emit_masked_store(b, zero1, p, m, attrs)
        out = b.insert_element(out, b.extract_element(got, 0), k)
    return out


__all__ = [
    "MaskedAccess",
    "emit_masked_load",
    "emit_masked_store",
    "lanewise_add_scatter",
    "lanewise_take_scatter",
    "masked_access",
    "masked_kind",
]
