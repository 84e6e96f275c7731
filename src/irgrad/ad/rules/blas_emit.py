"""Emitting BLAS calls in the family a derivative differentiates.

The BLAS rules (:mod:`irgrad.ad.rules.blas`) are written against :class:`BlasEmitter`:
logical operations (``dot``, ``axpy``, ``gemv``, ``gemm``, ``trmm``...) on IR values in
one internal form -- sizes ``i64``, flags ``i1`` (``trans``: transposed; ``uplo``:
upper), scalars of the element type, arrays as pointers. The emitter lowers each to a
call in the family of the call being differentiated, so a derivative adds no link
dependency:

* CBLAS: ``cblas_<p><r>`` with the original layout (row- or column-major: the rules'
  algebra on op(A) holds in either);
* Fortran: ``<p><r>_`` with every argument stored to a stack slot (hidden string lengths
  appended when the module declares the routine with them);
* numba: ``numba_xxdot``/``numba_xxnrm2``/``numba_xxgemv``/``numba_xxgemm`` where they
  serve (numba's helper library has no axpy or ger: level 1 and ``ger`` become
  ``numba_xxgemm`` with ``k = 1``, and ``alpha = 0`` scales by ``beta``). What the
  helpers lack (``trsm``, ``trmm``, ``swap``, ``getrs``, ... for the LAPACK rules) is
  called in Fortran's convention (32-bit integers by reference, no hidden string
  lengths) as ``irgrad_scipy_<p><r>``: the numba front end binds those names to SciPy's
  ``cython_blas``/``cython_lapack``, the library numba's own LAPACK helpers call
  (:data:`SCIPY_PREFIX`), so a derivative links nothing numba's process lacks.

Element-wise work with no BLAS routine (a matrix axpy/dot over columns with a leading
dimension, triangle masks) is a small loop around level-1 calls (:meth:`columns`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from irgrad import ir
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder

_CBLAS_ROW, _CBLAS_COL = 101, 102
_CBLAS_N, _CBLAS_T = 111, 112
_CBLAS_UPPER, _CBLAS_LOWER = 121, 122
_CBLAS_LEFT, _CBLAS_RIGHT = 141, 142
_CBLAS_NONUNIT, _CBLAS_UNIT = 131, 132
SCIPY_PREFIX = "irgrad_scipy_"  # numba family: BLAS/LAPACK its helper library lacks


class BlasEmitter:
    """Emits BLAS calls of one family (``"cblas"``, ``"fortran"``, ``"numba"``) for one
    element type at the builder's position."""

    def __init__(self, b: IRBuilder, family: str, element: ir.Type, int_type: ir.Type,
                 layout: ir.Value | None = None, hidden_lengths: bool = False) -> None:
        self.b = b
        self.family = family
        self.el = element
        self.int = int_type  # the family's integer (i32, or i64 for ILP64 and numba)
        self.layout = layout  # CBLAS: the original layout value (None: column-major)
        self.hidden = hidden_lengths
        self.p = "d" if element == ir.double else "s"

    # -- values ---------------------------------------------------------------------------
    def fp(self, x: float) -> ir.Value:
        return ir.ConstantFP(self.el, x)

    def i64(self, x: int) -> ir.Value:
        return ir.ConstantInt(ir.i64, x)

    def row_major(self) -> ir.Value:
        """i1: the CBLAS layout is row-major (false for the other families)."""
        if self.layout is None:
            return ir.ConstantInt(ir.i1, 0)
        return self.b.icmp("eq", self.layout, ir.ConstantInt(self.layout.type, _CBLAS_ROW))

    def flip(self, t: ir.Value) -> ir.Value:
        return self.b.xor(t, ir.ConstantInt(ir.i1, 1))

    def _int(self, v: ir.Value) -> ir.Value:
        return v if v.type == self.int else self.b.trunc(v, self.int)

    def _int32(self, v: ir.Value) -> ir.Value:
        """SciPy's BLAS/LAPACK (numba family) take 32-bit integers."""
        return v if v.type == ir.i32 else self.b.trunc(v, ir.i32)

    def _entry_slot(self, ty: ir.Type) -> ir.Value:
        fn = self.b.function
        assert fn is not None
        entry = fn.blocks[0]
        b = IRBuilder()
        b.position_at_start(entry)
        return b.alloca(ty)

    def _ref(self, v: ir.Value) -> ir.Value:
        slot = self._entry_slot(v.type)
        self.b.store(v, slot)
        return slot

    def _char(self, flag: ir.Value, yes: str, no: str) -> ir.Value:
        return self.b.select(flag, ir.ConstantInt(ir.i8, ord(yes)), ir.ConstantInt(ir.i8, ord(no)))

    def _cblas_enum(self, flag: ir.Value, yes: int, no: int) -> ir.Value:
        return self.b.select(flag, ir.ConstantInt(ir.i32, yes), ir.ConstantInt(ir.i32, no))

    def _layout_arg(self) -> ir.Value:
        return self.layout if self.layout is not None else ir.ConstantInt(ir.i32, _CBLAS_COL)

    # -- calls ----------------------------------------------------------------------------
    def _call(self, routine: str, ret: ir.Type, args: Sequence[tuple[str, ir.Value]]) -> ir.Value:
        """Call ``routine`` with (kind, value) arguments: kind ``int``, ``fp``, ``ptr``,
        ``trans``/``uplo``/``side``/``diag`` (i1 flags)."""
        b = self.b
        chars = 0
        if self.family == "cblas":
            name = f"cblas_{self.p}{routine}"
            vals: list[ir.Value] = []
            for kind, v in args:
                if kind == "int":
                    vals.append(self._int(v))
                elif kind == "trans":
                    vals.append(self._cblas_enum(v, _CBLAS_T, _CBLAS_N))
                elif kind == "uplo":
                    vals.append(self._cblas_enum(v, _CBLAS_UPPER, _CBLAS_LOWER))
                elif kind == "side":
                    vals.append(self._cblas_enum(v, _CBLAS_RIGHT, _CBLAS_LEFT))
                elif kind == "diag":
                    vals.append(self._cblas_enum(v, _CBLAS_UNIT, _CBLAS_NONUNIT))
                elif kind == "layout":
                    vals.append(self._layout_arg())
                else:
                    vals.append(v)
        elif self.family in ("fortran", "numba"):
            numba = self.family == "numba"
            name = f"{SCIPY_PREFIX}{self.p}{routine}" if numba else f"{self.p}{routine}_"
            vals = []
            for kind, v in args:
                if kind == "layout":
                    continue
                if kind == "int":
                    vals.append(self._ref(self._int32(v) if numba else self._int(v)))
                elif kind == "fp":
                    vals.append(self._ref(v))
                elif kind in ("trans", "uplo", "side", "diag"):
                    chars += 1
                    yes, no = {"trans": "TN", "uplo": "UL", "side": "RL", "diag": "UN"}[kind]
                    vals.append(self._ref(self._char(v, yes, no)))
                else:
                    vals.append(v)
        else:
            raise DifferentiationError(f"internal: no {routine} in family {self.family}")
        ft = ir.FunctionType(ret, [v.type for v in vals])
        module = b.module
        assert module is not None
        fn = module.get_function(name)
        if fn is not None and fn.function_type != ft:
            extra = len(fn.args) - len(vals)
            if self.family == "fortran" and extra == chars and extra > 0:
                vals += [ir.ConstantInt(p, 1) for p in fn.function_type.params[len(vals):]]
                ft = fn.function_type
            else:
                raise DifferentiationError(
                    f"{name} is declared as {fn.function_type}, but its derivative needs "
                    f"to call it as {ft}")
        else:
            fn = module.get_or_insert_function(name, ft)
        return b.call(fn, vals, ft)

    # numba's helpers (column-major, unit increments, scalars by reference)
    def _numba_kind(self) -> ir.Value:
        return ir.ConstantInt(ir.i8, ord(self.p))

    def _numba_gemm(self, ta: ir.Value, tb: ir.Value, m: ir.Value, n: ir.Value,
                    k: ir.Value, alpha: ir.Value, a: ir.Value, lda: ir.Value, bb: ir.Value,
                    ldb: ir.Value, beta: ir.Value, c: ir.Value, ldc: ir.Value) -> None:
        i64, p = ir.i64, ir.ptr
        ft = ir.FunctionType(ir.i32, [ir.i8, ir.i8, ir.i8, i64, i64, i64, p, p, i64, p, i64,
                                      p, p, i64])
        fn = self._module().get_or_insert_function("numba_xxgemm", ft)
        self.b.call(fn, [self._numba_kind(), self._char(ta, "T", "N"), self._char(tb, "T", "N"),
                         m, n, k, self._ref(alpha), a, lda, bb, ldb, self._ref(beta), c, ldc])

    def _module(self) -> ir.Module:
        m = self.b.module
        assert m is not None
        return m

    def _unit(self, *incs: ir.Value) -> None:
        for inc in incs:
            if not (isinstance(inc, ir.ConstantInt) and inc.value == 1):
                raise DifferentiationError("internal: numba's BLAS helpers take unit strides")

    # -- level 1 --------------------------------------------------------------------------
    def dot(self, n: ir.Value, x: ir.Value, incx: ir.Value, y: ir.Value,
            incy: ir.Value) -> ir.Value:
        if self.family == "numba":
            out = self._entry_slot(self.el)
            if _is_one(incx) and _is_one(incy):
                ft = ir.FunctionType(ir.i32, [ir.i8, ir.i8, ir.i64, ir.ptr, ir.ptr, ir.ptr])
                fn = self._module().get_or_insert_function("numba_xxdot", ft)
                self.b.call(fn, [self._numba_kind(), ir.ConstantInt(ir.i8, 0), n, x, y, out])
            else:  # strided: (1 x n, ld incx) times (1 x n, ld incy)^T
                f, t, one = ir.ConstantInt(ir.i1, 0), ir.ConstantInt(ir.i1, 1), self.i64(1)
                self._numba_gemm(f, t, one, one, n, self.fp(1.0), x, incx, y, incy,
                                 self.fp(0.0), out, one)
            return self.b.load(self.el, out)
        return self._call("dot", self.el, [("int", n), ("ptr", x), ("int", incx),
                                           ("ptr", y), ("int", incy)])

    def axpy(self, n: ir.Value, alpha: ir.Value, x: ir.Value, incx: ir.Value, y: ir.Value,
             incy: ir.Value) -> None:
        if self.family == "numba":  # y (1 x n, ld incy) += alpha [1] x (1 x n, ld incx)
            one = self.i64(1)
            f = ir.ConstantInt(ir.i1, 0)
            self._numba_gemm(f, f, one, n, one, alpha, self._ref(self.fp(1.0)), one, x, incx,
                             self.fp(1.0), y, incy)
            return
        self._call("axpy", ir.void, [("int", n), ("fp", alpha), ("ptr", x), ("int", incx),
                                     ("ptr", y), ("int", incy)])

    def scal(self, n: ir.Value, alpha: ir.Value, x: ir.Value, incx: ir.Value) -> None:
        if self.family == "numba":  # alpha = 0: C := beta C, C = x (1 x n, ld incx)
            one = self.i64(1)
            f = ir.ConstantInt(ir.i1, 0)
            self._numba_gemm(f, f, one, n, one, self.fp(0.0), x, one, x, incx, alpha, x, incx)
            return
        self._call("scal", ir.void, [("int", n), ("fp", alpha), ("ptr", x), ("int", incx)])

    def swap(self, n: ir.Value, x: ir.Value, incx: ir.Value, y: ir.Value,
             incy: ir.Value) -> None:
        self._call("swap", ir.void, [("int", n), ("ptr", x), ("int", incx), ("ptr", y),
                                     ("int", incy)])

    def copy(self, n: ir.Value, x: ir.Value, incx: ir.Value, y: ir.Value,
             incy: ir.Value) -> None:
        self._call("copy", ir.void, [("int", n), ("ptr", x), ("int", incx), ("ptr", y),
                                     ("int", incy)])

    def nrm2(self, n: ir.Value, x: ir.Value, incx: ir.Value) -> ir.Value:
        if self.family == "numba":
            ft = ir.FunctionType(ir.i32, [ir.i8, ir.i64, ir.ptr, ir.i64, ir.ptr])
            fn = self._module().get_or_insert_function("numba_xxnrm2", ft)
            out = self._entry_slot(self.el)
            self.b.call(fn, [self._numba_kind(), n, x, incx, out])
            return self.b.load(self.el, out)
        return self._call("nrm2", self.el, [("int", n), ("ptr", x), ("int", incx)])

    # -- level 2 --------------------------------------------------------------------------
    def gemv(self, trans: ir.Value, m: ir.Value, n: ir.Value, alpha: ir.Value, a: ir.Value,
             lda: ir.Value, x: ir.Value, incx: ir.Value, beta: ir.Value, y: ir.Value,
             incy: ir.Value) -> None:
        if self.family == "numba":
            self._unit(incx, incy)
            p = ir.ptr
            ft = ir.FunctionType(ir.i32, [ir.i8, ir.i8, ir.i64, ir.i64, p, p, ir.i64, p, p, p])
            fn = self._module().get_or_insert_function("numba_xxgemv", ft)
            self.b.call(fn, [self._numba_kind(), self._char(trans, "T", "N"), m, n,
                             self._ref(alpha), a, lda, x, self._ref(beta), y])
            return
        self._call("gemv", ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("trans", trans), ("int", m), ("int", n),
            ("fp", alpha), ("ptr", a), ("int", lda), ("ptr", x), ("int", incx),
            ("fp", beta), ("ptr", y), ("int", incy)])

    def ger(self, m: ir.Value, n: ir.Value, alpha: ir.Value, x: ir.Value, incx: ir.Value,
            y: ir.Value, incy: ir.Value, a: ir.Value, lda: ir.Value) -> None:
        if self.family == "numba":  # A += alpha (1 x m, ld incx)^T (1 x n, ld incy)
            self._numba_gemm(ir.ConstantInt(ir.i1, 1), ir.ConstantInt(ir.i1, 0), m, n,
                             self.i64(1), alpha, x, incx, y, incy, self.fp(1.0), a, lda)
            return
        self._call("ger", ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("int", m), ("int", n), ("fp", alpha),
            ("ptr", x), ("int", incx), ("ptr", y), ("int", incy), ("ptr", a),
            ("int", lda)])

    # -- level 3 --------------------------------------------------------------------------
    def gemm(self, ta: ir.Value, tb: ir.Value, m: ir.Value, n: ir.Value, k: ir.Value,
             alpha: ir.Value, a: ir.Value, lda: ir.Value, bb: ir.Value, ldb: ir.Value,
             beta: ir.Value, c: ir.Value, ldc: ir.Value) -> None:
        if self.family == "numba":
            self._numba_gemm(ta, tb, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
            return
        self._call("gemm", ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("trans", ta), ("trans", tb),
            ("int", m), ("int", n), ("int", k), ("fp", alpha), ("ptr", a), ("int", lda),
            ("ptr", bb), ("int", ldb), ("fp", beta), ("ptr", c), ("int", ldc)])

    def trmm(self, right: ir.Value, upper: ir.Value, trans: ir.Value, m: ir.Value,
             n: ir.Value, alpha: ir.Value, a: ir.Value, lda: ir.Value, bb: ir.Value,
             ldb: ir.Value, routine: str = "trmm", unit: ir.Value | None = None) -> None:
        """B := alpha op(A) B (left) or alpha B op(A) (right), A triangular."""
        self._call(routine, ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("side", right), ("uplo", upper),
            ("trans", trans), ("diag", unit if unit is not None else ir.ConstantInt(ir.i1, 0)),
            ("int", m), ("int", n), ("fp", alpha), ("ptr", a), ("int", lda), ("ptr", bb),
            ("int", ldb)])

    def trsm(self, right: ir.Value, upper: ir.Value, trans: ir.Value, m: ir.Value,
             n: ir.Value, alpha: ir.Value, a: ir.Value, lda: ir.Value, bb: ir.Value,
             ldb: ir.Value, unit: ir.Value | None = None) -> None:
        """B := alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right)."""
        self.trmm(right, upper, trans, m, n, alpha, a, lda, bb, ldb, routine="trsm",
                  unit=unit)

    def symm(self, right: ir.Value, upper: ir.Value, m: ir.Value, n: ir.Value,
             alpha: ir.Value, a: ir.Value, lda: ir.Value, bb: ir.Value, ldb: ir.Value,
             beta: ir.Value, c: ir.Value, ldc: ir.Value) -> None:
        """C := alpha A B + beta C (left) or alpha B A + beta C (right), A symmetric."""
        self._call("symm", ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("side", right), ("uplo", upper),
            ("int", m), ("int", n), ("fp", alpha), ("ptr", a), ("int", lda), ("ptr", bb),
            ("int", ldb), ("fp", beta), ("ptr", c), ("int", ldc)])

    def syrk(self, upper: ir.Value, trans: ir.Value, n: ir.Value, k: ir.Value,
             alpha: ir.Value, a: ir.Value, lda: ir.Value, beta: ir.Value, c: ir.Value,
             ldc: ir.Value) -> None:
        """C := alpha op(A) op(A)^T + beta C on C's ``upper``/lower triangle."""
        self._call("syrk", ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("uplo", upper), ("trans", trans),
            ("int", n), ("int", k), ("fp", alpha), ("ptr", a), ("int", lda), ("fp", beta),
            ("ptr", c), ("int", ldc)])

    def syr2k(self, upper: ir.Value, trans: ir.Value, n: ir.Value, k: ir.Value,
              alpha: ir.Value, a: ir.Value, lda: ir.Value, bb: ir.Value, ldb: ir.Value,
              beta: ir.Value, c: ir.Value, ldc: ir.Value) -> None:
        """C := alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C on one triangle."""
        self._call("syr2k", ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("uplo", upper), ("trans", trans),
            ("int", n), ("int", k), ("fp", alpha), ("ptr", a), ("int", lda), ("ptr", bb),
            ("int", ldb), ("fp", beta), ("ptr", c), ("int", ldc)])

    def symv(self, upper: ir.Value, n: ir.Value, alpha: ir.Value, a: ir.Value,
             lda: ir.Value, x: ir.Value, incx: ir.Value, beta: ir.Value, y: ir.Value,
             incy: ir.Value) -> None:
        """y := alpha A x + beta y, A symmetric."""
        self._call("symv", ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("uplo", upper), ("int", n),
            ("fp", alpha), ("ptr", a), ("int", lda), ("ptr", x), ("int", incx),
            ("fp", beta), ("ptr", y), ("int", incy)])

    def trmv(self, upper: ir.Value, trans: ir.Value, unit: ir.Value, n: ir.Value,
             a: ir.Value, lda: ir.Value, x: ir.Value, incx: ir.Value,
             routine: str = "trmv") -> None:
        """x := op(A) x (trmv) or op(A)^-1 x (trsv), A triangular."""
        self._call(routine, ir.void, [
            ("layout", ir.ConstantInt(ir.i32, 0)), ("uplo", upper), ("trans", trans),
            ("diag", unit), ("int", n), ("ptr", a), ("int", lda), ("ptr", x),
            ("int", incx)])

    def trsv(self, upper: ir.Value, trans: ir.Value, unit: ir.Value, n: ir.Value,
             a: ir.Value, lda: ir.Value, x: ir.Value, incx: ir.Value) -> None:
        self.trmv(upper, trans, unit, n, a, lda, x, incx, routine="trsv")

    def potrs(self, upper: ir.Value, n: ir.Value, nrhs: ir.Value, a: ir.Value,
              lda: ir.Value, bb: ir.Value, ldb: ir.Value) -> None:
        """B := A^-1 B with A's Cholesky factor (LAPACK's potrs)."""
        if self.family == "cblas":  # LAPACKE's potrs: layout and uplo by value
            ft = ir.FunctionType(ir.i32, [ir.i32, ir.i8, self.int, self.int, ir.ptr, self.int,
                                          ir.ptr, self.int])
            fn = self._module().get_or_insert_function(f"LAPACKE_{self.p}potrs", ft)
            self.b.call(fn, [self._layout_arg(), self._char(upper, "U", "L"), self._int(n),
                             self._int(nrhs), a, self._int(lda), bb, self._int(ldb)])
            return
        info = self._entry_slot(self._lapack_int())
        self._call("potrs", ir.void, [("uplo", upper), ("int", n), ("int", nrhs), ("ptr", a),
                                      ("int", lda), ("ptr", bb), ("int", ldb),
                                      ("ptr", info)])

    def getrs(self, trans: ir.Value, n: ir.Value, nrhs: ir.Value, a: ir.Value,
              lda: ir.Value, ipiv: ir.Value, bb: ir.Value, ldb: ir.Value) -> None:
        """B := op(A)^-1 B with A's LU factors and pivots (LAPACK's getrs)."""
        if self.family == "cblas":  # LAPACKE's getrs
            ft = ir.FunctionType(ir.i32, [ir.i32, ir.i8, self.int, self.int, ir.ptr, self.int,
                                          ir.ptr, ir.ptr, self.int])
            fn = self._module().get_or_insert_function(f"LAPACKE_{self.p}getrs", ft)
            self.b.call(fn, [self._layout_arg(), self._char(trans, "T", "N"), self._int(n),
                             self._int(nrhs), a, self._int(lda), ipiv, bb, self._int(ldb)])
            return
        info = self._entry_slot(self._lapack_int())
        self._call("getrs", ir.void, [("trans", trans), ("int", n), ("int", nrhs), ("ptr", a),
                                      ("int", lda), ("ptr", ipiv), ("ptr", bb), ("int", ldb),
                                      ("ptr", info)])

    def _lapack_int(self) -> ir.Type:
        """The integer of a by-reference call (numba's SciPy routines: 32-bit)."""
        return ir.i32 if self.family == "numba" else self.int

    def swap_rows(self, n: ir.Value, cols: ir.Value, a: ir.Value, lda: ir.Value,
                  ipiv: ir.Value, *, forward: bool) -> None:
        """Apply LAPACK's row interchanges (1-based ``ipiv``) to the rows of A: in order
        (P^T A) or in reverse order (P A)."""
        rm = self.row_major()
        inc = self.b.select(rm, self.i64(1), lda)

        def body(k: ir.Value) -> None:
            b = self.b
            i = k if forward else b.sub(b.sub(n, self.i64(1)), k)
            piv = b.load(ir.i32, b.gep(ir.i32, ipiv, [i]))
            p = b.sub(b.sext(piv, ir.i64), self.i64(1))
            self.swap(cols, self.at(a, lda, i, self.i64(0)), inc, self.at(a, lda, p, self.i64(0)),
                      inc)
        self.loop(n, body)

    def branch(self, cond: ir.Value, then: Callable[[], None],
               otherwise: Callable[[], None]) -> None:
        """``if (cond) then(); else otherwise();``"""
        b = self.b
        fn = b.function
        assert fn is not None
        yes, no, done = (fn.append_basic_block(f"blas.{k}") for k in ("then", "else", "join"))
        b.cond_br(cond, yes, no)
        for block, emit in ((yes, then), (no, otherwise)):
            b.position_at_end(block)
            emit()
            b.br(done)
        b.position_at_end(done)

    def at(self, base: ir.Value, ld: ir.Value, i: ir.Value, j: ir.Value) -> ir.Value:
        """Pointer to element (i, j) of a matrix with leading dimension ``ld``."""
        rm = self.row_major()
        line, off = self.b.select(rm, i, j), self.b.select(rm, j, i)
        return self.elem(base, ld, line, off)

    # -- element-wise helpers (loops) --------------------------------------------------------
    def loop(self, count: ir.Value, body: Callable[[ir.Value], None]) -> None:
        """``for (j = 0; j < count; ++j) body(j)`` (``count`` is i64)."""
        b = self.b
        fn = b.function
        assert fn is not None
        pre = b.insert_block
        assert pre is not None
        head = fn.append_basic_block("blas.loop")
        done = fn.append_basic_block("blas.done")
        b.br(head)
        b.position_at_end(head)
        j = b.phi(ir.i64, [(self.i64(0), pre)])
        more = b.icmp("slt", j, count)
        work = fn.append_basic_block("blas.body")
        b.cond_br(more, work, done)
        b.position_at_end(work)
        body(j)
        nxt = b.add(j, self.i64(1))
        latch = b.insert_block
        assert latch is not None
        j.add_incoming(nxt, latch)  # type: ignore[attr-defined]
        b.br(head)
        b.position_at_end(done)

    def columns(self, rows: ir.Value, cols: ir.Value) -> tuple[ir.Value, ir.Value]:
        """(number of stored lines, length of each) of a rows x cols matrix: columns in
        column-major, rows in row-major."""
        rm = self.row_major()
        return self.b.select(rm, rows, cols), self.b.select(rm, cols, rows)

    def elem(self, base: ir.Value, ld: ir.Value, line: ir.Value, at: ir.Value) -> ir.Value:
        """Pointer to element ``at`` of stored line ``line``."""
        off = self.b.add(self.b.mul(line, ld), at)
        return self.b.gep(self.el, base, [off])

    def mat_axpy(self, rows: ir.Value, cols: ir.Value, alpha: ir.Value, x: ir.Value,
                 ldx: ir.Value, y: ir.Value, ldy: ir.Value) -> None:
        """Y += alpha X for rows x cols matrices with leading dimensions."""
        lines, length = self.columns(rows, cols)
        one = self.i64(1)
        self.loop(lines, lambda j: self.axpy(length, alpha, self.elem(x, ldx, j, self.i64(0)),
                                             one, self.elem(y, ldy, j, self.i64(0)), one))

    def mat_dot(self, rows: ir.Value, cols: ir.Value, x: ir.Value, ldx: ir.Value,
                y: ir.Value, ldy: ir.Value) -> ir.Value:
        """sum_ij X_ij Y_ij."""
        acc = self._entry_slot(self.el)
        self.b.store(self.fp(0.0), acc)
        lines, length = self.columns(rows, cols)
        one = self.i64(1)

        def body(j: ir.Value) -> None:
            d = self.dot(length, self.elem(x, ldx, j, self.i64(0)), one,
                         self.elem(y, ldy, j, self.i64(0)), one)
            self.b.store(self.b.fadd(self.b.load(self.el, acc), d), acc)
        self.loop(lines, body)
        return self.b.load(self.el, acc)

    def mat_scale(self, rows: ir.Value, cols: ir.Value, beta: ir.Value, c: ir.Value,
                  ldc: ir.Value) -> None:
        """C := beta C."""
        lines, length = self.columns(rows, cols)
        one = self.i64(1)
        self.loop(lines, lambda j: self.scal(length, beta, self.elem(c, ldc, j, self.i64(0)),
                                             one))


def _is_one(v: ir.Value) -> bool:
    return isinstance(v, ir.ConstantInt) and v.value == 1


__all__ = ["BlasEmitter"]
