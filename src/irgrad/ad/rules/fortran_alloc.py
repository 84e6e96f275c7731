"""Derivatives of flang's allocation and assignment through descriptors: ``allocate``
(with ``stat=``, ``source=``, of derived types), ``deallocate`` and ``_FortranAAssign``
(an assignment that may (re)allocate an allocatable left side). The shadow descriptor
follows its primal: a successful allocation gives it the primal's shape and a zeroed
block of its own, a deallocation releases that block (at once in forward mode, after the
reverse pass in reverse mode: the reverse of earlier code still adds into it), and where
the runtime gives an assignment's left side a new block the shadow gets a new zeroed one.
An assignment's tangent is the runtime's ``Assign`` of the tangents; its adjoint moves
into the right side (through a copy: the two may overlap) and is zeroed on the left.

``_FortranACopyInAssign``/``_FortranACopyOutAssign`` (an assumed-shape array passed to an
explicit-shape dummy) are an assignment into a temporary and one back: the shadow
temporary gets a zeroed block (forward mode: the tangent copied in), copy-out's adjoint
moves from the variable into the temporary, copy-in's from the temporary into the
variable, and the shadow temporary is released where the primal one is.
``_FortranAInitialize`` initializes the shadow object too, its real data zeroed.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.rules.fortran_emit import DescriptorEmitter
from irgrad.ad.rules.fortran_rule import (
    FortranOperands,
    FortranRule,
    Saves,
    def_fortran,
    no_saves,
    nothing,
    shadow_of,
    views,
)
from irgrad.ad.rules.fortran_typeinfo import owns_components
from irgrad.analysis.fortran_runtime import ATTRIBUTE_OTHER


# -- assignment: to = from, (re)allocating an allocatable ``to`` ------------------------------
def _assign_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("to"):
        return
    b = e.b
    o.before["realloc"] = e.reallocates(o.v["to"], o.v["from"])
    o.before["was"] = b.icmp("ne", e.base(o.v["to"]), ir.ConstantPointerNull(ir.ptr))
    o.before["old"] = e.shadow_view(o.v["to"], shadow_of(o, "to"))


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
    e.view_into(shadow_of(o, "to"), o.v["to"], e.zeroed_block(o.v["to"]))
    e.join(join)


def _assign_augment(e: DescriptorEmitter, o: FortranOperands) -> None:
    """Reverse mode: the shadow of a derived-type left side with allocatable components
    would need components of its own, which it does not get: stop at the Fortran line."""
    if not o.active("to"):
        return
    _, join = e.if_then(owns_components(e.b, o.v["to"]), "owned")
    e.fatal("irgrad: the reverse-mode derivative of an assignment of a derived type with "
            "allocatable components through the Fortran runtime is not supported")
    e.b.position_at_end(join)


def _assign_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("to"):
        return None
    dto = e.shadow_view(o.v["to"], shadow_of(o, "to"))
    e.set_attribute(dto, ATTRIBUTE_OTHER)  # copy into the block, never reallocate it
    _, join = e.if_then(e.b.icmp("ne", e.base(dto), ir.ConstantPointerNull(ir.ptr)), "to")
    if o.active("from"):
        e.assign(dto, e.tangent(o.v["from"], shadow_of(o, "from")))
    else:
        e.zero(dto)
    e.join(join)
    return None


def _assign_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("to"):
        return
    dto = shadow_of(o, "to")
    _, join = e.if_then(e.b.icmp("ne", e.base(dto), ir.ConstantPointerNull(ir.ptr)), "to")
    adjoint = e.new_descriptor()  # dfrom += dto through a copy: the two may overlap
    if o.active("from"):
        e.copy(adjoint, dto)
    e.zero(dto)
    if o.active("from"):
        e.add(shadow_of(o, "from"), adjoint)
        e.free(e.base(adjoint))
    e.join(join)


def_fortran(FortranRule("assign", lambda o: views(o, "to", "from"), _assign_forward,
                        _assign_reverse, before=_assign_before, shadow=_assign_shadow,
                        augment=_assign_augment, slot_rank="to"))


# -- allocate, allocate(..., source=), deallocate -----------------------------------------------
def _allocate_shadow(e: DescriptorEmitter, o: FortranOperands) -> None:
    """A successful allocation: the shadow descriptor gets the primal's shape and a zeroed
    block of its own."""
    if not o.active("desc"):
        return
    assert o.result is not None
    _, join = e.if_then(e.b.icmp("eq", o.result, ir.ConstantInt(o.result.type, 0)), "alloc")
    e.view_into(shadow_of(o, "desc"), o.v["desc"], e.zeroed_block(o.v["desc"]))
    e.join(join)


def _source_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not (o.active("desc") and o.active("source_desc")):
        return None
    assert o.result is not None
    _, join = e.if_then(e.b.icmp("eq", o.result, ir.ConstantInt(o.result.type, 0)), "alloc")
    dst = e.shadow_view(o.v["desc"], shadow_of(o, "desc"))
    e.set_attribute(dst, ATTRIBUTE_OTHER)
    e.assign(dst, e.tangent(o.v["source_desc"], shadow_of(o, "source_desc")))
    e.join(join)
    return None


def _source_saves(o: FortranOperands) -> Saves:
    if not (o.active("desc") and o.active("source_desc")):
        return []
    return ["value:ok", *views(o, "desc", "source_desc")]


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
    e.add(shadow_of(o, "source_desc"), shadow_of(o, "desc"))
    e.zero(shadow_of(o, "desc"))
    e.join(join)


def _deallocate_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("desc"):
        o.before["old"] = e.shadow_view(o.v["desc"], shadow_of(o, "desc"))
        o.before["was"] = e.b.icmp("ne", e.base(o.v["desc"]), ir.ConstantPointerNull(ir.ptr))


def _deallocate_shadow(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("desc"):
        return
    assert o.result is not None and o.release is not None
    b = e.b
    done = b.and_(o.before["was"], b.icmp("eq", o.result, ir.ConstantInt(o.result.type, 0)))
    _, join = e.if_then(done, "dealloc")
    o.release(e, o.before["old"])
    b.store(ir.ConstantPointerNull(ir.ptr), shadow_of(o, "desc"))
    e.join(join)


def_fortran(FortranRule("allocate", no_saves, nothing, nothing, shadow=_allocate_shadow))
def_fortran(FortranRule("allocate_source", _source_saves, _source_forward, _source_reverse,
                        shadow=_allocate_shadow, augment=_source_augment,
                        slot_rank="desc"))
def_fortran(FortranRule("deallocate", no_saves, nothing, nothing,
                        before=_deallocate_before, shadow=_deallocate_shadow))


# -- move_alloc(from, to): to's block (freed first) becomes from's, from unallocated -------------
def _move_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("to"):
        o.before["old"] = e.shadow_view(o.v["to"], shadow_of(o, "to"))
        o.before["was"] = e.b.icmp("ne", e.base(o.v["to"]), ir.ConstantPointerNull(ir.ptr))
    if o.active("from"):
        o.before["moved"] = e.base(shadow_of(o, "from"))


def _move_shadow(e: DescriptorEmitter, o: FortranOperands) -> None:
    """The shadows move as the primals do: the old shadow block of ``to`` is released (at
    once in forward mode, after the reverse pass in reverse mode), ``to``'s shadow takes
    ``from``'s block (a zeroed one when ``from`` has none) and ``from``'s is cleared."""
    assert o.result is not None
    b = e.b
    ok = b.icmp("eq", o.result, ir.ConstantInt(o.result.type, 0))
    _, join = e.if_then(ok, "move")
    if o.active("to"):
        assert o.release is not None
        _, released = e.if_then(o.before["was"], "move.old")
        o.release(e, o.before["old"])
        e.join(released)
        moved = o.before.get("moved")
        if moved is None:
            allocated = b.icmp("ne", e.base(o.v["to"]), ir.ConstantPointerNull(ir.ptr))
            block = e.new_slot(ir.ptr)
            b.store(ir.ConstantPointerNull(ir.ptr), block)
            _, zeroed = e.if_then(allocated, "move.zeros")
            b.store(e.zeroed_block(o.v["to"]), block)
            e.join(zeroed)
            moved = b.load(ir.ptr, block)
        e.view_into(shadow_of(o, "to"), o.v["to"], moved)
    if o.active("from"):
        b.store(ir.ConstantPointerNull(ir.ptr), shadow_of(o, "from"))
    e.join(join)


def_fortran(FortranRule("move_alloc", no_saves, nothing, nothing, before=_move_before,
                        shadow=_move_shadow))


# -- copy-in/copy-out: an assumed-shape array passed to an explicit-shape dummy ----------------
def _live(o: FortranOperands, role: str) -> bool:
    """An active descriptor argument that is there (``CopyOutAssign``'s ``var`` is null
    when nothing is copied back)."""
    return o.active(role) and not isinstance(o.v[role], ir.ConstantPointerNull)


def _copy_in_shadow(e: DescriptorEmitter, o: FortranOperands) -> None:
    """``temp`` got a block of its own: the shadow temporary gets a zeroed one (forward
    mode then copies the tangent of ``var`` in)."""
    if o.active("temp"):
        e.view_into(shadow_of(o, "temp"), o.v["temp"], e.zeroed_block(o.v["temp"]))


def _copy_in_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if o.active("temp") and o.active("var"):
        e.add(shadow_of(o, "temp"), e.shadow_view(o.v["var"], shadow_of(o, "var")))
    return None


def _copy_in_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if not o.active("temp"):
        return
    if o.active("var"):
        e.add(shadow_of(o, "var"), shadow_of(o, "temp"))
    e.zero(shadow_of(o, "temp"))


def _copy_out_before(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("temp"):  # the shadow temporary, which the call's release takes along
        o.before["old"] = e.shadow_view(o.v["temp"], shadow_of(o, "temp"))


def _copy_out_release(e: DescriptorEmitter, o: FortranOperands) -> None:
    assert o.release is not None
    o.release(e, o.before["old"])


def _copy_out_forward(e: DescriptorEmitter, o: FortranOperands) -> ir.Value | None:
    if not o.active("temp"):
        return None
    if _live(o, "var"):  # var = temp, then the temporary goes
        dvar = e.shadow_view(o.v["var"], shadow_of(o, "var"))
        e.update(dvar, o.before["old"], ir.ConstantFP(ir.double, 1.0), keep=False)
    _copy_out_release(e, o)
    e.b.store(ir.ConstantPointerNull(ir.ptr), shadow_of(o, "temp"))
    return None


def _copy_out_saves(o: FortranOperands) -> Saves:
    # (the temporary's view is read after the call: its deallocation clears only its
    # base address, and the view's base is the shadow block, released after the reverse)
    return views(o, "temp", "var") if o.active("temp") and _live(o, "var") else []


def _copy_out_augment(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("temp"):
        _copy_out_release(e, o)


def _copy_out_reverse(e: DescriptorEmitter, o: FortranOperands) -> None:
    if o.active("temp") and o.active("var"):  # dtemp += dvar; dvar = 0
        e.add(shadow_of(o, "temp"), shadow_of(o, "var"))
        e.zero(shadow_of(o, "var"))


def_fortran(FortranRule("copy_in", lambda o: views(o, "temp", "var"), _copy_in_forward,
                        _copy_in_reverse, shadow=_copy_in_shadow, slot_rank="temp"))
def_fortran(FortranRule("copy_out", _copy_out_saves, _copy_out_forward, _copy_out_reverse,
                        before=_copy_out_before, augment=_copy_out_augment,
                        slot_rank="temp"))


# -- default initialization of a derived-type object --------------------------------------------
def _initialize_shadow(e: DescriptorEmitter, o: FortranOperands) -> None:
    """The shadow object gets the same initialization (its allocatable components
    unallocated), when it is one of its own; then its real data is zeroed (a component's
    default value is a constant: its derivative is 0)."""
    if not o.active("desc"):
        return
    view = e.shadow_view(o.v["desc"], shadow_of(o, "desc"))
    _, join = e.if_then(e.b.icmp("ne", e.base(view), ir.ConstantPointerNull(ir.ptr)), "init")
    o.again(e, desc=view)
    e.zero(view)
    e.join(join)


def_fortran(FortranRule("initialize", no_saves, nothing, nothing, shadow=_initialize_shadow))


__all__: list[str] = []
