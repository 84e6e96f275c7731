"""A compare-and-exchange of a floating-point value's bits -- how C11's ``_Atomic double
x; x += v`` and ``std::atomic<double>``'s updates compile (a ``load atomic``, the new
value computed, ``cmpxchg`` of their ``i64`` bits in a retry loop) -- becomes, in the
private copy the AD engine differentiates, the plain memory operations it performs when
no other thread intervenes: load the value (and, separately, its bits), compare the bits
with the expected ones, store the new value or the old one back, return the old bits and
the outcome as the instruction did. Activity analysis then sees the store of an active
value (before, nothing stored it: the derivative of the update was silently lost), and
reverse and forward mode differentiate it like any store; global activity counts a
``cmpxchg`` into a global as a store of its new value. Derivatives run serially (:mod:`irgrad.ad.core.openmp_serial`); the
user's functions keep their atomics."""

from __future__ import annotations

from irgrad import ir


def _float_bits(v: ir.Value) -> ir.Value | None:
    """The floating-point value whose bits ``v`` is (``bitcast double %x to i64``)."""
    if v.type.is_fp_or_fp_vector:
        return v
    if isinstance(v, ir.CastInst) and v.opcode == "bitcast" and v.value.type.is_float:
        return v.value
    return None


def _is_float_exchange(inst: ir.Instruction) -> bool:
    return (isinstance(inst, ir.AtomicCmpXchgInst) and not inst.volatile
            and _float_bits(inst.new_value) is not None)


def has_float_exchanges(fn: ir.Function) -> bool:
    """Whether ``fn`` compares-and-exchanges a floating-point value's bits."""
    return not fn.is_declaration and any(_is_float_exchange(i) for i in fn.instructions())


def lower_float_exchanges(fn: ir.Function) -> None:
    """Replace each such ``cmpxchg`` of ``fn`` (a copy only the derivative synthesis
    sees) by loads of the value and of its bits, a compare, a store and the ``{old bits,
    success}`` pair."""
    for inst in list(fn.instructions()):
        if not _is_float_exchange(inst):
            continue
        assert isinstance(inst, ir.AtomicCmpXchgInst)
        cast = inst.new_value
        new = _float_bits(cast)
        assert new is not None
        bits = inst.compare.type
        b = ir.IRBuilder(position=inst)
        b.debug_loc = inst.debug_loc
        # the value, and separately its bits (no integer operation on an active value:
        # the bits are compared, and returned for a retry loop that never retries)
        old = b.load(new.type, inst.pointer, inst.align)
        old_bits = old if new.type == bits else b.load(bits, inst.pointer, inst.align)
        same = b.icmp("eq", old_bits, inst.compare)
        b.store(b.select(same, new, old), inst.pointer, inst.align)
        pair = b.insert_value(ir.PoisonValue(inst.type), old_bits, [0])
        pair = b.insert_value(pair, same, [1])
        inst.replace_all_uses_with(pair)
        inst.erase_from_parent()
        if cast is not new and isinstance(cast, ir.Instruction) and not cast.uses:
            cast.erase_from_parent()  # the bits of an active value: nothing else reads them


__all__ = ["has_float_exchanges", "lower_float_exchanges"]
