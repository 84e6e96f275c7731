"""Element-wise helpers of the BLAS rules: the O(n^2) work no BLAS routine does
(triangle masks, restricted outer products, scratch copies), as loops around scalar
loads and stores. The O(n^3) work stays in BLAS calls."""

from __future__ import annotations

from collections.abc import Callable

from irgrad import ir
from irgrad.ad.rules.blas_emit import BlasEmitter
from irgrad.ad.rules.blas_rule import BlasOperands


def each(e: BlasEmitter, n: ir.Value, body: Callable[[ir.Value, ir.Value], None],
         lower_only: bool = True, rows: ir.Value | None = None) -> None:
    """``for j < n: for i < rows (i >= j when lower_only): body(i, j)``."""
    def outer(j: ir.Value) -> None:
        if lower_only:
            e.loop(e.b.sub(n, j), lambda k: body(e.b.add(j, k), j))
        else:
            e.loop(rows if rows is not None else n, lambda i: body(i, j))
    e.loop(n, outer)


def vec_elem(e: BlasEmitter, x: ir.Value, inc: ir.Value, n: ir.Value, i: ir.Value) -> ir.Value:
    """Pointer to element ``i`` of a BLAS vector (a negative increment starts at the end)."""
    b = e.b
    neg = b.icmp("slt", inc, e.i64(0))
    k = b.select(neg, b.sub(b.sub(n, e.i64(1)), i), i)
    step = b.select(neg, b.sub(e.i64(0), inc), inc)
    return b.gep(e.el, x, [b.mul(k, step)])


def copy_matrix(e: BlasEmitter, o: BlasOperands, rows: ir.Value, cols: ir.Value,
                src: ir.Value, ld: ir.Value) -> tuple[ir.Value, ir.Value]:
    """A rows x cols scratch copy of ``src``: (buffer, its leading dimension)."""
    tld = e.b.select(e.row_major(), cols, rows)
    buf = o.temp(e, e.b.mul(rows, cols))
    e.mat_axpy(rows, cols, e.fp(1.0), src, ld, buf, tld)
    return buf, tld


def square(e: BlasEmitter, o: BlasOperands, n: ir.Value) -> ir.Value:
    """A zeroed n x n scratch matrix (leading dimension n)."""
    return o.temp(e, e.b.mul(n, n))


def in_triangle(e: BlasEmitter, upper: ir.Value, unit: ir.Value | None, i: ir.Value,
                j: ir.Value) -> ir.Value:
    """(i, j) is in the stored triangle (without the diagonal of a unit triangle)."""
    b = e.b
    tri = b.select(upper, b.icmp("sle", i, j), b.icmp("sge", i, j))
    if unit is None:
        return tri
    return b.and_(tri, b.not_(b.and_(unit, b.icmp("eq", i, j))))


def tri_accumulate(e: BlasEmitter, n: ir.Value, upper: ir.Value, unit: ir.Value | None,
                   dst: ir.Value, ldd: ir.Value, g: ir.Value, ldg: ir.Value, *,
                   symmetric: bool) -> None:
    """dst += G on dst's stored triangle; ``symmetric``: the triangle stands for a
    symmetric matrix, so an off-diagonal entry gets G(i, j) + G(j, i)."""
    b = e.b

    def body(i: ir.Value, j: ir.Value) -> None:
        p = e.at(dst, ldd, i, j)
        gij = b.load(e.el, e.at(g, ldg, i, j))
        if symmetric:
            gji = b.load(e.el, e.at(g, ldg, j, i))
            gij = b.select(b.icmp("eq", i, j), gij, b.fadd(gij, gji))
        old = b.load(e.el, p)
        keep = in_triangle(e, upper, unit, i, j)
        b.store(b.select(keep, b.fadd(old, gij), old), p)
    each(e, n, body, lower_only=False)


__all__ = ["copy_matrix", "each", "in_triangle", "square", "tri_accumulate", "vec_elem"]
