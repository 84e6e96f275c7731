"""Give every undefined vector lane a value (zero) before a function is differentiated.

Vectorized IR leaves lanes it never reads undefined: ``shufflevector %v, poison,
<1, poison>`` (InstCombine's "extract, extract, binop" fold), ``insertelement <4 x double>
poison, %s, 0``, constants such as ``<double 2.0, double poison>``. The primal never looks
at those lanes, but a derivative multiplies by them: the reverse of ``fmul <2 x double> %d,
%shift`` adds ``adjoint * %shift`` into ``%d``'s adjoint, and in the lanes nobody reads the
adjoint is ``0`` -- ``0 * poison`` is poison, which lowers to whatever the register held
(NaN, inf) and reaches the caller's shadow through the next store. Forward mode has the
same hazard (``poison * tangent``).

Choosing zero for an undefined lane is a refinement LLVM allows (poison and undef may
become any value), so the primal keeps its meaning, and every product with a dead lane's
zero adjoint (or tangent) is zero. Lanes of pointer vectors are left alone: no derivative
is multiplied by an address.
"""

from __future__ import annotations

from irgrad import ir


def _lane_type(t: ir.Type) -> ir.Type | None:
    """The element type of a vector of numbers (floats or integers, which may carry a
    float's bits), or None."""
    if isinstance(t, ir.VectorType) and isinstance(t.element, (ir.FloatType, ir.IntType)):
        return t.element
    return None


def _defined(c: ir.Value) -> ir.Value | None:
    """``c`` with its undefined lanes made zero, or None when it has none."""
    elem = _lane_type(c.type)
    if elem is None:
        return None
    if isinstance(c, ir.UndefValue):  # poison too
        return ir.ConstantAggregateZero(c.type)
    if not isinstance(c, ir.ConstantVector) or c.splat:
        return None
    elems = c.elements
    if not any(isinstance(e, ir.UndefValue) for e in elems):
        return None
    zero = ir.null_value(elem)
    return ir.ConstantVector(c.type, [zero if isinstance(e, ir.UndefValue) else e
                                      for e in elems])


def shuffle_mask(mask: ir.Value) -> list[int]:
    """A shuffle mask's lanes (``-1``: undefined)."""
    if isinstance(mask, ir.ConstantAggregateZero):
        return [0] * mask.type.count  # type: ignore[attr-defined]
    if isinstance(mask, ir.ConstantVector):
        return [e.value if isinstance(e, ir.ConstantInt) else -1  # type: ignore[attr-defined]
                for e in mask.elements]
    return [-1] * mask.type.count  # type: ignore[attr-defined]


def _i32_mask(lanes: list[int]) -> ir.Value:
    return ir.ConstantVector(ir.VectorType(len(lanes), ir.i32),
                             [ir.ConstantInt(ir.i32, k) for k in lanes])


def _define_shuffle(inst: ir.ShuffleVectorInst) -> bool:
    """Make the undefined result lanes of a shuffle of numbers zero."""
    if _lane_type(inst.type) is None:
        return False
    lanes = shuffle_mask(inst.mask)
    if all(k >= 0 for k in lanes):
        return False
    v1, v2 = inst.vector, inst.vector2
    n1 = v1.type.count  # type: ignore[attr-defined]
    if isinstance(v2, ir.UndefValue):
        # the second operand is unused: it becomes zero, and undefined lanes read it
        inst.set_operand(1, ir.ConstantAggregateZero(v2.type))
        inst.set_operand(2, _i32_mask([k if k >= 0 else n1 for k in lanes]))
        return True
    # both operands are read: shuffle with lane 0 in the undefined lanes, then a second
    # shuffle against zero puts zeros there (LLVM folds the pair into one)
    inst.set_operand(2, _i32_mask([max(k, 0) for k in lanes]))
    m = len(lanes)
    users = [u for u in inst.users]
    b = ir.IRBuilder(position=inst)
    b.position_after(inst)
    fix = b.shuffle_vector(inst, ir.ConstantAggregateZero(inst.type),
                           [i if k >= 0 else m for i, k in enumerate(lanes)],
                           name=f"{inst.name or 'shuffle'}.defined")
    for u in users:
        for i, op in enumerate(u.operands):
            if op is inst:
                u.set_operand(i, fix)
    return True


def define_undefined_lanes(fn: ir.Function) -> bool:
    """Rewrite ``fn`` so that no vector of numbers it computes with has an undefined lane;
    True when something changed."""
    changed = False
    for inst in list(fn.instructions()):
        if isinstance(inst, ir.ShuffleVectorInst):
            changed |= _define_shuffle(inst)
            operands = (0, 1)
        else:
            operands = tuple(range(len(inst.operands)))
        for i in operands:
            new = _defined(inst.operands[i])
            if new is not None:
                inst.set_operand(i, new)
                changed = True
    return changed


__all__ = ["define_undefined_lanes", "shuffle_mask"]
