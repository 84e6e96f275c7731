"""The operands of a BLAS call inside a synthesized derivative (shared by the forward
and the reverse synthesizers, :mod:`irgrad.ad.api.blas_forward` and
:mod:`irgrad.ad.api.blas_derivatives`): the derivative function's parameters by argument,
the routine's values in the rules' internal form (sizes ``i64``, flags ``i1``), the span of
an array (what a tape copy holds), the switch on numba's ``kind``, and Fortran LAPACK's
workspace (a query call has no derivative work; the workspace's shadow is zeroed where
the call writes it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from irgrad import ir
from irgrad.ad.core.config import NOT_OVERWRITTEN_KEY, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.failures import emit_failure
from irgrad.ad.core.signatures import reverse_signature
from irgrad.ad.rules import BlasOperands
from irgrad.ad.rules.blas_emit import BlasEmitter
from irgrad.analysis.blas import ARRAYS, FLAGS, INTS, SCALARS, BlasFunction
from irgrad.ir.builder import IRBuilder

SHADOWED = (DiffeType.DUP, DiffeType.DUP_NONEED)
ELEMENTS = {"double": ir.double, "float": ir.float_}
_CBLAS_NOTRANS = 111
# flags as i1: uplo true for upper, side for right, diag for unit, trans for transposed
_CBLAS_YES = {"uplo": 121, "side": 142, "diag": 132}
_CHAR_YES = {"uplo": "u", "side": "r", "diag": "u"}


# -- the parameters of a derivative function ------------------------------------------------
@dataclass
class DerivativeParams:
    primals: list[ir.Value]
    shadows: list[list[ir.Value]]  # per argument: its shadows (one per lane)
    dret: ir.Value | None = None
    tape: ir.Value | None = None


def derivative_params(fn: ir.Function, config: FnConfig, *, lanes: int, dret: bool,
            tape: bool) -> DerivativeParams:
    args = list(fn.args)
    out = DerivativeParams([], [])
    k = 0
    for dt in config.arg_types:
        out.primals.append(args[k])
        k += 1
        n = lanes if dt in SHADOWED else 0
        out.shadows.append(args[k:k + n])
        k += n
    if dret:
        out.dret = args[k]
        k += 1
    if tape:
        out.tape = args[k]
        k += 1
    assert k == len(args), (fn.name, k, len(args))
    return out


def new_function(ctx: DerivativeContext, prefix: str, config: FnConfig,
                  ft: ir.FunctionType) -> ir.Function:
    module = ctx.module
    f = ir.Function(module.unique_name(f"{prefix}_{config.function.name}"), ft, "internal")
    module.add_function(f)
    f.append_basic_block("entry")
    return f


def combined_from_pair(ctx: DerivativeContext, config: FnConfig, aug: ir.Function,
                       rev: ir.Function) -> ir.Function:
    """The combined-mode derivative of a library routine from its split pair: the
    augmented forward call, then the reverse call with its tape (BLAS, flang's runtime)."""
    ft, _ = reverse_signature(config)
    f = new_function(ctx, "diffe", config, ft)
    ctx.register(config, f)
    b = IRBuilder(f.blocks[0])
    args = list(f.args)
    has_dret = config.return_type is DiffeType.OUT and \
        not config.function.return_type.is_void
    fwd_args = args[:-1] if has_dret else args
    res = b.call(aug, fwd_args)
    tape = res if config.function.return_type.is_void else b.extract_value(res, [0])
    out = b.call(rev, [*args, tape])
    if config.return_primal and not config.function.return_type.is_void:
        primal = b.extract_value(res, [1])
        agg: ir.Value = ir.UndefValue(ft.return_type)
        agg = b.insert_value(agg, primal, [0])
        for j in range(len(ft.return_type.elements) - 1):  # type: ignore[attr-defined]
            agg = b.insert_value(agg, b.extract_value(out, [j]), [j + 1])
        b.ret(agg)
    elif ft.return_type.is_void:
        b.ret_void()
    else:
        b.ret(out)
    return f


def not_overwritten(config: FnConfig) -> frozenset[int]:
    return frozenset(dict(config.extra).get(NOT_OVERWRITTEN_KEY, ()))  # type: ignore[arg-type]


# -- reading the operands --------------------------------------------------------------------
@dataclass
class BlasCall:
    """One BLAS call being differentiated, for one element type."""

    bf: BlasFunction
    config: FnConfig
    el: ir.Type
    p: DerivativeParams
    v: dict[str, ir.Value] = field(default_factory=dict)
    layout: ir.Value | None = None

    def arg(self, role: str) -> ir.Value | None:
        k = self.bf.index(role)
        return None if k is None else self.p.primals[k]

    def shadows(self, role: str) -> list[ir.Value]:
        k = self.bf.index(role)
        return [] if k is None else self.p.shadows[k]

    def by_ref(self, role: str) -> bool:
        a = self.arg(role)
        return a is not None and a.type.is_pointer and role not in ARRAYS

    def int_type(self) -> ir.Type:
        if self.bf.spelling.name == "numba":
            return ir.i64
        n = self.arg("n")
        return n.type if n is not None and not n.type.is_pointer else ir.i32

    def emitter(self, b: IRBuilder) -> BlasEmitter:
        return BlasEmitter(b, self.bf.spelling.name if self.bf.spelling.name != "lapacke"
                           else "cblas", self.el, self.int_type(), self.layout)


def decode(b: IRBuilder, c: BlasCall, role: str, raw: ir.Value) -> ir.Value:
    """An argument's value in the rules' form (sizes i64, flags i1, scalars)."""
    if role in INTS:
        return raw if raw.type == ir.i64 else b.sext(raw, ir.i64)
    if role in FLAGS:
        if raw.type == ir.i8:  # a Fortran or numba character
            low = b.or_(raw, ir.ConstantInt(ir.i8, 0x20))
            yes = _CHAR_YES.get(role)
            if yes is not None:
                return b.icmp("eq", low, ir.ConstantInt(ir.i8, ord(yes)))
            return b.icmp("ne", low, ir.ConstantInt(ir.i8, ord("n")))
        yes_enum = _CBLAS_YES.get(role)
        if yes_enum is not None:
            return b.icmp("eq", raw, ir.ConstantInt(raw.type, yes_enum))
        return b.icmp("ne", raw, ir.ConstantInt(raw.type, _CBLAS_NOTRANS))
    return raw


def raw_type(c: BlasCall, role: str) -> ir.Type:
    if role in SCALARS:
        return c.el
    if role in FLAGS:
        return ir.i8
    return c.int_type() if c.bf.spelling.name != "fortran" else ir.i32


def load_values(b: IRBuilder, c: BlasCall, saved: dict[str, ir.Value]) -> None:
    """``c.v``: every size, flag and scalar (by reference: loaded, or from ``saved``)."""
    for role in c.bf.params:
        if role in ARRAYS or role not in (*INTS, *FLAGS, *SCALARS):
            continue
        a = c.arg(role)
        assert a is not None
        if role in saved:
            raw = saved[role]
        elif c.by_ref(role):
            raw = b.load(raw_type(c, role), a)
        else:
            raw = a
        c.v[role] = decode(b, c, role, raw)
    if c.bf.spelling.name == "numba":
        c.v.setdefault("incx", ir.ConstantInt(ir.i64, 1))
        c.v.setdefault("incy", ir.ConstantInt(ir.i64, 1))
    c.layout = c.arg("layout")


def extent(e: BlasEmitter, c: BlasCall, role: str) -> ir.Value:
    """Elements an array argument spans (what a copy of it holds)."""
    b = e.b
    a, bb, flag = c.bf.routine.shape(role)
    zero, one = e.i64(0), e.i64(1)
    if role == "ipiv":  # getrf's: min(m, n)
        return c.v[a] if bb is None else b.select(b.icmp("slt", c.v[a], c.v[bb]), c.v[a],
                                                   c.v[bb])
    if role in ("x", "y"):
        n = c.v[a] if flag is None or bb is None else b.select(c.v[flag], c.v[bb], c.v[a])
        inc = c.v["inc" + role]
        neg = b.icmp("slt", inc, zero)
        absinc = b.select(neg, b.sub(zero, inc), inc)
        span = b.add(b.mul(b.sub(n, one), absinc), one)
        return b.select(b.icmp("sgt", n, zero), span, zero)
    assert bb is not None
    rows, cols = c.v[a], c.v[bb]
    if role in c.bf.routine.square:
        side = c.v[a] if flag is None else b.select(c.v[flag], c.v[bb], c.v[a])
        rows, cols = side, side
    elif flag is not None:
        rows, cols = b.select(c.v[flag], cols, rows), b.select(c.v[flag], rows, cols)
    lines, length = e.columns(rows, cols)
    span = b.add(b.mul(b.sub(lines, one), c.v["ld" + role.lower()]), length)
    return b.select(b.and_(b.icmp("sgt", lines, zero), b.icmp("sgt", length, zero)),
                    span, zero)


# -- Fortran LAPACK's workspace ---------------------------------------------------------------
def does_work(e: BlasEmitter, c: BlasCall) -> ir.Value | None:
    """i1: the call does its work, it is not a workspace query (``lwork = -1``); None:
    this spelling of the routine takes no workspace."""
    q = c.bf.routine.query
    if q is None or q not in c.v:
        return None
    return e.b.icmp("ne", c.v[q], e.i64(-1))


def unless_query(e: BlasEmitter, c: BlasCall, o: BlasOperands,
                 work: Callable[[BlasEmitter, BlasOperands], object]) -> None:
    """``work(e, o)`` (a rule's derivative work), skipped by a workspace query; the scratch
    buffers it makes are freed inside the branch."""
    live = does_work(e, c)
    if live is None:
        work(e, o)
        return
    assert not c.bf.routine.returns  # a tangent made in a branch would not dominate
    e.branch(live, o.scoped(e, lambda: work(e, o)), lambda: None)


def zero_workspace(e: BlasEmitter, c: BlasCall, shadows: Callable[[str], list[ir.Value]]) -> None:
    """The workspace holds no derivative: zero its shadows (``shadows(role)``) where the
    call writes, ``work[0]`` for a query and ``lwork`` elements otherwise."""
    q = c.bf.routine.query
    live = does_work(e, c)
    if q is None or live is None:
        return
    b = e.b
    size = c.v[q]
    count = b.select(live, b.select(b.icmp("sgt", size, e.i64(0)), size, e.i64(0)), e.i64(1))
    for role in c.bf.routine.workspace:
        if role in ARRAYS:
            for sh in shadows(role):
                b.memset(sh, 0, byte_count(e, count))


def byte_count(e: BlasEmitter, count: ir.Value) -> ir.Value:
    return e.b.mul(count, e.i64(8 if e.el == ir.double else 4))


def call_lib(b: IRBuilder, name: str, ft: ir.FunctionType, args: list[ir.Value]) -> ir.Value:
    module = b.module
    assert module is not None
    return b.call(module.get_or_insert_function(name, ft), args)


def malloc_buffer(b: IRBuilder, size: ir.Value) -> ir.Value:
    return call_lib(b, "malloc", ir.FunctionType(ir.ptr, [ir.i64]), [size])


def free_buffer(b: IRBuilder, p: ir.Value) -> None:
    call_lib(b, "free", ir.FunctionType(ir.void, [ir.ptr]), [p])


def primal_call(b: IRBuilder, c: BlasCall) -> ir.Value:
    return b.call(c.config.function, c.p.primals)


# -- per element type (numba's kind) ----------------------------------------------------------
def for_elements(b: IRBuilder, bf: BlasFunction,
                 kind: ir.Value | None) -> list[tuple[str, IRBuilder]]:
    """Builders positioned where the code for each element type goes (one, or a switch
    on numba's ``kind``); :func:`join_elements` joins them afterwards."""
    if bf.element is not None:
        return [(bf.element, b)]
    assert kind is not None
    fn = b.function
    assert fn is not None
    out: list[tuple[str, IRBuilder]] = []
    for name, ch in (("double", "d"), ("float", "s")):
        hit = fn.append_basic_block(f"kind.{ch}")
        miss = fn.append_basic_block(f"kind.not.{ch}")
        b.cond_br(b.icmp("eq", kind, ir.ConstantInt(kind.type, ord(ch))), hit, miss)
        out.append((name, IRBuilder(hit)))
        b.position_at_end(miss)
    module = b.module
    assert module is not None
    emit_failure(b, module, f"irgrad: {fn.name}: no derivative of numba's {bf.routine.name} "
                 "helper for a complex kind (only 'd' and 's' are differentiated)")
    return out


def join_elements(fn: ir.Function, builders: list[tuple[str, IRBuilder]]) -> IRBuilder:
    if len(builders) == 1:
        return builders[0][1]
    done = fn.append_basic_block("kind.done")
    for _, bb in builders:
        bb.br(done)
    return IRBuilder(done)


def entry_slot(b: IRBuilder, fn: ir.Function, ty: ir.Type) -> ir.Value:
    eb = IRBuilder()
    eb.position_at_start(fn.blocks[0])
    return eb.alloca(ty)


__all__ = [
    "ELEMENTS",
    "SHADOWED",
    "BlasCall",
    "DerivativeParams",
    "byte_count",
    "combined_from_pair",
    "derivative_params",
    "does_work",
    "entry_slot",
    "extent",
    "for_elements",
    "free_buffer",
    "join_elements",
    "load_values",
    "malloc_buffer",
    "new_function",
    "not_overwritten",
    "primal_call",
    "raw_type",
    "unless_query",
    "zero_workspace",
]
