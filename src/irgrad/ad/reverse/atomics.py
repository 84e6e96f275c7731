"""The reverse of a floating-point atomic update of memory, ``atomicrmw fadd|fsub ptr p, v``
(``#pragma omp atomic``, ``std::atomic<double>::fetch_add``): ``*p += v`` leaves the
adjoint of ``*p`` as it is and adds ``±d*p`` to ``v``'s. The derivative runs serially
(OpenMP regions run serially inside derivatives, :mod:`irgrad.ad.core.openmp_serial`), so
the shadow is read without an atomic. Other atomic operations on active memory (an
exchange, a compare-and-exchange, a max), and a use of the value an atomic add returned
that carries a derivative, are refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.activity import has_float

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils
    from irgrad.ir import IRBuilder


def reverse_atomic(gu: GradientUtils, inst: ir.AtomicRMWInst | ir.AtomicCmpXchgInst,
                   b: IRBuilder) -> None:
    if not (gu.is_shadowed(inst.pointer) and has_float(inst.type)):
        return
    if (not isinstance(inst, ir.AtomicRMWInst) or inst.operation not in ("fadd", "fsub")
            or (inst.uses and gu.is_varied(inst))):
        raise gu.error("atomic read-modify-write of active memory is not supported (only "
                       "an atomic add or subtract whose old value is not used)", inst)
    if not gu.is_varied(inst.value):
        return
    bb = inst.parent
    assert bb is not None
    sp = gu.lookup_shadow(inst.pointer, bb, inst)
    d = b.load(inst.type, sp, inst.align)
    gu.add_to_diffe(inst.value, d if inst.operation == "fadd" else b.fneg(d), b)


__all__ = ["reverse_atomic"]
