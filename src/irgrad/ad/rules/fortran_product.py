"""The derivative of flang's ``product`` of a real array (``_FortranAProductReal8``/
``Real4``, with or without ``mask=``): the partial derivative by element ``k`` is the
product of the other (unmasked) elements. A helper computes it from the product of the
nonzero elements and the number of zeros -- ``P / x_k`` when there is no zero, ``P`` at
the only zero, 0 elsewhere -- so a zero element gives the exact derivative, not a NaN.
Forward mode sums the partials times the tangents, reverse mode adds the partials times
the result's adjoint into the array's.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.fortran_emit import DescriptorEmitter
from irgrad.ad.rules.fortran_helpers import (
    _existing,
    _helper,
    _masked,
    _Walker,
    c64,
    count_function,
    counted_loop,
    type_code,
)
from irgrad.ad.rules.fortran_rule import (
    FortranOperands,
    FortranRule,
    Saves,
    def_fortran,
    shadow_of,
    views,
)
from irgrad.analysis.fortran_runtime import TYPE_FLOAT
from irgrad.ir.builder import IRBuilder

PARTIALS = "__irgrad_fdesc_product_partials"


def partials_function(module: ir.Module) -> ir.Function:
    """``double (ptr x, ptr dx, ptr mask, double dr, i1 reverse)``: forward (``reverse``
    false) the sum over the unmasked elements of ``dx[k] * (product of the others)``;
    reverse ``dx[k] += dr * (product of the others)``, returning 0. ``x`` and ``dx`` have
    the same number of elements, their own layouts; a null ``mask``: every element."""
    ft = ir.FunctionType(ir.double, [ir.ptr, ir.ptr, ir.ptr, ir.double, ir.i1])
    fn = _helper(module, PARTIALS, ft, ["x", "dx", "mask", "dr", "reverse"], inline=False)
    if fn is None:
        return _existing(module, PARTIALS)
    x, dx, mask, dr, reverse = fn.args
    b = IRBuilder(fn.append_basic_block("entry"))
    has_mask = b.icmp("ne", mask, ir.ConstantPointerNull(ir.ptr))
    n = b.call(count_function(module), [x])
    wx, wd = _Walker(b, module, x), _Walker(b, module, dx)
    nonzero, zeros, acc = b.alloca(ir.double), b.alloca(ir.i64), b.alloca(ir.double)
    b.store(ir.ConstantFP(ir.double, 1.0), nonzero)
    b.store(c64(0), zeros)
    b.store(ir.ConstantFP(ir.double, 0.0), acc)
    done = fn.append_basic_block("done")
    is_float = b.icmp("eq", type_code(b, x), ir.ConstantInt(ir.i8, TYPE_FLOAT))
    fbb, dbb = fn.append_basic_block("float"), fn.append_basic_block("double")
    b.cond_br(is_float, fbb, dbb)
    for el, bb in ((ir.float_, fbb), (ir.double, dbb)):
        b.position_at_end(bb)

        def value(bb2: IRBuilder, k: ir.Value, el: ir.Type = el) -> ir.Value:
            v = bb2.load(el, wx.at(bb2, k))
            return v if el == ir.double else bb2.fpext(v, ir.double)

        def count(bb2: IRBuilder, k: ir.Value) -> None:  # the nonzeros' product, the zeros
            f = bb2.function
            assert f is not None
            on, off = f.append_basic_block("on"), f.append_basic_block("next")
            _masked(bb2, module, has_mask, mask, k, on, off)
            bb2.position_at_end(on)
            v = value(bb2, k)
            zero = bb2.fcmp("oeq", v, ir.ConstantFP(ir.double, 0.0))
            p = bb2.load(ir.double, nonzero)
            bb2.store(bb2.select(zero, p, bb2.fmul(p, v)), nonzero)
            z = bb2.load(ir.i64, zeros)
            bb2.store(bb2.select(zero, bb2.add(z, c64(1)), z), zeros)
            bb2.br(off)
            bb2.position_at_end(off)

        def partial(bb2: IRBuilder, k: ir.Value, el: ir.Type = el) -> None:
            f = bb2.function
            assert f is not None
            on, fwd, rev, off = (f.append_basic_block(s) for s in ("on", "fwd", "rev", "next"))
            _masked(bb2, module, has_mask, mask, k, on, off)
            bb2.position_at_end(on)
            v = value(bb2, k)
            z, p = bb2.load(ir.i64, zeros), bb2.load(ir.double, nonzero)
            zero = bb2.fcmp("oeq", v, ir.ConstantFP(ir.double, 0.0))
            others = bb2.select(zero, bb2.select(bb2.icmp("eq", z, c64(1)), p,
                                                 ir.ConstantFP(ir.double, 0.0)),
                                bb2.select(bb2.icmp("eq", z, c64(0)), bb2.fdiv(p, v),
                                           ir.ConstantFP(ir.double, 0.0)))
            at = wd.at(bb2, k)
            bb2.cond_br(reverse, rev, fwd)
            bb2.position_at_end(fwd)
            t = bb2.load(el, at)
            t = t if el == ir.double else bb2.fpext(t, ir.double)
            bb2.store(bb2.fadd(bb2.load(ir.double, acc), bb2.fmul(others, t)), acc)
            bb2.br(off)
            bb2.position_at_end(rev)
            g = bb2.fmul(dr, others)
            old = bb2.load(el, at)
            bb2.store(bb2.fadd(old, g if el == ir.double else bb2.fptrunc(g, el)), at)
            bb2.br(off)
            bb2.position_at_end(off)
        counted_loop(b, n, count, "z")
        counted_loop(b, n, partial, "e")
        b.br(done)
    b.position_at_end(done)
    b.ret(b.load(ir.double, acc))
    return fn


def _mask(o: FortranOperands) -> ir.Value | None:
    m = o.v.get("mask")
    return None if isinstance(m, ir.ConstantPointerNull | None) else m


def _product_saves(o: FortranOperands) -> Saves:
    if not o.active("array"):
        return []
    return [*views(o, "array"), "copy:array", *(["copy:mask"] if _mask(o) else [])]


def _product_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("array"):
        return None
    b = e.b
    dx = e.tangent(o.v["array"], shadow_of(o, "array"))
    t = b.call(partials_function(e.module), [
        o.v["array"], dx, o.v["mask"], ir.ConstantFP(ir.double, 0.0), ir.ConstantInt(ir.i1, 0)])
    return t if e.el == ir.double else b.fptrunc(t, e.el)


def _product_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("array") or o.dret is None:
        return
    da = shadow_of(o, "array")
    b = e.b
    _, join = e.if_then(b.icmp("ne", e.base(da), ir.ConstantPointerNull(ir.ptr)), "product")
    mask = o.copies.get("mask", ir.ConstantPointerNull(ir.ptr))
    b.call(partials_function(e.module), [o.copies["array"], da, mask, e.to_double(o.dret),
                                         ir.ConstantInt(ir.i1, 1)])
    e.join(join)


def_fortran(FortranRule("product", _product_saves, _product_forward, _product_reverse,
                        slot_rank="array"))


__all__ = ["partials_function"]
