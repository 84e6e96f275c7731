"""Memory copies in reverse mode: memcpy/memmove, memset and realloc's copy.

What a copy moves comes from type analysis (:meth:`irgrad.analysis.type_results.
TypeResults.copied_contents`), with the evidence of both ends: the types the source and
the destination are read and written as, TBAA tags (``!tbaa.struct`` on clang's struct
copies), the callees that receive the buffers. Then

* floating-point data (one type over the whole copy): the reverse pass adds the
  destination's adjoints into the source's and zeroes them (``dsrc += ddst; ddst = 0``,
  elementwise, in a small helper loop);
* pointers: the forward pass copies the shadow pointers too (the destination's pointers
  then have shadows);
* a struct of floats and pointers of known size: each field as above;
* integers only (``std::vector<int>`` growing, an empty member's byte): nothing.

A copy with no evidence at all is ``Cannot deduce type``, at the copy's source line --
unless it copies into a block the function has just allocated (a member ``std::vector``
copy-constructed at -O0, whose elements nothing in the program ever reads: Boost.Odeint's
unused ``m_dxdt``). Such a destination's shadow starts at zero and only adjoints of
typed reads of it -- which would have given the copy a type -- could fill it, so the
copy's reverse, whatever the bytes are, is a no-op while the destination's shadow is still
zero: the reverse pass checks that at run time and otherwise stops with the same located
message. The forward pass copies no shadow (no one reads the bytes as pointers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.allocations import allocation_bytes, as_i64, unless_own_shadow
from irgrad.ad.core.deferred_frees import release_function
from irgrad.ad.core.failures import bound_check, message_global, zero_bytes_check
from irgrad.ad.core.shadow_globals import unshadowed_memory
from irgrad.analysis.frees import is_allocation_call
from irgrad.analysis.known_functions import Allocator, allocator, callee_name
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.type_results import CopiedContents
from irgrad.analysis.underlying_objects import underlying_objects
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

_I64 = ir.i64
_UNTYPED = ("Cannot deduce type of the data copied by memcpy/memmove (nothing reads or "
            "writes it with a type)")


def copied_contents(gu: GradientUtils, call: ir.CallBase) -> CopiedContents:
    """What memcpy/memmove ``call`` moves; a located error when nothing says (but for a
    copy into a block the function allocated: unknown, checked by the reverse pass)."""
    dst, src, n = call.args[0], call.args[1], call.args[2]
    size = n.unsigned_value if isinstance(n, ir.ConstantInt) else None
    got = gu.types.copied_contents(dst, src, size)
    if not got.known:
        if _into_fresh_block(dst):
            return got
        raise gu.error(_UNTYPED, call)
    if not got.inactive and (not got.uniform or _integer_head(got)) and (
            size is None or -1 in got.fields):
        stride = _record_stride(n) if size is None else None
        records = got.records(stride) if stride is not None else None
        if records is not None:  # an array of records: each record field by field
            return records
        if size is None and got.inactive_prefix > 0:
            # bytes that carry no derivatives, then other data of the same object: a
            # string's inline buffer copied in a std::map<std::string, double> node
            prefix = got.prefix(got.inactive_prefix)
            prefix.mixed = _mixed(got)
            return prefix
        raise gu.error(_mixed(got), call)
    return got


def _integer_head(got: CopiedContents) -> bool:
    """The evidence says the copy begins with integers before its floating-point data
    (a ``std::string``'s characters written into the inline buffer of a
    ``std::map<std::string, double>`` node, whose ``double`` sits 16 bytes further): not
    an array of floats from its first byte."""
    head = got.inactive_prefix
    return head > 0 and any(0 <= off < head and ct.kind == "Integer"
                            for off, ct in got.fields.items())


def _record_stride(n: ir.Value) -> int | None:
    """The record size of a copy of ``count * size`` bytes (``mul``, or ``shl`` by a
    constant: C's ``n * sizeof *p``), else None."""
    while isinstance(n, ir.CastInst) and n.opcode in ("zext", "sext"):
        n = n.value
    if not isinstance(n, ir.BinaryOperator) or n.opcode not in ("mul", "shl"):
        return None
    a, c = n.operands
    if n.opcode == "mul" and isinstance(a, ir.ConstantInt) and not isinstance(c, ir.ConstantInt):
        a, c = c, a
    if not isinstance(c, ir.ConstantInt) or isinstance(a, ir.ConstantInt):
        return None
    stride = c.unsigned_value if n.opcode == "mul" else (
        1 << c.unsigned_value if c.unsigned_value < 32 else 0)
    return stride if 2 <= stride <= 1 << 20 else None


def _mixed(got: CopiedContents) -> str:
    """The error for a copy of run-time length over data of several kinds."""
    if got.pointers and got.floats:
        what = "floating-point values and pointers"
    elif len(got.floats) == 1:  # (integers first: :func:`_integer_head`)
        what = "integers and floating-point values"
    else:
        what = "floating-point values of different types (" + " and ".join(
            sorted(k or "float" for k in got.floats)) + ")"
    return (f"Cannot deduce type of the data copied by memcpy/memmove: it mixes {what} in "
            "a copy of run-time length")


def _check_prefix_bound(gu: GradientUtils, call: ir.CallBase, got: CopiedContents) -> None:
    """Before the forward pass's copy of run-time length over the inactive first bytes of
    mixed data (:func:`copied_contents`): abort with the located message should it copy
    more than those bytes, unless both buffers are their own shadows (memory no
    derivative reaches: a long string's heap buffer, where a short one's bytes sit
    inside the record)."""
    if got.size is None or isinstance(call.args[2], ir.ConstantInt):
        return
    new = gu.vmap[call]
    assert isinstance(new, ir.Instruction)
    b = IRBuilder(position=new)
    text = gu.error(f"{got.mixed}, and it copied more than the {got.size} bytes before them",
                    call)
    msg, size = message_global(gu.module, "irgrad: " + text.format())
    dst, src = call.args[0], call.args[1]
    b.call(bound_check(gu.module), [as_i64(b, gu.primal(call.args[2])),
                                    ir.ConstantInt(_I64, got.size),
                                    gu.primal(dst), gu.invert_pointer(dst, call),
                                    gu.primal(src), gu.invert_pointer(src, call),
                                    msg, ir.ConstantInt(_I64, size)])


def _into_fresh_block(dst: ir.Value) -> bool:
    """``dst`` points into a block this function allocated (or is null): its shadow
    starts at zero."""
    objs = underlying_objects(dst)
    blocks = [o for o in objs if not isinstance(o, ir.ConstantPointerNull)]
    return bool(blocks) and all(
        isinstance(o, ir.AllocaInst) or (isinstance(o, ir.CallInst) and is_allocation_call(o))
        for o in blocks)


def _expect_untouched(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    """The reverse of a copy of untyped bytes into a fresh block: nothing, provided no
    derivative reached the destination's shadow (else the located error, at run time)."""
    bb = call.parent
    assert bb is not None
    sdst = gu.lookup_shadow(call.args[0], bb, call)
    n = as_i64(b, gu.lookup_primal(call.args[2], bb))
    text = gu.error(_UNTYPED + ", and derivatives reached the bytes it copied", call)
    msg, size = message_global(gu.module, "irgrad: " + text.format())
    b.call(zero_bytes_check(gu.module), [sdst, n, msg, ir.ConstantInt(_I64, size)])


def _field_type(kind: str | None) -> ir.FloatType:
    return ir.FloatType(kind or "double")


def reverse_memtransfer(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    """memcpy/memmove: ``dsrc += ddst; ddst = 0`` for the floating-point data moved."""
    dst, src, n = call.args[0], call.args[1], call.args[2]
    if not gu.is_shadowed(dst):
        return
    bb = call.parent
    assert bb is not None
    if not gu.is_shadowed(src):  # constant source: the destination's adjoint is dropped
        sdst = gu.lookup_shadow(dst, bb, call)
        b.memset(sdst, 0, gu.lookup(_forward_guarded_length(gu, call), bb))
        return
    got = copied_contents(gu, call)
    if not got.known:
        _expect_untouched(gu, call, b)
        return
    if got.inactive or not got.floats:
        return
    sdst = gu.lookup_shadow(dst, bb, call)
    ssrc = gu.lookup_shadow(src, bb, call)
    if got.uniform or got.stride is not None:
        helper = memcpy_adjoint_helper(gu, _field_type(got.float_type)) if got.uniform \
            else record_fields_helper(gu, got, adjoint=True)
        b.call(helper, [ssrc, sdst, as_i64(b, gu.lookup_primal(n, bb))])
        return
    # a struct of known size, field by field: every destination adjoint is read (and
    # zeroed) before any is added to the source's, which a memmove may overlap
    fields = [(off, _field_type(ct.float_kind)) for off, ct in got.field_offsets("Float")]
    moved = []
    for off, t in fields:
        pd = b.gep(ir.i8, sdst, [ir.ConstantInt(_I64, off)])
        moved.append(b.load(t, pd))
        b.store(ir.ConstantFP(t, 0.0), pd)
    for (off, t), d in zip(fields, moved, strict=True):
        ps = b.gep(ir.i8, ssrc, [ir.ConstantInt(_I64, off)])
        b.store(b.fadd(b.load(t, ps), d), ps)


def forward_memtransfer(gu: GradientUtils, call: ir.CallBase) -> None:
    """A copy of pointers between shadowed buffers also copies their shadows; a copy of
    active floating-point data into memory without a shadow is an error."""
    dst, src = call.args[0], call.args[1]
    if gu.is_shadowed(src) and not gu.is_shadowed(dst):
        n = call.args[2]
        size = n.unsigned_value if isinstance(n, ir.ConstantInt) else None
        if gu.types.copied_contents(dst, src, size).float_type is not None:
            raise gu.error(unshadowed_memory(dst, "active data copied"), call)
    if not (gu.is_shadowed(dst) and gu.is_shadowed(src)):
        return
    got = copied_contents(gu, call)
    _check_prefix_bound(gu, call, got)
    if not got.pointers:  # (unknown bytes into a fresh block: no one reads pointers there)
        return
    new = gu.vmap[call]
    assert isinstance(new, ir.Instruction)
    b = IRBuilder()
    b.position_after(new)
    sdst, ssrc = gu.invert_pointer(dst, call), gu.invert_pointer(src, call)
    if got.uniform or got.stride is not None:
        n = unless_own_shadow(b, sdst, gu.primal(dst), gu.primal(call.args[2]))
        if got.uniform:
            b.call(call.callee, [sdst, ssrc, n, gu.primal(call.args[3])], call.function_type)
        else:  # each record's pointer fields
            b.call(record_fields_helper(gu, got, adjoint=False), [sdst, ssrc, as_i64(b, n)])
        return
    for off, _ in got.field_offsets("Pointer"):
        ps = b.gep(ir.i8, ssrc, [ir.ConstantInt(_I64, off)])
        pd = b.gep(ir.i8, sdst, [ir.ConstantInt(_I64, off)])
        b.store(b.load(ir.ptr, ps), pd)


def reverse_memset(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    dst = call.args[0]
    if not gu.is_shadowed(dst):
        return
    bb = call.parent
    assert bb is not None
    sdst = gu.lookup_shadow(dst, bb, call)
    b.memset(sdst, 0, gu.lookup(_forward_guarded_length(gu, call), bb))


def _forward_guarded_length(gu: GradientUtils, call: ir.CallBase) -> ir.Value:
    """The length of the shadow write that reverses memory call ``call``, computed in the
    forward pass where both ends are at hand (:func:`unless_own_shadow`): the reverse
    pass looks it up like any forward value."""
    new = gu.vmap[call]
    assert isinstance(new, ir.Instruction)
    fb = IRBuilder(position=new)
    dst = call.args[0]
    return unless_own_shadow(fb, gu.invert_pointer(dst, call), gu.primal(dst),
                             as_i64(fb, gu.primal(call.args[2])))


def realloc_carries_shadow(gu: GradientUtils, call: ir.CallInst) -> CopiedContents | None:
    """What ``q = realloc(p, n)`` moves, when the new shadow block must start as a copy of
    the old one (None: a zeroed block will do). The bytes may hold pointers -- their
    shadows, stored into the old shadow block, must be in the new one, where the code
    after the realloc reads them -- or floats of several kinds, or nothing says what:
    the old shadow's first bytes are then copied wholesale (its floats are adjoints,
    zero during the forward sweep in memory the function allocated), and the reverse
    moves them back (:func:`reverse_realloc`). Floating-point data of one kind alone
    needs no copy: its adjoints are added back."""
    got = gu.types.copied_contents(call, call.args[0], None)
    return got if shadow_moves_with_block(got) else None


def shadow_moves_with_block(got: CopiedContents) -> bool:
    """A realloc of a block of these contents copies its shadow into the new shadow
    block (:func:`realloc_carries_shadow`)."""
    return not (got.inactive or (got.float_type is not None and not got.pointers))


def old_block_bytes(gu: GradientUtils, b: IRBuilder, alloc: Allocator, args: list[ir.Value],
                    old: ir.Value, new_bytes: ir.Value) -> ir.Value:
    """How many bytes of the old block ``old`` (a shadow) a realloc to ``new_bytes``
    keeps: the old block's size (its usable size when the allocator is not told it)
    and at most ``new_bytes``."""
    if alloc.old_size_arg is not None:  # __rust_realloc says how big the old block was
        k = as_i64(b, args[alloc.old_size_arg])
    else:
        k = b.call(usable_size_function(gu), [old])
    umin = gu.module.get_or_insert_function("llvm.umin.i64", ir.FunctionType(_I64, [_I64, _I64]))
    return b.call(umin, [k, new_bytes])


def usable_size_function(gu: GradientUtils) -> ir.Function:
    return gu.libc("malloc_usable_size", ir.FunctionType(_I64, [ir.ptr]))


def reverse_realloc(gu: GradientUtils, call: ir.CallInst, b: IRBuilder) -> None:
    """``q = realloc(p, n)`` copied p's data into q. The new shadow dq started zeroed:
    ``dp[0:k] += dq[0:k]`` for the floats; or as a copy of dp
    (:func:`realloc_carries_shadow`): ``dp[0:k] = dq[0:k]``, the floats' adjoints being
    what they were plus what the code after the realloc added (dp's pointers, which only
    the dead block p's code used, take dq's). Then dq is released."""
    bb = call.parent
    assert bb is not None
    alloc = allocator(callee_name(call))
    assert alloc is not None
    old = gu.lookup_shadow(call.args[0], bb, call)
    new = gu.lookup_shadow(call, bb, call)
    args = [gu.lookup_primal(a, bb) for a in call.args]
    n = allocation_bytes(b, alloc, args)  # (reallocarray: a product)
    count = old_block_bytes(gu, b, alloc, args, old, as_i64(b, n))
    carried = realloc_carries_shadow(gu, call)
    if carried is None:
        got = gu.types.copied_contents(call, call.args[0], None)
        if got.float_type is not None:
            b.call(memcpy_adjoint_helper(gu, _field_type(got.float_type)), [old, new, count])
    elif carried.floats or not carried.known:
        b.memcpy(old, new, count)
    # freed now, or with the other shadows at the end when the block is also freed by a
    # function that did not allocate it (ad/core/deferred_frees.py: released once)
    gu.ensure_tape().defer_free(b, new, release_function(gu.module, "free"), now=True)


def memcpy_adjoint_helper(gu: GradientUtils, et: ir.FloatType) -> ir.Function:
    """``void @__irgrad_memcpy_adjoint_<t>(ptr dsrc, ptr ddst, i64 bytes)``: ``dsrc +=
    ddst; ddst = 0`` element by element, in the order that reads every ``ddst`` element
    before the sum into an overlapping ``dsrc`` changes it: a ``memmove`` that shifts a
    window left (``ddst`` below ``dsrc``) is undone from its last element down, one that
    shifts right from its first element up (a memcpy's buffers never overlap)."""
    name = f"__irgrad_memcpy_adjoint_{et}"
    fn = gu.module.get_function(name)
    if fn is not None:
        return fn
    fn = gu.module.get_or_insert_function(
        name, ir.FunctionType(ir.void, [ir.ptr, ir.ptr, _I64]))
    fn.linkage = "internal"
    fn.fn_attrs = ["nounwind"]
    dsrc, ddst, nbytes = fn.args
    dsrc.name, ddst.name, nbytes.name = "dsrc", "ddst", "bytes"

    def move(b: IRBuilder, i: ir.Value) -> None:
        pd = b.gep(et, ddst, [i], name="pd")
        vd = b.load(et, pd, name="vd")
        b.store(ir.ConstantFP(et, 0.0), pd)
        ps = b.gep(et, dsrc, [i], name="ps")
        b.store(b.fadd(b.load(et, ps, name="vs"), vd, name="sum"), ps)

    _element_loop(fn, alloc_size(et), read_from=ddst, write_to=dsrc, move=move)
    return fn


def _element_loop(fn: ir.Function, size: int, *, read_from: ir.Value, write_to: ir.Value,
                  move: Callable[[IRBuilder, ir.Value], None]) -> None:
    """The body of ``fn(..., i64 bytes)``: ``move(b, i)`` for each of the ``bytes / size``
    elements, from the last down when ``read_from`` lies below ``write_to`` (an
    overlapping copy to the right reads every element before a write changes it), else
    from the first up; then ``ret void``."""
    nbytes = fn.args[-1]
    entry = fn.append_basic_block("entry")
    pick = fn.append_basic_block("direction")
    up, down = fn.append_basic_block("up"), fn.append_basic_block("down")
    done = fn.append_basic_block("done")
    b = IRBuilder(entry)
    zero, one = ir.ConstantInt(_I64, 0), ir.ConstantInt(_I64, 1)
    n = b.udiv(nbytes, ir.ConstantInt(_I64, size), name="n")
    b.cond_br(b.icmp("eq", n, zero, name="empty"), done, pick)
    b.position_at_end(pick)
    b.cond_br(b.icmp("ult", read_from, write_to, name="below"), down, up)
    b.position_at_end(up)
    i = b.phi(_I64, [(zero, pick)], name="i")
    move(b, i)
    nxt = b.add(i, one, name="next")
    i.add_incoming(nxt, up)
    b.cond_br(b.icmp("ult", nxt, n, name="more"), up, done)
    b.position_at_end(down)
    k = b.phi(_I64, [(n, pick)], name="k")
    j = b.sub(k, one, name="j")
    move(b, j)
    k.add_incoming(j, down)
    b.cond_br(b.icmp("ne", j, zero, name="rest"), down, done)
    b.position_at_end(done)
    b.ret()


def record_fields_helper(gu: GradientUtils, got: CopiedContents, *, adjoint: bool
                         ) -> ir.Function:
    """For an array of records (``got.stride`` bytes each, :meth:`CopiedContents.records`)
    copied ``bytes`` long: ``adjoint``: ``void (ptr dsrc, ptr ddst, i64 bytes)`` moves
    each floating-point field's adjoint, ``dsrc += ddst; ddst = 0``; else ``void (ptr
    sdst, ptr ssrc, i64 bytes)`` copies each pointer field's shadow. A record's fields
    are all read before any is written, and the records are visited in the order that
    reads each before an overlapping write changes it (as :func:`memcpy_adjoint_helper`)."""
    stride = got.stride
    assert stride is not None
    kind = "Float" if adjoint else "Pointer"
    fields = [(off, _field_type(ct.float_kind) if adjoint else ir.ptr)
              for off, ct in got.field_offsets(kind)]
    sig = "_".join(f"{off}{t}" for off, t in fields)
    name = f"__irgrad_record_{'adjoints' if adjoint else 'shadows'}_{stride}_{sig}"
    fn = gu.module.get_function(name)
    if fn is not None:
        return fn
    fn = gu.module.get_or_insert_function(name, ir.FunctionType(ir.void, [ir.ptr, ir.ptr, _I64]))
    fn.linkage = "internal"
    fn.fn_attrs = ["nounwind"]
    write_to, read_from, nbytes = fn.args  # (dsrc, ddst) or (sdst, ssrc)
    write_to.name, read_from.name, nbytes.name = "to", "from", "bytes"

    def move(b: IRBuilder, i: ir.Value) -> None:
        base = b.mul(i, ir.ConstantInt(_I64, stride), name="base")
        ptrs, vals = [], []
        for off, t in fields:
            at = b.add(base, ir.ConstantInt(_I64, off))
            pr = b.gep(ir.i8, read_from, [at], name="pr")
            vals.append(b.load(t, pr, name="v"))
            if adjoint:
                b.store(ir.ConstantFP(t, 0.0), pr)
            ptrs.append(b.gep(ir.i8, write_to, [at], name="pw"))
        for (_, t), pw, v in zip(fields, ptrs, vals, strict=True):
            b.store(b.fadd(b.load(t, pw), v) if adjoint else v, pw)

    _element_loop(fn, stride, read_from=read_from, write_to=write_to, move=move)
    return fn


__all__ = [
    "copied_contents",
    "forward_memtransfer",
    "memcpy_adjoint_helper",
    "old_block_bytes",
    "realloc_carries_shadow",
    "record_fields_helper",
    "reverse_memset",
    "reverse_memtransfer",
    "reverse_realloc",
    "shadow_moves_with_block",
    "usable_size_function",
]
