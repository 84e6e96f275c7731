"""The order in which a reverse block adds its loads' adjoints to shadow memory.

A loop that reads neighbouring elements, ``u[j-1] + u[j+1]``, has a reverse loop that runs
``j`` downward and adds to ``du[j+1]`` and ``du[j-1]``. Iteration ``j`` adds to ``du[j-1]``
and iteration ``j-2`` adds to the same element through its ``du[j+1]``. Whether LLVM's
loop vectorizer can run several iterations at once depends on the order of the two
additions in the body:

- if the addition that reaches an element first (in iteration order) also comes first in
  the body, the dependence runs forward and every vector width is safe;
- in the other order it runs backward, and the width is limited to its distance (2 here),
  which in practice means a scalar loop.

The primal's order of reads is the user's (``u[j+1] + u[j-1]`` or the other way), and the
reverse pass reverses it, so the reverse pass chooses the order itself:

- **Which loads move.** In a stretch of a primal block whose other instructions' reverses
  never touch shadow memory (arithmetic, casts, GEPs, comparisons, selects, aggregate and
  vector element operations, intrinsics without memory effects), the loads' accumulations
  commute. The reverse emits them together at the end of the stretch's reverse (where
  its first instruction is reversed), when every use's adjoint has reached them.
- **Their order.** Loads from one base with the same variable part of the address
  (:func:`~irgrad.analysis.strided_access.affine_address`) differ by constant offsets.
  When the address moves by one element per iteration of the innermost loop, they are
  ordered by offset, increasing when the primal stride is positive (the reverse loop
  walks the addresses downward), decreasing when it is negative. Every other load keeps
  its place, strided ones included: a red-black sweep's ``u[j-1]``, ``u[j+1]`` with ``j``
  stepping by 2 vectorize only as gathers and scatters, which measured twice as slow as
  the scalar loop (AVX-512, znver4).

The results do not change: each element receives the same additions in the same order,
since the loads that trade places touch different elements of one iteration. (Accesses
through different bases keep their places; only if two such bases alias at run time can
the order of an element's additions change, by rounding, as the ``reassoc`` these
additions carry already allows.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.analysis.layout import alloc_size
from irgrad.analysis.loops import Loop
from irgrad.analysis.strided_access import AffineAddress, affine_address
from irgrad.analysis.trip_count import (
    InductionVariable,
    PointerInductionVariable,
    induction_variables,
    pointer_induction_variables,
)

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

# instructions whose reverse reads and writes only adjoint values, never shadow memory
_LOCAL = (ir.BinaryOperator, ir.UnaryOperator, ir.CastInst, ir.GetElementPtrInst,
          ir.CmpInst, ir.SelectInst, ir.ExtractValueInst, ir.InsertValueInst,
          ir.ExtractElementInst, ir.InsertElementInst, ir.ShuffleVectorInst, ir.FreezeInst)


def reverse_is_local(inst: ir.Instruction) -> bool:
    """Does the reverse of ``inst`` leave shadow memory alone (so a load's accumulation
    may move across it)?"""
    if isinstance(inst, _LOCAL):
        return True
    if isinstance(inst, ir.CallInst):
        fn = inst.called_function
        return (fn is not None and fn.is_declaration and fn.name.startswith("llvm.")
                and any(a in ("memory(none)", "readnone") for a in fn.attribute_texts()))
    return False


class _Strides:
    """Bytes an address moves per iteration of ``loop`` (its induction variables found
    once, on the first question)."""

    def __init__(self, loop: Loop) -> None:
        self.loop = loop
        self._ivs: list[InductionVariable] | None = None
        self._pivs: list[PointerInductionVariable] = []

    def of(self, address: AffineAddress) -> int | None:
        """The address's stride (None: not a known constant)."""
        if self._ivs is None:
            self._ivs = induction_variables(self.loop)
            self._pivs = pointer_induction_variables(self.loop)
        stride = 0
        for iv in self._ivs:
            coeff = address.coefficient(iv.phi)
            if coeff:
                if iv.constant_step is None:
                    return None
                stride += coeff * iv.constant_step
        for piv in self._pivs:
            if address.base is piv.phi:
                if piv.byte_step is None:
                    return None
                stride += piv.byte_step
        return stride


def accumulation_order(gu: GradientUtils, bb: ir.BasicBlock,
                       loads: list[ir.LoadInst]) -> list[ir.LoadInst]:
    """``loads`` (in the order the reverse pass met them) in the order their
    accumulations are emitted (see the module docstring)."""
    info = gu.loops.info
    loop = info.loop_for(bb) if info is not None and len(loads) > 1 else None
    if loop is None:
        return loads
    groups: dict[tuple[ir.Value, frozenset[tuple[ir.Value, int]]], list[int]] = {}
    offsets: dict[int, int] = {}
    strides: dict[tuple[ir.Value, frozenset[tuple[ir.Value, int]]], int] = {}
    stride_of = _Strides(loop)
    for pos, load in enumerate(loads):
        address = affine_address(load.pointer)
        if address is None:
            continue
        key = (address.base, address.terms)
        if key not in strides:
            stride = stride_of.of(address)
            if stride is None or abs(stride) != alloc_size(load.type):
                continue  # invariant, unknown, or strided (gathers and scatters)
            strides[key] = stride
        groups.setdefault(key, []).append(pos)
        offsets[pos] = address.offset
    out = list(loads)
    for key, positions in groups.items():
        if len(positions) < 2:
            continue
        sign = 1 if strides[key] > 0 else -1
        ordered = sorted(positions, key=lambda p: sign * offsets[p])  # stable: ties keep
        for slot, p in zip(positions, ordered, strict=True):
            out[slot] = loads[p]
    return out
