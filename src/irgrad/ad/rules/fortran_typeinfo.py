"""Derived-type objects component by component, from the type description flang's
runtime reads (``flang/Runtime/type-info.h``; the addendum of a derived-type descriptor
points to it): the adjoint update ``y = [y +] alpha * x`` of
:mod:`irgrad.ad.rules.fortran_helpers` for a derived type, and with it the zeroing of a
shadow object (a structure constructor's, a polymorphic ``allocate(..., source=)``'s, an
object ``_FortranAInitialize`` gave its default values).

flang-22's records (byte offsets)::

    DerivedType  88 sizeInBytes (i64)   232 component: a rank-1 descriptor of Components
                 430 noDestructionNeeded (i8: 0 when it has allocatable components)
    Component    24 genre  25 category  26 kind  27 rank  32 offset (i64)
                 56 derived: a scalar descriptor whose base is the component's DerivedType
                 160 bounds: a descriptor of rank x {lower, upper} Values ({i8, i64 at 8})

Genres: 1 data, 2 pointer, 3 allocatable, 4 automatic; categories: 2 real, 3 complex, 6
derived (flang-22 numbers ``Unsigned`` as 1). Data components of real and complex kinds 4
and 8 are updated element by element, derived ones recursively, allocatable and automatic
ones through their descriptors (the array update, which skips an unallocated one);
pointers are not owned and integers, logicals and characters carry nothing.

* ``void @__irgrad_fobject_update(ptr y, ptr x, ptr type, double alpha, i1 keep, ptr
  source, i32 line)``: one object ``y`` (``x`` null: ones, as in the array update).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.fortran_helpers import (
    _ELEMENT_KINDS,
    UPDATE,
    _existing,
    _helper,
    _masked,
    _Walker,
    c64,
    count_function,
    counted_loop,
    fatal,
    field,
    rank,
    type_code,
)
from irgrad.analysis.fortran_runtime import (
    ADDENDUM_FLAG,
    DIM_BYTES,
    EXTENT_OFFSET,
    EXTRA_OFFSET,
    HEADER_BYTES,
    RANK_OFFSET,
    SM_OFFSET,
    TYPE_STRUCT,
    UNSUPPORTED_REAL_TYPES,
)
from irgrad.ir.builder import IRBuilder

OBJECT_UPDATE = "__irgrad_fobject_update"
TYPE_SIZE_OFFSET = 88
TYPE_COMPONENTS_OFFSET = 232
TYPE_NO_DESTRUCTION_OFFSET = 430  # after specialBitSet (i32), hasParent, noInitialization
COMPONENT_GENRE, COMPONENT_CATEGORY, COMPONENT_KIND, COMPONENT_RANK = 24, 25, 26, 27
COMPONENT_OFFSET = 32
COMPONENT_DERIVED = 56
COMPONENT_BOUNDS = 160
VALUE_BYTES = 16  # {u8 genre, i64 value at 8}
GENRE_DATA, GENRE_ALLOCATABLE, GENRE_AUTOMATIC = 1, 3, 4
CATEGORY_REAL, CATEGORY_COMPLEX, CATEGORY_DERIVED = 2, 3, 6


def owns_components(b: IRBuilder, d: ir.Value) -> ir.Value:
    """Is ``d`` of a derived type with allocatable (or automatic) components, at any
    depth (its description's ``noDestructionNeeded`` is false)?"""
    dt = derived_type(b, d)
    null = ir.ConstantPointerNull(ir.ptr)
    safe = b.select(b.icmp("eq", dt, null), d, dt)  # (read only when there is a type)
    flag = field(b, safe, TYPE_NO_DESTRUCTION_OFFSET, ir.i8)
    return b.and_(b.icmp("ne", dt, null), b.icmp("eq", flag, ir.ConstantInt(ir.i8, 0)))


def derived_type(b: IRBuilder, d: ir.Value) -> ir.Value:
    """The type description descriptor ``d``'s addendum points to; null without one."""
    rank = b.zext(field(b, d, RANK_OFFSET, ir.i8), ir.i64)
    at = b.add(c64(HEADER_BYTES), b.mul(rank, c64(DIM_BYTES)))
    extra = field(b, d, EXTRA_OFFSET, ir.i8)
    has = b.icmp("ne", b.and_(extra, ir.ConstantInt(ir.i8, ADDENDUM_FLAG)),
                 ir.ConstantInt(ir.i8, 0))
    return b.select(has, field(b, d, at, ir.ptr), ir.ConstantPointerNull(ir.ptr))


def _elements(b: IRBuilder, component: ir.Value) -> ir.Value:
    """The elements of a data component: the product of its bounds' extents."""
    rank = b.zext(field(b, component, COMPONENT_RANK, ir.i8), ir.i64)
    values = field(b, component, COMPONENT_BOUNDS, ir.ptr)
    fn = b.function
    assert fn is not None
    eb = IRBuilder()
    eb.position_at_start(fn.blocks[0])
    slot = eb.alloca(ir.i64)
    b.store(c64(1), slot)

    def dim(bb: IRBuilder, j: ir.Value) -> None:
        at = bb.mul(j, c64(2 * VALUE_BYTES))
        lower = field(bb, values, bb.add(at, c64(8)), ir.i64)
        upper = field(bb, values, bb.add(at, c64(VALUE_BYTES + 8)), ir.i64)
        extent = bb.add(bb.sub(upper, lower), c64(1))
        neg = bb.icmp("slt", extent, c64(0))
        bb.store(bb.mul(bb.load(ir.i64, slot), bb.select(neg, c64(0), extent)), slot)
    counted_loop(b, rank, dim, "bounds")
    return b.load(ir.i64, slot)


def object_update_function(module: ir.Module) -> ir.Function:
    ft = ir.FunctionType(ir.void, [ir.ptr, ir.ptr, ir.ptr, ir.double, ir.i1, ir.ptr, ir.i32])
    fn = _helper(module, OBJECT_UPDATE, ft,
                 ["y", "x", "type", "alpha", "keep", "source", "line"], inline=False)
    if fn is None:
        return _existing(module, OBJECT_UPDATE)
    y, x, dt, alpha, keep, source, line = fn.args
    null = ir.ConstantPointerNull(ir.ptr)
    entry, start, missing = (fn.append_basic_block(s) for s in ("entry", "start", "missing"))
    b = IRBuilder(entry)
    b.cond_br(b.icmp("eq", dt, null), missing, start)
    b.position_at_end(missing)
    fatal(b, module, "irgrad: a derived-type object whose descriptor has no type "
          "description: its derivative through the Fortran runtime is not supported",
          source, line)
    b.position_at_end(start)
    comps = field(b, dt, TYPE_COMPONENTS_OFFSET, ir.ptr)
    count = field(b, dt, TYPE_COMPONENTS_OFFSET + HEADER_BYTES + EXTENT_OFFSET, ir.i64)
    stride = field(b, dt, TYPE_COMPONENTS_OFFSET + HEADER_BYTES + SM_OFFSET, ir.i64)
    has_x = b.icmp("ne", x, null)
    update = module.get_function(UPDATE) or _existing(module, UPDATE)

    def component(bb: IRBuilder, c: ir.Value) -> None:
        f = bb.function
        assert f is not None
        rec = bb.gep(ir.i8, comps, [bb.mul(c, stride)])
        genre = field(bb, rec, COMPONENT_GENRE, ir.i8)
        off = field(bb, rec, COMPONENT_OFFSET, ir.i64)
        py = bb.gep(ir.i8, y, [off])
        px = bb.select(has_x, bb.gep(ir.i8, x, [off]), null)
        data, owned, nxt = (f.append_basic_block(s) for s in ("data", "owned", "comp.next"))
        bb.switch(genre, nxt, [(ir.ConstantInt(ir.i8, GENRE_DATA), data),
                               (ir.ConstantInt(ir.i8, GENRE_ALLOCATABLE), owned),
                               (ir.ConstantInt(ir.i8, GENRE_AUTOMATIC), owned)])
        bb.position_at_end(owned)  # a descriptor: the array update (unallocated: nothing)
        bb.call(update, [py, px, null, alpha, keep, source, line])
        bb.br(nxt)
        bb.position_at_end(data)
        _data_component(bb, module, fn, rec, py, px, has_x, nxt)
        bb.position_at_end(nxt)
    counted_loop(b, count, component, "comp")
    b.ret_void()
    return fn


def _data_component(b: IRBuilder, module: ir.Module, fn: ir.Function, rec: ir.Value,
                    py: ir.Value, px: ir.Value, has_x: ir.Value, done: ir.BasicBlock) -> None:
    """A data component at ``py`` (``px``): real and complex elements updated, derived
    ones recursively; ends with a branch to ``done``."""
    _, _, _, alpha, keep, source, line = fn.args
    category = field(b, rec, COMPONENT_CATEGORY, ir.i8)
    kind = field(b, rec, COMPONENT_KIND, ir.i8)
    n = _elements(b, rec)
    derived, numeric, bad = (fn.append_basic_block(s) for s in ("derived", "numeric",
                                                                 "badkind"))
    b.cond_br(b.icmp("eq", category, ir.ConstantInt(ir.i8, CATEGORY_DERIVED)), derived,
              numeric)
    b.position_at_end(numeric)  # one case per (category, kind)
    code = b.or_(b.shl(b.zext(category, ir.i16), ir.ConstantInt(ir.i16, 8)),
                 b.zext(kind, ir.i16))
    cases: list[tuple[ir.ConstantInt, ir.BasicBlock]] = []
    for cat, parts in ((CATEGORY_REAL, 1), (CATEGORY_COMPLEX, 2)):
        for k, el in ((4, ir.float_), (8, ir.double)):
            bb = fn.append_basic_block(f"c{cat}k{k}")
            cases.append((ir.ConstantInt(ir.i16, (cat << 8) | k), bb))
            eb = IRBuilder(bb)
            a = alpha if el == ir.double else eb.fptrunc(alpha, el)
            one, zero = ir.ConstantFP(el, 1.0), ir.ConstantFP(el, 0.0)
            xs = eb.select(has_x, px, py)

            def element(e2: IRBuilder, j: ir.Value, el: ir.Type = el, a: ir.Value = a,
                        one: ir.Value = one, zero: ir.Value = zero, xs: ir.Value = xs
                        ) -> None:
                qy, qx = e2.gep(el, py, [j]), e2.gep(el, xs, [j])
                old = e2.select(keep, e2.load(el, qy), zero)
                xv = e2.select(has_x, e2.load(el, qx), one)
                e2.store(e2.fadd(old, e2.fmul(a, xv)), qy)
            counted_loop(eb, eb.mul(n, c64(parts)), element, f"c{cat}k{k}")
            eb.br(done)
        for k in (2, 3, 10, 16):  # the other real kinds
            cases.append((ir.ConstantInt(ir.i16, (cat << 8) | k), bad))
    b.switch(code, done, cases)
    b.position_at_end(derived)  # each element, recursively
    dt = field(b, rec, COMPONENT_DERIVED, ir.ptr)
    size = field(b, dt, TYPE_SIZE_OFFSET, ir.i64)
    null = ir.ConstantPointerNull(ir.ptr)

    def obj(e2: IRBuilder, j: ir.Value) -> None:
        at = e2.mul(j, size)
        e2.call(fn, [e2.gep(ir.i8, py, [at]),
                     e2.select(has_x, e2.gep(ir.i8, px, [at]), null), dt, alpha, keep,
                     source, line])
    counted_loop(b, n, obj, "sub")
    b.br(done)
    b.position_at_end(bad)
    fatal(b, module, "irgrad: derivatives through the Fortran runtime support REAL and "
          "COMPLEX of kinds 4 and 8 only", source, line)


def update_function(module: ir.Module) -> ir.Function:
    ft = ir.FunctionType(ir.void, [ir.ptr, ir.ptr, ir.ptr, ir.double, ir.i1, ir.ptr, ir.i32])
    fn = _helper(module, UPDATE, ft, ["y", "x", "mask", "alpha.in", "keep", "source", "line"],
                 inline=False)
    if fn is None:
        return _existing(module, UPDATE)
    y, x, mask, alpha_in, keep, source, line = fn.args
    null = ir.ConstantPointerNull(ir.ptr)
    entry, start, done = (fn.append_basic_block(s) for s in ("entry", "start", "done"))
    b = IRBuilder(entry)
    # a null base address is no shadow array (inactive data: a constant, an array
    # constructor): nothing is added into it, and it adds nothing
    b.cond_br(b.icmp("eq", b.load(ir.ptr, y), null), done, start)
    b.position_at_end(start)
    given_x = b.icmp("ne", x, null)
    x_base = b.load(ir.ptr, b.select(given_x, x, y))
    has_x = b.and_(given_x, b.icmp("ne", x_base, null))
    alpha = b.select(b.icmp("eq", given_x, has_x), alpha_in, ir.ConstantFP(ir.double, 0.0))
    has_mask = b.icmp("ne", mask, null)
    y_scalar = b.icmp("eq", rank(b, y), c64(0))
    xd = b.select(has_x, x, y)  # (x's walker is only read when there is an x)
    # the elements of y; of x when y is a scalar; of the shorter when both are arrays (a
    # RESHAPE's source may have more elements than its result)
    count_y = b.call(count_function(module), [y])
    count_x = b.select(has_x, b.call(count_function(module), [xd]), c64(1))
    x_array = b.and_(has_x, b.icmp("ne", rank(b, xd), c64(0)))
    umin = module.get_or_insert_function("llvm.umin.i64",
                                         ir.FunctionType(ir.i64, [ir.i64, ir.i64]))
    n = b.select(y_scalar, count_x,
                 b.select(x_array, b.call(umin, [count_y, count_x]), count_y))
    wy, wx = _Walker(b, module, y), _Walker(b, module, xd)
    code = type_code(b, y)
    struct_bb, kind_bb = fn.append_basic_block("struct"), fn.append_basic_block("kind")
    blocks = [(code_, fn.append_basic_block(f"t{code_}")) for code_, _, _ in _ELEMENT_KINDS]
    cases = [*blocks, (TYPE_STRUCT, struct_bb), *((c, kind_bb) for c in UNSUPPORTED_REAL_TYPES)]
    b.switch(code, done, [(ir.ConstantInt(ir.i8, c), bb) for c, bb in cases])
    for (_, el, parts), (_, bb) in zip(_ELEMENT_KINDS, blocks, strict=True):
        b.position_at_end(bb)
        a = alpha if el == ir.double else b.fptrunc(alpha, el)
        one, zero = ir.ConstantFP(el, 1.0), ir.ConstantFP(el, 0.0)

        def element(bb2: IRBuilder, k: ir.Value, el: ir.Type = el, a: ir.Value = a,
                    one: ir.Value = one, zero: ir.Value = zero, parts: int = parts) -> None:
            f = bb2.function
            assert f is not None
            on, off = f.append_basic_block("on"), f.append_basic_block("next")
            _masked(bb2, module, has_mask, mask, k, on, off)
            bb2.position_at_end(on)
            py, px = wy.at(bb2, k), wx.at(bb2, k)
            for part in range(parts):
                qy = bb2.gep(el, py, [c64(part)])
                qx = bb2.gep(el, px, [c64(part)])
                old = bb2.select(keep, bb2.load(el, qy), zero)
                xv = bb2.select(has_x, bb2.load(el, qx), one)
                bb2.store(bb2.fadd(old, bb2.fmul(a, xv)), qy)
            bb2.br(off)
            bb2.position_at_end(off)
        counted_loop(b, n, element, f"e{parts}")
        b.br(done)
    b.position_at_end(struct_bb)  # component by component, from the type's description
    objects, dt = object_update_function(module), derived_type(b, y)

    def element_object(bb2: IRBuilder, k: ir.Value) -> None:
        f = bb2.function
        assert f is not None
        on, off = f.append_basic_block("on"), f.append_basic_block("next")
        _masked(bb2, module, has_mask, mask, k, on, off)
        bb2.position_at_end(on)
        px = bb2.select(has_x, wx.at(bb2, k), null)
        bb2.call(objects, [wy.at(bb2, k), px, dt, alpha, keep, source, line])
        bb2.br(off)
        bb2.position_at_end(off)
    counted_loop(b, n, element_object, "o")
    b.br(done)
    b.position_at_end(kind_bb)
    fatal(b, module, "irgrad: derivatives through the Fortran runtime support REAL and "
          "COMPLEX of kinds 4 and 8 only", source, line)
    b.position_at_end(done)
    b.ret_void()
    return fn


