"""The tangent of a floating-point atomic update of memory, ``atomicrmw fadd|fsub ptr p, v``
(``#pragma omp atomic``, ``std::atomic<double>::fetch_add``): the shadow ``p'`` takes
``p' ± v'``, and the old value the update returns has the old ``p'`` as its tangent. The
derivative runs serially (OpenMP regions run serially inside derivatives,
:mod:`irgrad.ad.core.openmp_serial`), so the shadow is updated without an atomic. Other
atomic operations on active memory (an exchange, a compare-and-exchange, a max) are
refused; integer atomics (reference counts) carry no tangent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.activity import has_float

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def visit_atomic(fp: ForwardPass, inst: ir.AtomicRMWInst | ir.AtomicCmpXchgInst) -> None:
    if not has_float(inst.type) or all(fp.tangent(o) is None for o in inst.operands):
        return
    if not isinstance(inst, ir.AtomicRMWInst) or inst.operation not in ("fadd", "fsub"):
        raise fp.error(inst, "atomic operations on active memory are not supported (only "
                       "an atomic add or subtract)")
    sp = fp.tangent(inst.pointer)
    tv = fp.tangent(inst.value)
    if sp is None:
        if tv is not None:
            raise fp.error(inst, "an active value is added atomically to memory that has no "
                           "shadow")
        return
    ptrs = sp if isinstance(sp, list) else [sp]
    adds = fp.lanes(tv, inst.type) if tv is not None else [None] * len(ptrs)
    old: list[ir.Value] = []
    for ptr, add in zip(ptrs, adds, strict=True):
        t = fp.b.load(inst.type, ptr, inst.align)
        old.append(t)
        if add is not None:
            new = fp.b.fadd(t, add) if inst.operation == "fadd" else fp.b.fsub(t, add)
            fp.b.store(new, ptr, inst.align)
    if inst.uses:
        fp.tangents[inst] = fp.pack(old, inst.type)


__all__ = ["visit_atomic"]
