"""What the derivative rules of flang's runtime (:mod:`irgrad.ad.rules.fortran`) emit:
descriptors made from others (a *view* is a primal descriptor with another base address,
the shadow array's; a matrix view of a vector; a transposed view), calls of the runtime
again (the reductions, ``MATMUL``, ``TRANSPOSE``, ``Assign``, ``CopyInAssign`` for the
tape's copies) and of the helpers of :mod:`irgrad.ad.rules.fortran_helpers`.

A view has the primal's shape because a shadow array has its primal's layout: the shadow
descriptors themselves are never read for shapes (reverse mode keeps only their base
addresses up to date).
"""

from __future__ import annotations

from dataclasses import dataclass

from irgrad import ir
from irgrad.ad.rules.fortran_helpers import (
    c64,
    count_function,
    dim_field,
    dot_function,
    elem_len,
    extremum_function,
    fatal,
    field,
    field_ptr,
    rank,
    reallocates_function,
    release_function,
    slice_function,
)
from irgrad.ad.rules.fortran_typeinfo import update_function
from irgrad.analysis.fortran_runtime import (
    ADDENDUM_BYTES,
    ADDENDUM_FLAG,
    ATTRIBUTE_ALLOCATABLE,
    ATTRIBUTE_OFFSET,
    DIM_BYTES,
    EXTENT_OFFSET,
    EXTRA_OFFSET,
    HEADER_BYTES,
    MAX_DESCRIPTOR_BYTES,
    RANK_OFFSET,
)
from irgrad.ir.builder import IRBuilder

_DESC_TYPE = ir.ArrayType(MAX_DESCRIPTOR_BYTES // 8, ir.i64)
_ELEMENT_NAMES = {"double": "8", "float": "4"}


@dataclass
class DescriptorEmitter:
    """Emits descriptor code at ``b`` inside derivative function ``fn``; ``element`` is the
    routine's real kind (``"double"``/``"float"``, None: read from the descriptors) and
    ``source``/``line`` what the runtime call was given (its error messages point there)."""

    b: IRBuilder
    fn: ir.Function
    element: str | None
    source: ir.Value
    line: ir.Value
    temps: ir.Value | None = None  # forward mode: slots of the zero arrays to free
    temp_count: int = 0

    @property
    def module(self) -> ir.Module:
        m = self.fn.parent
        assert m is not None
        return m

    @property
    def el(self) -> ir.Type:
        return ir.float_ if self.element == "float" else ir.double

    def fp(self, v: float) -> ir.Value:
        return ir.ConstantFP(self.el, v)

    def to_double(self, v: ir.Value) -> ir.Value:
        return v if v.type == ir.double else self.b.fpext(v, ir.double)

    # -- descriptors ---------------------------------------------------------------------
    def new_descriptor(self) -> ir.Value:
        """Room for any descriptor (rank 15 and an addendum), on the function's frame."""
        eb = IRBuilder()
        eb.position_at_start(self.fn.blocks[0])
        return eb.alloca(_DESC_TYPE, align=8)

    def new_slot(self, ty: ir.Type) -> ir.Value:
        """A local of type ``ty`` on the function's frame."""
        eb = IRBuilder()
        eb.position_at_start(self.fn.blocks[0])
        return eb.alloca(ty)

    def size(self, d: ir.Value) -> ir.Value:
        """The bytes of descriptor ``d``: header, dimensions, and the addendum's derived type
        and first length parameter when it has one."""
        b = self.b
        dims = b.add(c64(HEADER_BYTES), b.mul(rank(b, d), c64(DIM_BYTES)))
        extra = field(b, d, EXTRA_OFFSET, ir.i8)
        flag = b.and_(extra, ir.ConstantInt(ir.i8, ADDENDUM_FLAG))
        has = b.icmp("ne", flag, ir.ConstantInt(ir.i8, 0))
        return b.add(dims, b.select(has, c64(ADDENDUM_BYTES), c64(0)))

    def base(self, d: ir.Value) -> ir.Value:
        return self.b.load(ir.ptr, d)

    def view_into(self, dst: ir.Value, src: ir.Value, base: ir.Value) -> None:
        """``dst`` = descriptor ``src`` with base address ``base``."""
        self.b.memcpy(dst, src, self.size(src))
        self.b.store(base, dst)

    def view(self, src: ir.Value, base: ir.Value) -> ir.Value:
        dst = self.new_descriptor()
        self.view_into(dst, src, base)
        return dst

    def shadow_base(self, primal: ir.Value, shadow: ir.Value) -> ir.Value:
        """The shadow array's address; null when there is none -- null already, or the
        primal array itself (the shadow of a constant in forward mode, runtime activity)."""
        b = self.b
        sb = self.base(shadow)
        own = b.icmp("ne", sb, self.base(primal))
        return b.select(own, sb, ir.ConstantPointerNull(ir.ptr))

    def shadow_view(self, primal: ir.Value, shadow: ir.Value) -> ir.Value:
        """The shadow array of descriptor ``primal``: its shape, the shadow's base."""
        return self.view(primal, self.shadow_base(primal, shadow))

    def tangent(self, primal: ir.Value, shadow: ir.Value) -> ir.Value:
        """Forward mode: the tangent array of input ``primal`` -- its shadow, or zeros when
        it has none (a null base: the shadow of a constant); the zeros are freed by
        :meth:`free_temps`."""
        b = self.b
        view = self.shadow_view(primal, shadow)
        if self.temps is None:
            self.temps = self.new_descriptor()
        assert self.temp_count < MAX_DESCRIPTOR_BYTES // 8
        slot = b.gep(ir.ptr, self.temps, [c64(self.temp_count)])
        self.temp_count += 1
        b.store(ir.ConstantPointerNull(ir.ptr), slot)
        _, join = self.if_then(b.icmp("eq", self.base(view), ir.ConstantPointerNull(ir.ptr)),
                               "zeros")
        zeros = self.zeroed_block(primal)
        b.store(zeros, view)
        b.store(zeros, slot)
        self.join(join)
        return view

    def free_temps(self) -> None:
        if self.temps is None:
            return
        for k in range(self.temp_count):
            self.free(self.b.load(ir.ptr, self.b.gep(ir.ptr, self.temps, [c64(k)])))
        self.temps, self.temp_count = None, 0

    def set_attribute(self, d: ir.Value, attribute: int) -> None:
        self.b.store(ir.ConstantInt(ir.i8, attribute), field_ptr(self.b, d, ATTRIBUTE_OFFSET))

    def result_template(self, like: ir.Value, result_rank: int) -> ir.Value:
        """An unallocated allocatable descriptor of ``like``'s type for a runtime call that
        allocates its result (``MATMUL``, ``TRANSPOSE``: they establish it)."""
        b = self.b
        d = self.new_descriptor()
        b.memcpy(d, like, c64(HEADER_BYTES))
        b.store(ir.ConstantPointerNull(ir.ptr), d)
        b.store(ir.ConstantInt(ir.i8, result_rank), field_ptr(b, d, RANK_OFFSET))
        self.set_attribute(d, ATTRIBUTE_ALLOCATABLE)
        b.store(ir.ConstantInt(ir.i8, 0), field_ptr(b, d, EXTRA_OFFSET))
        return d

    def matrix(self, d: ir.Value, as_row: ir.Value) -> ir.Value:
        """A rank-2 view of a vector or matrix ``d``: a vector of n elements is a 1 x n row
        (``as_row``) or an n x 1 column; a matrix is itself."""
        b = self.b
        out = self.view(d, self.base(d))
        vector = self.is_vector(d)
        old = [field(b, out, HEADER_BYTES + 8 * j, ir.i64) for j in range(6)]
        vec = old[:3]
        unit = [c64(1), c64(1), b.mul(vec[1], vec[2])]
        first = [b.select(as_row, u, v) for u, v in zip(unit, vec, strict=True)]
        second = [b.select(as_row, v, u) for u, v in zip(unit, vec, strict=True)]
        for j, want in enumerate([*first, *second]):
            b.store(b.select(vector, want, old[j]), field_ptr(b, out, HEADER_BYTES + 8 * j))
        b.store(ir.ConstantInt(ir.i8, 2), field_ptr(b, out, RANK_OFFSET))
        return out

    def transposed(self, d: ir.Value) -> ir.Value:
        """A view of matrix ``d`` with its two dimensions swapped."""
        b = self.b
        out = self.view(d, self.base(d))
        first = [field(b, d, HEADER_BYTES + 8 * j, ir.i64) for j in range(3)]
        second = [field(b, d, HEADER_BYTES + DIM_BYTES + 8 * j, ir.i64) for j in range(3)]
        for j in range(3):
            b.store(second[j], field_ptr(b, out, HEADER_BYTES + 8 * j))
            b.store(first[j], field_ptr(b, out, HEADER_BYTES + DIM_BYTES + 8 * j))
        return out

    def slice(self, d: ir.Value, dim: ir.Value, index: ir.Value) -> ir.Value:
        """The section of ``d`` at zero-based ``index`` along zero-based ``dim``."""
        out = self.new_descriptor()
        self.b.call(slice_function(self.module), [out, d, dim, index])
        return out

    def extent(self, d: ir.Value, dim: ir.Value) -> ir.Value:
        return dim_field(self.b, d, dim, EXTENT_OFFSET)

    def is_vector(self, d: ir.Value) -> ir.Value:
        return self.b.icmp("eq", rank(self.b, d), c64(1))

    # -- memory --------------------------------------------------------------------------
    def _lib(self, name: str, ft: ir.FunctionType) -> ir.Function:
        return self.module.get_or_insert_function(name, ft)

    def bytes_of(self, d: ir.Value) -> ir.Value:
        """The bytes of the array ``d`` describes (at least 1, as the runtime allocates)."""
        b = self.b
        n = b.mul(elem_len(b, d), b.call(count_function(self.module), [d]))
        return b.select(b.icmp("eq", n, c64(0)), c64(1), n)

    def zeroed_block(self, d: ir.Value) -> ir.Value:
        """A zero-filled block of the size of ``d``'s array (``calloc``, which the
        runtime's ``free`` and the program's release)."""
        calloc = self._lib("calloc", ir.FunctionType(ir.ptr, [ir.i64, ir.i64]))
        return self.b.call(calloc, [c64(1), self.bytes_of(d)])

    def malloc(self, n: ir.Value) -> ir.Value:
        return self.b.call(self._lib("malloc", ir.FunctionType(ir.ptr, [ir.i64])), [n])

    def free(self, p: ir.Value) -> None:
        self.b.call(self._lib("free", ir.FunctionType(ir.void, [ir.ptr])), [p])

    def release(self, view: ir.Value) -> None:
        """Free the shadow array ``view`` describes now (forward mode)."""
        self.b.call(release_function(self.module), [view])

    # -- the runtime ---------------------------------------------------------------------
    def runtime(self, name: str, ret: ir.Type, args: list[ir.Value]) -> ir.Value:
        ft = ir.FunctionType(ret, [a.type for a in args])
        fn = self.module.get_function(name) or self.module.get_or_insert_function(name, ft)
        return self.b.call(fn, args, fn.function_type)

    def matmul(self, result: ir.Value, x: ir.Value, y: ir.Value, transpose_x: bool = False
               ) -> None:
        k = _ELEMENT_NAMES[self.element or "double"]
        name = f"_FortranAMatmul{'Transpose' if transpose_x else ''}Real{k}Real{k}"
        self.runtime(name, ir.void, [result, x, y, self.source, self.line])

    def copy(self, slot: ir.Value, var: ir.Value) -> None:
        """``slot`` = a contiguous copy of array ``var`` (the runtime allocates it)."""
        self.runtime("_FortranACopyInAssign", ir.void, [slot, var, self.source, self.line])

    def assign(self, to: ir.Value, frm: ir.Value) -> None:
        self.runtime("_FortranAAssign", ir.void, [to, frm, self.source, self.line])

    # -- the helpers ---------------------------------------------------------------------
    def update(self, y: ir.Value, x: ir.Value | None, alpha: ir.Value, *,
               mask: ir.Value | None = None, keep: bool = True) -> None:
        """``y = (keep ? y : 0) + alpha * (x or 1)`` element by element (where ``mask``)."""
        null = ir.ConstantPointerNull(ir.ptr)
        self.b.call(update_function(self.module), [
            y, x if x is not None else null, mask if mask is not None else null,
            self.to_double(alpha), ir.ConstantInt(ir.i1, int(keep)), self.source, self.line])

    def zero(self, y: ir.Value) -> None:
        self.update(y, None, ir.ConstantFP(ir.double, 0.0), keep=False)

    def add(self, y: ir.Value, x: ir.Value, alpha: float = 1.0) -> None:
        self.update(y, x, ir.ConstantFP(ir.double, alpha))

    def dot(self, x: ir.Value, y: ir.Value) -> ir.Value:
        """``sum(x * y)`` over two real arrays of any rank, as a ``double``."""
        return self.b.call(dot_function(self.module), [x, y])

    def extremum(self, x: ir.Value, mask: ir.Value, is_max: bool) -> ir.Value:
        """The byte offset of the first maximum (minimum) of ``x`` where ``mask``; -1: none."""
        return self.b.call(extremum_function(self.module),
                           [x, mask, ir.ConstantInt(ir.i1, int(is_max))])

    def reallocates(self, to: ir.Value, frm: ir.Value) -> ir.Value:
        return self.b.call(reallocates_function(self.module), [to, frm])

    def fatal(self, message: str) -> None:
        """A run-time error at the Fortran line of the call (the block ends)."""
        fatal(self.b, self.module, message, self.source, self.line)

    def if_then(self, cond: ir.Value, label: str) -> tuple[ir.BasicBlock, ir.BasicBlock]:
        """Branch on ``cond``: the builder goes to the then-block; returns (then, join)
        -- the caller emits the then-part and calls :meth:`join`."""
        then, join = self.fn.append_basic_block(label), self.fn.append_basic_block(
            label + ".end")
        self.b.cond_br(cond, then, join)
        self.b.position_at_end(then)
        return then, join

    def join(self, join: ir.BasicBlock) -> None:
        self.b.br(join)
        self.b.position_at_end(join)


__all__ = ["DescriptorEmitter"]
