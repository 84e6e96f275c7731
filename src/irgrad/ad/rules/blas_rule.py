"""The record of a BLAS/LAPACK derivative rule, the operands it sees, and the registry.

A rule (:class:`BlasRule`, registered with :func:`def_blas`; the tables are
:mod:`irgrad.ad.rules.blas` and :mod:`irgrad.ad.rules.blas_lapack`) has:

* ``needs(o)``: the primal arrays the reverse pass reads, and whether it reads them as
  they were before the call (``"in"``) or after it (``"out"``) -- the synthesizer caches
  exactly those, and only when they may be overwritten;
* ``forward(e, o)``: the tangent, emitted before the primal call (``forward_before``: it
  reads inputs the call overwrites) or after it (it reads the call's outputs); returns the
  tangent of the result for routines that return a value;
* ``reverse(e, o)``: adds the adjoints into the shadows and scalar adjoints.

Rules see the operands through :class:`BlasOperands` (``o.v[role]`` the primal values,
``o.d[role]`` the shadows/tangents, None when inactive: an inactive operand gets no work)
and emit through :class:`~irgrad.ad.rules.blas_emit.BlasEmitter`, so one rule serves
CBLAS (either layout), Fortran and numba.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from irgrad import ir
from irgrad.ad.rules.blas_emit import BlasEmitter

Needs = list[tuple[str, str]]


@dataclass
class BlasOperands:
    """The operands of one BLAS call inside a derivative function."""

    v: dict[str, ir.Value]  # primal (arrays: the cached copy when one was made)
    d: dict[str, ir.Value | None]  # shadow pointers / scalar tangents (None: inactive)
    adjoints: dict[str, ir.Value] = field(default_factory=dict)  # reverse: scalar sums
    dret: ir.Value | None = None  # reverse: adjoint of the returned value
    temps: list[ir.Value] = field(default_factory=list)

    def active(self, role: str) -> bool:
        return self.d.get(role) is not None

    def add(self, e: BlasEmitter, role: str, value: ir.Value) -> None:
        """Reverse: add ``value`` to the adjoint of scalar ``role``."""
        if role in self.adjoints:
            self.adjoints[role] = e.b.fadd(self.adjoints[role], value)
        else:
            self.adjoints[role] = value

    def temp(self, e: BlasEmitter, count: ir.Value) -> ir.Value:
        """A scratch buffer of ``count`` elements (freed by the synthesizer)."""
        size = 8 if e.el == ir.double else 4
        bytes_ = e.b.mul(count, e.i64(size))
        buf = e.b.call(_malloc(e), [bytes_])
        e.b.memset(buf, 0, bytes_)
        self.temps.append(buf)
        return buf

    def scoped(self, e: BlasEmitter, body: Callable[[], None]) -> Callable[[], None]:
        """``body`` that frees the scratch buffers it made before it ends (for code in a
        branch: the buffers do not outlive it)."""
        def run() -> None:
            k = len(self.temps)
            body()
            m = e.b.module
            assert m is not None
            free = m.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
            for buf in self.temps[k:]:
                e.b.call(free, [buf])
            del self.temps[k:]
        return run

    def lt(self, e: BlasEmitter, transposed_l: bool) -> ir.Value:
        """The ``trans`` flag of a triangular operation with ``L`` (``transposed_l``:
        with ``L^T``) on the stored triangle (upper: ``L = U^T``)."""
        return e.b.xor(self.v["uplo"], ir.ConstantInt(ir.i1, int(transposed_l)))


def _malloc(e: BlasEmitter) -> ir.Function:
    m = e.b.module
    assert m is not None
    return m.get_or_insert_function("malloc", ir.FunctionType(ir.ptr, [ir.i64]))


@dataclass(frozen=True)
class BlasRule:
    name: str
    needs: Callable[[BlasOperands], Needs]
    forward: Callable[[BlasEmitter, BlasOperands], ir.Value | None]
    reverse: Callable[[BlasEmitter, BlasOperands], None]
    forward_before: bool  # the tangent is emitted before the primal call
    # a part of the tangent emitted before the primal call when the rest comes after
    forward_pre: Callable[[BlasEmitter, BlasOperands], None] | None = None


BLAS_RULES: dict[str, BlasRule] = {}


def def_blas(name: str, needs: Callable[[BlasOperands], Needs],
             forward: Callable[[BlasEmitter, BlasOperands], ir.Value | None],
             reverse: Callable[[BlasEmitter, BlasOperands], None], *,
             forward_before: bool = False,
             forward_pre: Callable[[BlasEmitter, BlasOperands], None] | None = None) -> None:
    """Register the derivative rule of routine ``name``."""
    BLAS_RULES[name] = BlasRule(name, needs, forward, reverse, forward_before, forward_pre)


def needs_when(o: BlasOperands, out: str, pairs: list[tuple[str, str, list[str]]]) -> Needs:
    """What a reverse rule reads when ``out`` is active: ``(role, when)`` for each pair
    ``(role, when, roles)`` where one of ``roles`` is active (``("A", "in", ["x",
    "alpha"])``: A as passed, for x's or alpha's adjoint)."""
    if not o.active(out):
        return []
    return [(role, when) for role, when, cond in pairs if any(o.active(c) for c in cond)]


def no_needs(o: BlasOperands) -> Needs:
    return []


__all__ = ["BLAS_RULES", "BlasOperands", "BlasRule", "Needs", "def_blas", "needs_when",
           "no_needs"]
