"""The descriptor helpers the derivatives of flang's runtime call (internal functions, made
once per module): element counts, element offsets in array element order, the
adjoint update ``y = [y +] alpha * x`` over two descriptors, the position of a maximum or
minimum, the prediction of an assignment's reallocation, and the release of a shadow
array (the layout: :mod:`irgrad.analysis.fortran_runtime`).

Elements are visited in array element order (the first subscript fastest), each
descriptor with its own extents and byte strides, as the runtime's ``Assign`` does: the
two sides of an update need the same element count, not the same shape, and a rank-0
side is the same element every time (a scalar). Contiguous descriptors take a
multiplication instead of the per-dimension division.

* ``i64 @__irgrad_fdesc_count(ptr d)``; ``i64 @__irgrad_fdesc_offset(ptr d, i64 k)``;
* ``void @__irgrad_fdesc_update(ptr y, ptr x, ptr mask, double alpha, i1 keep, ptr
  source, i32 line)``: for each element ``k`` (of ``y``; of ``x`` when ``y`` is a
  scalar; of the shorter when both are arrays) where the logical ``mask`` is true (no mask: all), ``y[k] = (keep ? y[k] : 0) +
  alpha * (x ? x[k] : 1)``, by ``y``'s type: ``real(4)``, ``real(8)`` and their complex
  (componentwise), a derived type component by component (:mod:`irgrad.ad.rules.
  fortran_typeinfo`); no floating-point data: nothing; another real kind: a run-time
  error at the Fortran line (``_FortranAReportFatalUserError``). A descriptor with a null
  base address is no shadow array (the shadow of a constant): ``y`` is left alone, ``x``
  counts as zeros;
* ``i64 @__irgrad_fdesc_extremum(ptr x, ptr mask, i1 is_max)``: the byte offset of the
  first largest (smallest) element where ``mask`` is true, -1 when there is none;
* ``i1 @__irgrad_fortran_reallocates(ptr to, ptr from)``: will ``_FortranAAssign(to,
  from)`` allocate ``to`` afresh (flang-rt's ``MustDeallocateLHS``, or ``to`` an
  unallocated allocatable)?
* ``void @__irgrad_fortran_release(ptr view)`` frees what a shadow descriptor owns (a
  derived type's allocatable components too, through the runtime) and clears its base;
  ``void @__irgrad_fortran_release_copy(ptr view)`` also frees the descriptor (a copy
  kept for the end of the reverse pass).
"""

from __future__ import annotations

from collections.abc import Callable

from irgrad import ir
from irgrad.analysis.fortran_runtime import (
    ADDENDUM_FLAG,
    ATTRIBUTE_ALLOCATABLE,
    ATTRIBUTE_OFFSET,
    DIM_BYTES,
    ELEM_LEN_OFFSET,
    EXTENT_OFFSET,
    EXTRA_OFFSET,
    HEADER_BYTES,
    RANK_OFFSET,
    SM_OFFSET,
    TYPE_COMPLEX_DOUBLE,
    TYPE_COMPLEX_FLOAT,
    TYPE_DOUBLE,
    TYPE_FLOAT,
    TYPE_OFFSET,
    TYPE_STRUCT,
)
from irgrad.ir.builder import IRBuilder

COUNT = "__irgrad_fdesc_count"
OFFSET = "__irgrad_fdesc_offset"
CONTIGUOUS = "__irgrad_fdesc_contiguous"
TRUE_AT = "__irgrad_fdesc_true_at"
UPDATE = "__irgrad_fdesc_update"
EXTREMUM = "__irgrad_fdesc_extremum"
DOT = "__irgrad_fdesc_dot"
REALLOCATES = "__irgrad_fortran_reallocates"
SLICE = "__irgrad_fdesc_slice"
RELEASE = "__irgrad_fortran_release"
RELEASE_COPY = "__irgrad_fortran_release_copy"
FATAL = "_FortranAReportFatalUserError"
DEALLOCATE_NO_FINAL = "_FortranAAllocatableDeallocateNoFinal"


def c64(v: int) -> ir.ConstantInt:
    return ir.ConstantInt(ir.i64, v)


def field(b: IRBuilder, desc: ir.Value, offset: int | ir.Value, ty: ir.Type) -> ir.Value:
    """The field of type ``ty`` at byte ``offset`` of a descriptor."""
    at = b.gep(ir.i8, desc, [c64(offset) if isinstance(offset, int) else offset])
    return b.load(ty, at)


def field_ptr(b: IRBuilder, desc: ir.Value, offset: int | ir.Value) -> ir.Value:
    return b.gep(ir.i8, desc, [c64(offset) if isinstance(offset, int) else offset])


def rank(b: IRBuilder, desc: ir.Value) -> ir.Value:
    return b.zext(field(b, desc, RANK_OFFSET, ir.i8), ir.i64)


def type_code(b: IRBuilder, desc: ir.Value) -> ir.Value:
    return field(b, desc, TYPE_OFFSET, ir.i8)


def elem_len(b: IRBuilder, desc: ir.Value) -> ir.Value:
    return field(b, desc, ELEM_LEN_OFFSET, ir.i64)


def dim_field(b: IRBuilder, desc: ir.Value, dim: ir.Value | int, offset: int) -> ir.Value:
    """``dim[dim].<field at offset>`` (``dim`` an ``i64``)."""
    d = dim if isinstance(dim, ir.Value) else c64(dim)
    at = b.add(b.mul(d, c64(DIM_BYTES)), c64(HEADER_BYTES + offset))
    return field(b, desc, at, ir.i64)


def _helper(module: ir.Module, name: str, ft: ir.FunctionType,
            names: list[str], inline: bool = True) -> ir.Function | None:
    """A fresh internal helper to fill in (None: the module has it already)."""
    fn = module.get_function(name)
    if fn is not None and not fn.is_declaration:
        return None
    fn = module.get_or_insert_function(name, ft)
    fn.linkage = "internal"
    fn.fn_attrs = ["alwaysinline", "nounwind"] if inline else ["nounwind"]
    for a, n in zip(fn.args, names, strict=True):
        a.name = n
    return fn


def _existing(module: ir.Module, name: str) -> ir.Function:
    fn = module.get_function(name)
    assert fn is not None
    return fn


def counted_loop(b: IRBuilder, n: ir.Value, body: Callable[[IRBuilder, ir.Value], None],
                 label: str) -> None:
    """``for k in 0..n: body(k)``; ``b`` ends positioned after the loop."""
    fn = b.function
    assert fn is not None
    pre = b.insert_block
    assert pre is not None
    head, work, done = (fn.append_basic_block(f"{label}.{s}") for s in ("head", "body", "done"))
    b.br(head)
    b.position_at_end(head)
    k = b.phi(ir.i64, [(c64(0), pre)], name=f"{label}.k")
    b.cond_br(b.icmp("ult", k, n), work, done)
    b.position_at_end(work)
    body(b, k)
    nxt = b.add(k, c64(1))
    latch = b.insert_block
    assert latch is not None
    k.add_incoming(nxt, latch)
    b.br(head)
    b.position_at_end(done)


def count_function(module: ir.Module) -> ir.Function:
    fn = _helper(module, COUNT, ir.FunctionType(ir.i64, [ir.ptr]), ["d"], inline=False)
    if fn is None:
        return _existing(module, COUNT)
    (d,) = fn.args
    b = IRBuilder(fn.append_basic_block("entry"))
    acc = b.alloca(ir.i64)
    b.store(c64(1), acc)
    counted_loop(b, rank(b, d), lambda bb, j: bb.store(
        bb.mul(bb.load(ir.i64, acc), dim_field(bb, d, j, EXTENT_OFFSET)), acc), "dims")
    b.ret(b.load(ir.i64, acc))
    return fn


def offset_function(module: ir.Module) -> ir.Function:
    fn = _helper(module, OFFSET, ir.FunctionType(ir.i64, [ir.ptr, ir.i64]), ["d", "k"],
                 inline=False)
    if fn is None:
        return _existing(module, OFFSET)
    d, k = fn.args
    b = IRBuilder(fn.append_basic_block("entry"))
    rest, off = b.alloca(ir.i64), b.alloca(ir.i64)
    b.store(k, rest)
    b.store(c64(0), off)

    def dim(bb: IRBuilder, j: ir.Value) -> None:
        ext = dim_field(bb, d, j, EXTENT_OFFSET)
        r = bb.load(ir.i64, rest)
        bb.store(bb.udiv(r, ext), rest)
        step = bb.mul(bb.urem(r, ext), dim_field(bb, d, j, SM_OFFSET))
        bb.store(bb.add(bb.load(ir.i64, off), step), off)
    counted_loop(b, rank(b, d), dim, "dims")
    b.ret(b.load(ir.i64, off))
    return fn


def contiguous_function(module: ir.Module) -> ir.Function:
    """``i1 (ptr d)``: the elements lie in element order, ``elem_len`` apart."""
    fn = _helper(module, CONTIGUOUS, ir.FunctionType(ir.i1, [ir.ptr]), ["d"], inline=False)
    if fn is None:
        return _existing(module, CONTIGUOUS)
    (d,) = fn.args
    b = IRBuilder(fn.append_basic_block("entry"))
    expect, ok = b.alloca(ir.i64), b.alloca(ir.i1)
    b.store(elem_len(b, d), expect)
    b.store(ir.ConstantInt(ir.i1, 1), ok)

    def dim(bb: IRBuilder, j: ir.Value) -> None:
        ext = dim_field(bb, d, j, EXTENT_OFFSET)
        want = bb.load(ir.i64, expect)
        same = bb.or_(bb.icmp("eq", dim_field(bb, d, j, SM_OFFSET), want),
                      bb.icmp("ule", ext, c64(1)))
        bb.store(bb.and_(bb.load(ir.i1, ok), same), ok)
        bb.store(bb.mul(want, ext), expect)
    counted_loop(b, rank(b, d), dim, "dims")
    b.ret(b.load(ir.i1, ok))
    return fn


def true_at_function(module: ir.Module) -> ir.Function:
    """``i1 (ptr mask, i64 k)``: the k-th element of a logical array is true."""
    fn = _helper(module, TRUE_AT, ir.FunctionType(ir.i1, [ir.ptr, ir.i64]), ["mask", "k"],
                 inline=False)
    if fn is None:
        return _existing(module, TRUE_AT)
    mask, k = fn.args
    entry = fn.append_basic_block("entry")
    b = IRBuilder(entry)
    at = b.gep(ir.i8, b.load(ir.ptr, mask), [b.call(offset_function(module), [mask, k])])
    width = elem_len(b, mask)
    cases = []
    for bits in (8, 16, 32, 64):
        bb = fn.append_basic_block(f"l{bits}")
        cases.append((bits // 8, bb))
    other = fn.append_basic_block("other")
    b.switch(width, other, [(ir.ConstantInt(ir.i64, n), bb) for n, bb in cases])
    for n, bb in cases:
        b.position_at_end(bb)
        t = ir.IntType(8 * n)
        b.ret(b.icmp("ne", b.load(t, at), ir.ConstantInt(t, 0)))
    b.position_at_end(other)
    b.ret(b.icmp("ne", b.load(ir.i8, at), ir.ConstantInt(ir.i8, 0)))
    return fn


def _masked(b: IRBuilder, module: ir.Module, has_mask: ir.Value, mask: ir.Value,
            k: ir.Value, on: ir.BasicBlock, off: ir.BasicBlock) -> None:
    """Branch to ``on`` when there is no mask or its k-th element is true, else ``off``."""
    fn = b.function
    assert fn is not None
    check = fn.append_basic_block("mask")
    b.cond_br(has_mask, check, on)
    b.position_at_end(check)
    b.cond_br(b.call(true_at_function(module), [mask, k]), on, off)


def fatal(b: IRBuilder, module: ir.Module, message: str, source: ir.Value,
          line: ir.Value) -> None:
    """A run-time error at the Fortran line (``source``, ``line``: what the runtime call
    was given), then ``unreachable``."""
    text = (message + "\0").encode()
    ty = ir.ArrayType(len(text), ir.i8)
    g = ir.GlobalVariable(module.unique_name("__irgrad_fortran_msg"), ty,
                          ir.ConstantDataString(ty, text), True, "private")
    g.unnamed_addr = "unnamed_addr"
    module.add_global(g)
    report = module.get_or_insert_function(FATAL, ir.FunctionType(ir.void, [ir.ptr, ir.ptr,
                                                                           ir.i32]))
    b.call(report, [g, source, line])
    b.unreachable()


_ELEMENT_KINDS = ((TYPE_FLOAT, ir.float_, 1), (TYPE_DOUBLE, ir.double, 1),
                  (TYPE_COMPLEX_FLOAT, ir.float_, 2), (TYPE_COMPLEX_DOUBLE, ir.double, 2))


class _Walker:
    """Offsets of element ``k`` of a descriptor inside a helper: a multiplication when the
    descriptor is contiguous (checked once), the division otherwise; 0 for a scalar."""

    def __init__(self, b: IRBuilder, module: ir.Module, d: ir.Value) -> None:
        self.d = d
        self.module = module
        self.scalar = b.icmp("eq", rank(b, d), c64(0))
        self.contiguous = b.call(contiguous_function(module), [d])
        self.size = elem_len(b, d)
        self.base = b.load(ir.ptr, d)

    def offset(self, b: IRBuilder, k: ir.Value) -> ir.Value:
        fn = b.function
        assert fn is not None
        fast, slow, join = (fn.append_basic_block(s) for s in ("linear", "strided", "at"))
        b.cond_br(self.contiguous, fast, slow)
        b.position_at_end(fast)
        linear = b.mul(k, self.size)
        b.br(join)
        b.position_at_end(slow)
        strided = b.call(offset_function(self.module), [self.d, k])
        b.br(join)
        b.position_at_end(join)
        off = b.phi(ir.i64, [(linear, fast), (strided, slow)])
        return b.select(self.scalar, c64(0), off)

    def at(self, b: IRBuilder, k: ir.Value) -> ir.Value:
        return b.gep(ir.i8, self.base, [self.offset(b, k)])


def extremum_function(module: ir.Module) -> ir.Function:
    ft = ir.FunctionType(ir.i64, [ir.ptr, ir.ptr, ir.i1])
    fn = _helper(module, EXTREMUM, ft, ["x", "mask", "is_max"], inline=False)
    if fn is None:
        return _existing(module, EXTREMUM)
    x, mask, is_max = fn.args
    null = ir.ConstantPointerNull(ir.ptr)
    b = IRBuilder(fn.append_basic_block("entry"))
    has_mask = b.icmp("ne", mask, null)
    n = b.call(count_function(module), [x])
    wx = _Walker(b, module, x)
    best = b.alloca(ir.i64)
    b.store(c64(-1), best)
    done = fn.append_basic_block("done")
    is_float = b.icmp("eq", type_code(b, x), ir.ConstantInt(ir.i8, TYPE_FLOAT))
    fbb, dbb = fn.append_basic_block("float"), fn.append_basic_block("double")
    b.cond_br(is_float, fbb, dbb)
    for el, bb in ((ir.float_, fbb), (ir.double, dbb)):
        b.position_at_end(bb)

        def element(bb2: IRBuilder, k: ir.Value, el: ir.Type = el) -> None:
            f = bb2.function
            assert f is not None
            on, take, off = (f.append_basic_block(s) for s in ("on", "take", "next"))
            _masked(bb2, module, has_mask, mask, k, on, off)
            bb2.position_at_end(on)
            at = wx.offset(bb2, k)
            cur = bb2.load(ir.i64, best)
            first = bb2.icmp("slt", cur, c64(0))
            v = bb2.load(el, bb2.gep(ir.i8, wx.base, [at]))
            bv = bb2.load(el, bb2.gep(ir.i8, wx.base, [bb2.select(first, c64(0), cur)]))
            better = bb2.select(is_max, bb2.fcmp("ogt", v, bv), bb2.fcmp("olt", v, bv))
            bb2.cond_br(bb2.or_(first, better), take, off)
            bb2.position_at_end(take)
            bb2.store(at, best)
            bb2.br(off)
            bb2.position_at_end(off)
        counted_loop(b, n, element, "e")
        b.br(done)
    b.position_at_end(done)
    b.ret(b.load(ir.i64, best))
    return fn


def dot_function(module: ir.Module) -> ir.Function:
    """``double (ptr x, ptr y)``: the sum of the products of the elements of two real
    arrays of any rank, in array element order (a null base: zeros)."""
    fn = _helper(module, DOT, ir.FunctionType(ir.double, [ir.ptr, ir.ptr]), ["x", "y"],
                 inline=False)
    if fn is None:
        return _existing(module, DOT)
    x, y = fn.args
    null = ir.ConstantPointerNull(ir.ptr)
    entry, start, done = (fn.append_basic_block(s) for s in ("entry", "start", "done"))
    b = IRBuilder(entry)
    acc = b.alloca(ir.double)
    b.store(ir.ConstantFP(ir.double, 0.0), acc)
    empty = b.or_(b.icmp("eq", b.load(ir.ptr, x), null), b.icmp("eq", b.load(ir.ptr, y), null))
    b.cond_br(empty, done, start)
    b.position_at_end(start)
    n = b.call(count_function(module), [x])
    wx, wy = _Walker(b, module, x), _Walker(b, module, y)
    is_float = b.icmp("eq", type_code(b, x), ir.ConstantInt(ir.i8, TYPE_FLOAT))
    fbb, dbb = fn.append_basic_block("float"), fn.append_basic_block("double")
    b.cond_br(is_float, fbb, dbb)
    for el, bb in ((ir.float_, fbb), (ir.double, dbb)):
        b.position_at_end(bb)

        def element(bb2: IRBuilder, k: ir.Value, el: ir.Type = el) -> None:
            xv, yv = bb2.load(el, wx.at(bb2, k)), bb2.load(el, wy.at(bb2, k))
            p = bb2.fmul(xv, yv)
            bb2.store(bb2.fadd(bb2.load(ir.double, acc),
                               p if el == ir.double else bb2.fpext(p, ir.double)), acc)
        counted_loop(b, n, element, "e")
        b.br(done)
    b.position_at_end(done)
    b.ret(b.load(ir.double, acc))
    return fn


def reallocates_function(module: ir.Module) -> ir.Function:
    ft = ir.FunctionType(ir.i1, [ir.ptr, ir.ptr])
    fn = _helper(module, REALLOCATES, ft, ["to", "from"], inline=False)
    if fn is None:
        return _existing(module, REALLOCATES)
    to, frm = fn.args
    entry = fn.append_basic_block("entry")
    alloc_bb, shape_bb, yes, no = (fn.append_basic_block(s) for s in
                                   ("allocatable", "shape", "yes", "no"))
    b = IRBuilder(entry)
    attr = field(b, to, ATTRIBUTE_OFFSET, ir.i8)
    b.cond_br(b.icmp("eq", attr, ir.ConstantInt(ir.i8, ATTRIBUTE_ALLOCATABLE)), alloc_bb, no)
    b.position_at_end(alloc_bb)
    unallocated = b.icmp("eq", b.load(ir.ptr, to), ir.ConstantPointerNull(ir.ptr))
    other_type = b.icmp("ne", type_code(b, to), type_code(b, frm))
    b.cond_br(b.or_(unallocated, other_type), yes, shape_bb)
    b.position_at_end(shape_bb)
    differs = b.alloca(ir.i1)
    b.store(ir.ConstantInt(ir.i1, 0), differs)
    n = b.select(b.icmp("eq", rank(b, frm), c64(0)), c64(0), rank(b, to))
    counted_loop(b, n, lambda bb, j: bb.store(bb.or_(bb.load(ir.i1, differs), bb.icmp(
        "ne", dim_field(bb, to, j, EXTENT_OFFSET), dim_field(bb, frm, j, EXTENT_OFFSET))),
        differs), "dims")
    b.cond_br(b.load(ir.i1, differs), yes, no)
    b.position_at_end(yes)
    b.ret(ir.ConstantInt(ir.i1, 1))
    b.position_at_end(no)
    b.ret(ir.ConstantInt(ir.i1, 0))
    return fn


def slice_function(module: ir.Module) -> ir.Function:
    """``void (ptr dst, ptr src, i64 dim, i64 index)``: ``dst`` = the section of ``src``
    at (zero-based) ``index`` along (zero-based) dimension ``dim``: one rank less."""
    ft = ir.FunctionType(ir.void, [ir.ptr, ir.ptr, ir.i64, ir.i64])
    fn = _helper(module, SLICE, ft, ["dst", "src", "dim", "index"], inline=False)
    if fn is None:
        return _existing(module, SLICE)
    dst, src, dim, index = fn.args
    b = IRBuilder(fn.append_basic_block("entry"))
    r = rank(b, src)
    b.memcpy(dst, src, c64(HEADER_BYTES))
    b.store(b.trunc(b.sub(r, c64(1)), ir.i8), field_ptr(b, dst, RANK_OFFSET))
    step = b.mul(index, dim_field(b, src, dim, SM_OFFSET))
    b.store(b.gep(ir.i8, b.load(ir.ptr, src), [step]), dst)

    def copy(bb: IRBuilder, j: ir.Value) -> None:  # every dimension but ``dim``
        kept, skip = fn.append_basic_block("kept"), fn.append_basic_block("skip")
        bb.cond_br(bb.icmp("ne", j, dim), kept, skip)
        bb.position_at_end(kept)
        k = bb.select(bb.icmp("ult", j, dim), j, bb.sub(j, c64(1)))
        at = bb.add(bb.mul(k, c64(DIM_BYTES)), c64(HEADER_BYTES))
        for off in (0, EXTENT_OFFSET, SM_OFFSET):
            bb.store(dim_field(bb, src, j, off), field_ptr(bb, dst, bb.add(at, c64(off))))
        bb.br(skip)
        bb.position_at_end(skip)
    counted_loop(b, r, copy, "dims")
    b.ret_void()
    return fn


def release_function(module: ir.Module) -> ir.Function:
    fn = _helper(module, RELEASE, ir.FunctionType(ir.void, [ir.ptr]), ["view"], inline=False)
    if fn is None:
        return _existing(module, RELEASE)
    (view,) = fn.args
    entry = fn.append_basic_block("entry")
    owned, derived, plain, done = (fn.append_basic_block(s) for s in
                                   ("owned", "derived", "plain", "done"))
    b = IRBuilder(entry)
    base = b.load(ir.ptr, view)
    b.cond_br(b.icmp("ne", base, ir.ConstantPointerNull(ir.ptr)), owned, done)
    b.position_at_end(owned)
    extra = field(b, view, EXTRA_OFFSET, ir.i8)
    has_type = b.icmp("ne", b.and_(extra, ir.ConstantInt(ir.i8, ADDENDUM_FLAG)),
                      ir.ConstantInt(ir.i8, 0))
    b.cond_br(b.or_(has_type, b.icmp("eq", type_code(b, view),
                                     ir.ConstantInt(ir.i8, TYPE_STRUCT))), derived, plain)
    b.position_at_end(derived)  # its allocatable components go too (no finalization)
    b.store(ir.ConstantInt(ir.i8, ATTRIBUTE_ALLOCATABLE), field_ptr(b, view, ATTRIBUTE_OFFSET))
    dealloc = module.get_or_insert_function(
        DEALLOCATE_NO_FINAL, ir.FunctionType(ir.void, [ir.ptr, ir.ptr, ir.i32]))
    b.call(dealloc, [view, ir.ConstantPointerNull(ir.ptr), ir.ConstantInt(ir.i32, 0)])
    b.br(done)
    b.position_at_end(plain)
    free = module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
    b.call(free, [base])
    b.store(ir.ConstantPointerNull(ir.ptr), view)
    b.br(done)
    b.position_at_end(done)
    b.ret_void()
    return fn


def release_copy_function(module: ir.Module) -> ir.Function:
    fn = _helper(module, RELEASE_COPY, ir.FunctionType(ir.void, [ir.ptr]), ["view"],
                 inline=False)
    if fn is None:
        return _existing(module, RELEASE_COPY)
    (view,) = fn.args
    b = IRBuilder(fn.append_basic_block("entry"))
    b.call(release_function(module), [view])
    free = module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
    b.call(free, [view])
    b.ret_void()
    return fn


__all__ = [
    "c64",
    "count_function",
    "counted_loop",
    "dim_field",
    "dot_function",
    "elem_len",
    "extremum_function",
    "fatal",
    "field",
    "field_ptr",
    "rank",
    "reallocates_function",
    "release_copy_function",
    "release_function",
    "slice_function",
    "type_code",
]
