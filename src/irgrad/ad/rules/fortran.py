"""Derivatives of flang's runtime routines (:mod:`irgrad.analysis.fortran_runtime`), as
calls of the runtime again wherever it has the operation: the tangent of ``sum(a)`` is
``sum`` of the tangent array, those of ``dot_product`` and ``matmul`` are the routine with
one operand replaced by its tangent, and the adjoints of ``matmul`` are two more
``matmul`` calls on transposed views (``dA += dR B^T``, ``dB += A^T dR``, a vector seen as
a 1 x n or n x 1 matrix). What the runtime has no routine for -- ``y += alpha x`` over two
descriptors, the position of a ``maxval`` -- the helpers of
:mod:`irgrad.ad.rules.fortran_helpers` do.

A rule (:class:`FortranRule`) has:

* ``saves(o)``: what the augmented forward pass keeps for the reverse pass, in order:
  ``"view:<role>"`` the shadow array of a descriptor argument as it is after the call (its
  shape, the shadow's base address), ``"copy:<role>"`` a contiguous copy of a primal array
  the reverse pass reads, ``"value:<name>"`` a pointer the rule computed
  (``o.saved[name]``);
* ``before(e, o)``: run before the primal call in both modes (what the call changes:
  the old shadow block of a reallocated or deallocated array);
* ``shadow(e, o)``: run after the primal call in both modes: the shadow side of an
  allocation (a zeroed block of the primal's size in the shadow descriptor) or of a
  deallocation (the shadow block released: at once in forward mode, after the reverse
  pass in reverse mode, :attr:`FortranOperands.release`);
* ``augment(e, o)``: reverse mode only, after ``shadow``: the zeroed shadow of a result
  the runtime allocated (forward mode makes it from the tangents), the values to save;
* ``forward(e, o)``: the tangent after the primal call (a reduction returns it);
* ``reverse(e, o)``: adds the adjoints into the shadows (``o.d``: the saved views,
  ``o.copies``: the saved copies, ``o.dret``: the adjoint of a returned value).

An inactive operand (``o.d[role]`` None) gets no work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from irgrad import ir
from irgrad.ad.rules.fortran_emit import DescriptorEmitter
from irgrad.ad.rules.fortran_helpers import c64, counted_loop
from irgrad.analysis.fortran_runtime import ATTRIBUTE_OTHER, MAX_RANK

Saves = list[str]


@dataclass
class FortranOperands:
    """One runtime call inside a derivative function."""

    function: ir.Function  # the routine's declaration
    roles: tuple[str, ...]
    v: dict[str, ir.Value]  # primal arguments by role
    d: dict[str, ir.Value | None]  # shadow descriptors (reverse: the saved views)
    copies: dict[str, ir.Value] = field(default_factory=dict)
    saved: dict[str, ir.Value] = field(default_factory=dict)
    before: dict[str, ir.Value] = field(default_factory=dict)
    result: ir.Value | None = None  # the primal call's
    dret: ir.Value | None = None
    # drops the shadow array a view describes: now (forward mode) or when the reverse
    # pass is over (reverse mode)
    release: Callable[[DescriptorEmitter, ir.Value], None] | None = None

    def active(self, role: str) -> bool:
        return self.d.get(role) is not None

    def again(self, e: DescriptorEmitter, **replaced: ir.Value) -> ir.Value:
        """The routine called again with some arguments replaced."""
        args = [replaced.get(role, self.v[role]) for role in self.roles]
        return e.b.call(self.function, args)


@dataclass(frozen=True)
class FortranRule:
    family: str
    saves: Callable[[FortranOperands], Saves]
    forward: Callable[[DescriptorEmitter, FortranOperands], ir.Value | None]
    reverse: Callable[[DescriptorEmitter, FortranOperands], None]
    before: Callable[[DescriptorEmitter, FortranOperands], None] | None = None
    shadow: Callable[[DescriptorEmitter, FortranOperands], None] | None = None
    augment: Callable[[DescriptorEmitter, FortranOperands], None] | None = None
    # descriptors on the tape have at most this rank (a role: that argument's rank)
    slot_rank: int | str = 2


FORTRAN_RULES: dict[str, FortranRule] = {}


def def_fortran(rule: FortranRule, *families: str) -> None:
    for fam in (rule.family, *families):
        FORTRAN_RULES[fam] = rule


def _nothing(e: DescriptorEmitter, o: FortranOperands) -> None:
    return None


def _no_saves(o: FortranOperands) -> Saves:
    return []


def _views(o: FortranOperands, *roles: str) -> Saves:
    return [f"view:{r}" for r in roles if o.active(r)]


def _d(o: FortranOperands, role: str) -> ir.Value:
    d = o.d[role]
    assert d is not None
    return d


# -- sum -----------------------------------------------------------------------------------
def _sum_saves(o: FortranOperands) -> Saves:
    has_mask = not isinstance(o.v.get("mask"), ir.ConstantPointerNull | None)
    return [*_views(o, "array"), *(["copy:mask"] if has_mask else [])]


def _sum_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("array"):
        return None
    return o.again(e, array=e.tangent(o.v["array"], _d(o, "array")))


def _sum_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("array") and o.dret is not None:  # every (unmasked) element += dr
        e.update(_d(o, "array"), None, o.dret, mask=o.copies.get("mask"))


def_fortran(FortranRule("sum", _sum_saves, _sum_forward, _sum_reverse, slot_rank="array"))


# -- maxval, minval: the derivative flows to the first extremal element ------------------
def _extremum_at(e: DescriptorEmitter, o: FortranOperands) -> ir.Value:
    """The shadow element of the first maximum (minimum), or null."""
    b = e.b
    off = e.extremum(o.v["array"], o.v["mask"], o.function.name.startswith(
        "_FortranAMaxval"))
    base = e.shadow_base(o.v["array"], _d(o, "array"))
    at = b.gep(ir.i8, base, [off])
    none = b.or_(b.icmp("slt", off, c64(0)), b.icmp("eq", base, ir.ConstantPointerNull(ir.ptr)))
    return b.select(none, ir.ConstantPointerNull(ir.ptr), at)


def _extremum_augment(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("array"):
        o.saved["at"] = _extremum_at(e, o)


def _extremum_saves(o: FortranOperands) -> Saves:
    return ["value:at"] if o.active("array") else []


def _extremum_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("array"):
        return None
    b = e.b
    at = _extremum_at(e, o)
    slot = e.new_descriptor()
    b.store(e.fp(0.0), slot)
    _, join = e.if_then(b.icmp("ne", at, ir.ConstantPointerNull(ir.ptr)), "extremum")
    b.store(b.load(e.el, at), slot)
    e.join(join)
    return b.load(e.el, slot)


def _extremum_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    at = o.saved.get("at")
    if at is None or o.dret is None:
        return
    b = e.b
    _, join = e.if_then(b.icmp("ne", at, ir.ConstantPointerNull(ir.ptr)), "extremum")
    b.store(b.fadd(b.load(e.el, at), o.dret), at)
    e.join(join)


def_fortran(FortranRule("maxval", _extremum_saves, _extremum_forward, _extremum_reverse,
                        augment=_extremum_augment), "minval")


# -- dot_product -----------------------------------------------------------------------------
def _bilinear_saves(o: FortranOperands, *result: str) -> Saves:
    return [*_views(o, *result, "x", "y"), *(["copy:y"] if o.active("x") else []),
            *(["copy:x"] if o.active("y") else [])]


def _dot_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    t: ir.Value | None = None
    for role in ("x", "y"):
        if o.active(role):
            term = o.again(e, **{role: e.tangent(o.v[role], _d(o, role))})
            t = term if t is None else e.b.fadd(t, term)
    return t


def _dot_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.dret is None:
        return
    if o.active("x"):  # dx += dr y
        e.update(_d(o, "x"), o.copies["y"], o.dret)
    if o.active("y"):  # dy += dr x
        e.update(_d(o, "y"), o.copies["x"], o.dret)


def_fortran(FortranRule("dot_product", _bilinear_saves, _dot_forward, _dot_reverse,
                        slot_rank=1))


# -- norm2: d|x| = <x, dx> / |x| ------------------------------------------------------------------
def _norm2_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("array") or o.result is None:
        return None
    inner = e.dot(o.v["array"], e.tangent(o.v["array"], _d(o, "array")))
    t = e.b.fdiv(inner, e.to_double(o.result))
    return t if e.el == ir.double else e.b.fptrunc(t, e.el)


def _norm2_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("array") or o.dret is None:  # dx += dr x / |x| (|x|: the runtime again)
        return
    x = o.copies["array"]
    norm = o.again(e, array=x)
    e.update(_d(o, "array"), x, e.b.fdiv(e.to_double(o.dret), e.to_double(norm)))


def_fortran(FortranRule(
    "norm2", lambda o: [*_views(o, "array"), *(["copy:array"] if o.active("array") else [])],
    _norm2_forward, _norm2_reverse, slot_rank="array"))


# -- results the runtime allocates (matmul, transpose) -------------------------------------
def _zeroed_result(e: DescriptorEmitter, o: FortranOperands) -> None:
    """Reverse mode: the shadow of an allocated result is a zeroed block of its size."""
    if o.active("result"):
        e.view_into(_d(o, "result"), o.v["result"], e.zeroed_block(o.v["result"]))


def _sum_into(e: DescriptorEmitter, terms: list[ir.Value]) -> ir.Value:
    """The first of the allocated ``terms`` plus the others (freed)."""
    for t in terms[1:]:
        e.add(terms[0], t)
        e.free(e.base(t))
    return terms[0]


# -- matmul, matmul(transpose(a), b) ---------------------------------------------------------
def _matmul_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("result"):
        return None
    terms: list[ir.Value] = []
    for role in ("x", "y"):
        if o.active(role):
            t = e.result_template(o.v["result"], 2)
            o.again(e, result=t, **{role: e.tangent(o.v[role], _d(o, role))})
            terms.append(t)
    if terms:
        e.view_into(_d(o, "result"), o.v["result"], e.base(_sum_into(e, terms)))
    else:
        _zeroed_result(e, o)
    return None


def _matmul_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("result"):
        return
    transpose_x = o.function.name.startswith("_FortranAMatmulTranspose")
    x_any = o.d.get("x") or o.copies.get("x")
    if x_any is None:  # no operand is active
        return
    left_vector = ir.ConstantInt(ir.i1, 0) if transpose_x else e.is_vector(x_any)
    r2 = e.matrix(_d(o, "result"), left_vector)

    def left(d: ir.Value) -> ir.Value:  # the left factor as a matrix (A = x or x^T)
        return e.transposed(d) if transpose_x else e.matrix(d, ir.ConstantInt(ir.i1, 1))

    def product(a: ir.Value, c: ir.Value) -> ir.Value:
        t = e.result_template(_d(o, "result"), 2)
        e.matmul(t, a, c)
        return t
    if o.active("x"):  # dA += dR B^T
        t = product(r2, e.transposed(e.matrix(o.copies["y"], ir.ConstantInt(ir.i1, 0))))
        e.add(left(_d(o, "x")), t)
        e.free(e.base(t))
    if o.active("y"):  # dB += A^T dR
        t = product(e.transposed(left(o.copies["x"])), r2)
        e.add(e.matrix(_d(o, "y"), ir.ConstantInt(ir.i1, 0)), t)
        e.free(e.base(t))


def_fortran(FortranRule("matmul", lambda o: _bilinear_saves(o, "result"), _matmul_forward,
                        _matmul_reverse, augment=_zeroed_result), "matmul_transpose")


# -- transpose --------------------------------------------------------------------------------
def _transpose_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("result"):
        return None
    if not o.active("matrix"):
        _zeroed_result(e, o)
        return None
    t = e.result_template(o.v["result"], 2)
    o.again(e, result=t, matrix=e.tangent(o.v["matrix"], _d(o, "matrix")))
    e.view_into(_d(o, "result"), o.v["result"], e.base(t))
    return None


def _transpose_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("result") and o.active("matrix"):  # dM += dR^T
        e.add(_d(o, "matrix"), e.transposed(_d(o, "result")))


def_fortran(FortranRule("transpose", lambda o: _views(o, "result", "matrix"),
                        _transpose_forward, _transpose_reverse, augment=_zeroed_result))


# -- reshape: the elements in array element order, into a new shape --------------------------
def _reshape_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    b = e.b
    null = ir.ConstantPointerNull(ir.ptr)
    given = b.or_(b.icmp("ne", o.v["pad"], null), b.icmp("ne", o.v["order"], null))
    _, join = e.if_then(given, "pad.order")
    e.fatal("irgrad: the derivative of RESHAPE with PAD= or ORDER= is not supported")
    e.b.position_at_end(join)


def _reshape_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("result"):
        return None
    if not o.active("array"):
        _zeroed_result(e, o)
        return None
    t = e.result_template(o.v["result"], 1)
    o.again(e, result=t, array=e.tangent(o.v["array"], _d(o, "array")))
    e.view_into(_d(o, "result"), o.v["result"], e.base(t))
    return None


def _reshape_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("result") and o.active("array"):  # element k of the result is source's k
        e.add(_d(o, "array"), _d(o, "result"))


def_fortran(FortranRule("reshape", lambda o: _views(o, "result", "array"), _reshape_forward,
                        _reshape_reverse, before=_reshape_before, augment=_zeroed_result,
                        slot_rank=MAX_RANK))


# -- spread, sum(a, dim=k): copies along a dimension, and their sum -----------------------------
def _dim0(e: DescriptorEmitter, o: FortranOperands) -> ir.Value:
    """The zero-based dimension of a ``dim`` argument (Fortran's is 1-based)."""
    return e.b.sub(e.b.sext(o.v["dim"], ir.i64), c64(1))


def _along(e: DescriptorEmitter, n: ir.Value, body: Callable[[ir.Value], None]) -> None:
    """``for c in 0..n-1: body(c)`` in the derivative."""
    counted_loop(e.b, n, lambda _b, c: body(c), "along")


def _by_dim_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    """Spread and sum-dim are linear in the array: the routine on its tangent."""
    if not o.active("result"):
        return None
    if not o.active("array"):
        _zeroed_result(e, o)
        return None
    t = e.result_template(o.v["result"], 1)
    o.again(e, result=t, array=e.tangent(o.v["array"], _d(o, "array")))
    e.view_into(_d(o, "result"), o.v["result"], e.base(t))
    return None


def _spread_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not (o.active("result") and o.active("array")):  # dsource += every copy's adjoint
        return
    dres, dim = _d(o, "result"), _dim0(e, o)
    _along(e, e.extent(dres, dim), lambda c: e.add(_d(o, "array"), e.slice(dres, dim, c)))


def _sum_dim_saves(o: FortranOperands) -> Saves:
    return [*_views(o, "result", "array"), *[s for s in _sum_saves(o) if s.startswith("copy")]]


def _sum_dim_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not (o.active("result") and o.active("array")):  # each section += the adjoint
        return
    da, dim = _d(o, "array"), _dim0(e, o)
    mask = o.copies.get("mask")

    def section(c: ir.Value) -> None:
        if mask is None:
            e.add(e.slice(da, dim, c), _d(o, "result"))
            return
        b = e.b
        given = b.icmp("ne", mask, ir.ConstantPointerNull(ir.ptr))
        m = b.select(given, e.slice(b.select(given, mask, da), dim, c),
                     ir.ConstantPointerNull(ir.ptr))
        e.update(e.slice(da, dim, c), _d(o, "result"), ir.ConstantFP(ir.double, 1.0), mask=m)
    _along(e, e.extent(da, dim), section)


def_fortran(FortranRule("spread", lambda o: _views(o, "result", "array"), _by_dim_forward,
                        _spread_reverse, augment=_zeroed_result, slot_rank=MAX_RANK))
def_fortran(FortranRule("sum_dim", _sum_dim_saves, _by_dim_forward, _sum_dim_reverse,
                        augment=_zeroed_result, slot_rank=MAX_RANK))


# -- cshift of a vector: a rotation, undone by the opposite one ---------------------------------
def _cshift_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not (o.active("result") and o.active("array")):
        return
    t = e.result_template(_d(o, "result"), 1)
    o.again(e, result=t, array=_d(o, "result"), shift=e.b.neg(o.v["shift"]))
    e.add(_d(o, "array"), t)
    e.free(e.base(t))


def_fortran(FortranRule("cshift_vector", lambda o: _views(o, "result", "array"),
                        _by_dim_forward, _cshift_reverse, augment=_zeroed_result, slot_rank=1))


# -- assignment: to = from, (re)allocating an allocatable ``to`` ------------------------------
def _assign_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("to"):
        return
    b = e.b
    o.before["realloc"] = e.reallocates(o.v["to"], o.v["from"])
    o.before["was"] = b.icmp("ne", e.base(o.v["to"]), ir.ConstantPointerNull(ir.ptr))
    o.before["old"] = e.shadow_view(o.v["to"], _d(o, "to"))


def _assign_shadow(e: DescriptorEmitter, o: FortranOperands) -> None:
    """Where the runtime gave ``to`` a new block, the shadow gets a zeroed one of its own
    (the old shadow block released as the old primal block was)."""
    if not o.active("to"):
        return
    _, join = e.if_then(o.before["realloc"], "realloc")
    _, inner = e.if_then(o.before["was"], "release")
    assert o.release is not None
    o.release(e, o.before["old"])
    e.join(inner)
    e.view_into(_d(o, "to"), o.v["to"], e.zeroed_block(o.v["to"]))
    e.join(join)


def _assign_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("to"):
        return None
    dto = e.shadow_view(o.v["to"], _d(o, "to"))
    e.set_attribute(dto, ATTRIBUTE_OTHER)  # copy into the block, never reallocate it
    _, join = e.if_then(e.b.icmp("ne", e.base(dto), ir.ConstantPointerNull(ir.ptr)), "to")
    if o.active("from"):
        e.assign(dto, e.tangent(o.v["from"], _d(o, "from")))
    else:
        e.zero(dto)
    e.join(join)
    return None


def _assign_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("to"):
        return
    dto = _d(o, "to")
    _, join = e.if_then(e.b.icmp("ne", e.base(dto), ir.ConstantPointerNull(ir.ptr)), "to")
    adjoint = e.new_descriptor()  # dfrom += dto through a copy: the two may overlap
    if o.active("from"):
        e.copy(adjoint, dto)
    e.zero(dto)
    if o.active("from"):
        e.add(_d(o, "from"), adjoint)
        e.free(e.base(adjoint))
    e.join(join)


def_fortran(FortranRule("assign", lambda o: _views(o, "to", "from"), _assign_forward,
                        _assign_reverse, before=_assign_before, shadow=_assign_shadow,
                        slot_rank="to"))


# -- allocate, allocate(..., source=), deallocate -----------------------------------------------
def _allocate_shadow(e: DescriptorEmitter, o: FortranOperands) -> None:
    """A successful allocation: the shadow descriptor gets the primal's shape and a zeroed
    block of its own."""
    if not o.active("desc"):
        return
    assert o.result is not None
    _, join = e.if_then(e.b.icmp("eq", o.result, ir.ConstantInt(o.result.type, 0)), "alloc")
    e.view_into(_d(o, "desc"), o.v["desc"], e.zeroed_block(o.v["desc"]))
    e.join(join)


def _source_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not (o.active("desc") and o.active("source_desc")):
        return None
    assert o.result is not None
    _, join = e.if_then(e.b.icmp("eq", o.result, ir.ConstantInt(o.result.type, 0)), "alloc")
    dst = e.shadow_view(o.v["desc"], _d(o, "desc"))
    e.set_attribute(dst, ATTRIBUTE_OTHER)
    e.assign(dst, e.tangent(o.v["source_desc"], _d(o, "source_desc")))
    e.join(join)
    return None


def _source_saves(o: FortranOperands) -> Saves:
    if not (o.active("desc") and o.active("source_desc")):
        return []
    return ["value:ok", *_views(o, "desc", "source_desc")]


def _source_augment(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("desc") and o.active("source_desc"):  # (a pointer: null when it failed)
        assert o.result is not None
        ok = e.b.icmp("eq", o.result, ir.ConstantInt(o.result.type, 0))
        o.saved["ok"] = e.b.inttoptr(e.b.zext(ok, ir.i64), ir.ptr)


def _source_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    ok = o.saved.get("ok")
    if ok is None:
        return
    _, join = e.if_then(e.b.icmp("ne", ok, ir.ConstantPointerNull(ir.ptr)), "alloc")
    e.add(_d(o, "source_desc"), _d(o, "desc"))
    e.zero(_d(o, "desc"))
    e.join(join)


def _deallocate_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("desc"):
        o.before["old"] = e.shadow_view(o.v["desc"], _d(o, "desc"))
        o.before["was"] = e.b.icmp("ne", e.base(o.v["desc"]), ir.ConstantPointerNull(ir.ptr))


def _deallocate_shadow(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("desc"):
        return
    assert o.result is not None and o.release is not None
    b = e.b
    done = b.and_(o.before["was"], b.icmp("eq", o.result, ir.ConstantInt(o.result.type, 0)))
    _, join = e.if_then(done, "dealloc")
    o.release(e, o.before["old"])
    b.store(ir.ConstantPointerNull(ir.ptr), _d(o, "desc"))
    e.join(join)


def_fortran(FortranRule("allocate", _no_saves, _nothing, _nothing, shadow=_allocate_shadow))
def_fortran(FortranRule("allocate_source", _source_saves, _source_forward, _source_reverse,
                        shadow=_allocate_shadow, augment=_source_augment,
                        slot_rank="desc"))
def_fortran(FortranRule("deallocate", _no_saves, _nothing, _nothing,
                        before=_deallocate_before, shadow=_deallocate_shadow))


__all__ = ["FORTRAN_RULES", "FortranOperands", "FortranRule", "Saves"]
