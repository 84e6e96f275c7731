"""Derivatives of BLAS and LAPACK calls, synthesized from the rule table.

A derivative request (:class:`FnConfig`) for a declared BLAS/LAPACK function
(:func:`irgrad.analysis.blas.blas_function`) is answered here, through the context's
``known`` hook, with functions of irgrad's usual signatures
(:mod:`irgrad.ad.core.signatures`), so every caller -- a call inside a function being
differentiated at any depth, in a loop, in split mode, or the user's own ``__enzyme_*``
call -- uses them like any other derivative:

* forward (``fwddiffe_<f>``): the rule's tangent (:mod:`irgrad.ad.rules.blas`) emitted
  before or after the primal call, once per lane in vector mode;
* augmented primal (``augmented_<f>``): copies to the tape the arrays the reverse pass
  reads (``rule.needs``) -- only those that may be overwritten: an input the routine itself
  writes, or any array the caller did not declare kept (``NOT_OVERWRITTEN_KEY``, which
  the caller fills from its own memory analysis) -- and the values Fortran and numba pass
  by reference; then the primal call;
* reverse (``reverse_<f>``): the rule's adjoints with the primal values from the tape or
  the arguments; the adjoints of by-value scalars are returned, those of by-reference
  scalars added into their shadows; the tape and copies are freed;
* combined: the augmented primal, then the reverse.

The activities of the request decide the work: an argument passed ``CONST`` has no
shadow, so the rule emits nothing for it. numba's helpers take the element type as a
``kind`` argument: their derivatives switch on it (``d``/``s``; anything else aborts with
a message).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from irgrad import ir
from irgrad.ad.core.config import NOT_OVERWRITTEN_KEY, DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.failures import emit_failure
from irgrad.ad.core.signatures import (
    augmented_signature,
    forward_signature,
    gradient_signature,
    reverse_signature,
)
from irgrad.ad.rules import BLAS_RULES, BlasOperands, BlasRule
from irgrad.ad.rules.blas_emit import BlasEmitter
from irgrad.analysis.blas import (
    ARRAYS,
    FLAGS,
    INTS,
    SCALARS,
    BlasFunction,
    blas_function,
)
from irgrad.ir.builder import IRBuilder

_SHADOWED = (DiffeType.DUP, DiffeType.DUP_NONEED)
_ELEMENTS = {"double": ir.double, "float": ir.float_}
_CBLAS_NOTRANS = 111
# flags as i1: uplo true for upper, side for right, diag for unit, trans for transposed
_CBLAS_YES = {"uplo": 121, "side": 142, "diag": 132}
_CHAR_YES = {"uplo": "u", "side": "r", "diag": "u"}


def synthesize_blas(ctx: DerivativeContext, config: FnConfig) -> ir.Function | None:
    """The derivative ``config`` asks for, when its function is a known BLAS routine
    with a rule (None otherwise)."""
    fn = config.function
    bf = blas_function(fn.name)
    if bf is None or not fn.is_declaration or bf.routine.name not in BLAS_RULES:
        return None
    rule = BLAS_RULES[bf.routine.name]
    if len(fn.args) < len(bf.params):
        return None  # not the routine's signature: leave it to the usual error
    if config.mode is DerivativeMode.FORWARD:
        return _forward(ctx, config, bf, rule)
    aug, rev = _split_pair(ctx, config, bf, rule)
    if config.mode is DerivativeMode.REVERSE_PRIMAL:
        return aug
    if config.mode is DerivativeMode.REVERSE_GRADIENT:
        return rev
    return _combined(ctx, config, aug, rev)


# -- the parameters of a derivative function ------------------------------------------------
@dataclass
class _Params:
    primals: list[ir.Value]
    shadows: list[list[ir.Value]]  # per argument: its shadows (one per lane)
    dret: ir.Value | None = None
    tape: ir.Value | None = None


def _params(fn: ir.Function, config: FnConfig, *, lanes: int, dret: bool,
            tape: bool) -> _Params:
    args = list(fn.args)
    out = _Params([], [])
    k = 0
    for dt in config.arg_types:
        out.primals.append(args[k])
        k += 1
        n = lanes if dt in _SHADOWED else 0
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


def _new_function(ctx: DerivativeContext, prefix: str, config: FnConfig,
                  ft: ir.FunctionType) -> ir.Function:
    module = ctx.module
    f = ir.Function(module.unique_name(f"{prefix}_{config.function.name}"), ft, "internal")
    module.add_function(f)
    f.append_basic_block("entry")
    return f


def _not_overwritten(config: FnConfig) -> frozenset[int]:
    return frozenset(dict(config.extra).get(NOT_OVERWRITTEN_KEY, ()))  # type: ignore[arg-type]


# -- reading the operands --------------------------------------------------------------------
@dataclass
class _Call:
    """One BLAS call being differentiated, for one element type."""

    bf: BlasFunction
    config: FnConfig
    el: ir.Type
    p: _Params
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


def _decode(b: IRBuilder, c: _Call, role: str, raw: ir.Value) -> ir.Value:
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


def _raw_type(c: _Call, role: str) -> ir.Type:
    if role in SCALARS:
        return c.el
    if role in FLAGS:
        return ir.i8
    return c.int_type() if c.bf.spelling.name != "fortran" else ir.i32


def _load_values(b: IRBuilder, c: _Call, saved: dict[str, ir.Value]) -> None:
    """``c.v``: every size, flag and scalar (by reference: loaded, or from ``saved``)."""
    for role in c.bf.params:
        if role in ARRAYS or role not in (*INTS, *FLAGS, *SCALARS):
            continue
        a = c.arg(role)
        assert a is not None
        if role in saved:
            raw = saved[role]
        elif c.by_ref(role):
            raw = b.load(_raw_type(c, role), a)
        else:
            raw = a
        c.v[role] = _decode(b, c, role, raw)
    if c.bf.spelling.name == "numba":
        c.v.setdefault("incx", ir.ConstantInt(ir.i64, 1))
        c.v.setdefault("incy", ir.ConstantInt(ir.i64, 1))
    c.layout = c.arg("layout")


def _extent(e: BlasEmitter, c: _Call, role: str) -> ir.Value:
    """Elements an array argument spans (what a copy of it holds)."""
    b = e.b
    a, bb, flag = c.bf.routine.shape(role)
    zero, one = e.i64(0), e.i64(1)
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


def _bytes(e: BlasEmitter, count: ir.Value) -> ir.Value:
    return e.b.mul(count, e.i64(8 if e.el == ir.double else 4))


def _call_lib(b: IRBuilder, name: str, ft: ir.FunctionType, args: list[ir.Value]) -> ir.Value:
    module = b.module
    assert module is not None
    return b.call(module.get_or_insert_function(name, ft), args)


def _malloc(b: IRBuilder, size: ir.Value) -> ir.Value:
    return _call_lib(b, "malloc", ir.FunctionType(ir.ptr, [ir.i64]), [size])


def _free(b: IRBuilder, p: ir.Value) -> None:
    _call_lib(b, "free", ir.FunctionType(ir.void, [ir.ptr]), [p])


def _primal_call(b: IRBuilder, c: _Call) -> ir.Value:
    return b.call(c.config.function, c.p.primals)


# -- per element type (numba's kind) ----------------------------------------------------------
def _for_elements(b: IRBuilder, bf: BlasFunction, kind: ir.Value | None,
                  body: dict[str, object]) -> list[tuple[str, IRBuilder]]:
    """Builders positioned where the code for each element type goes (one, or a switch
    on numba's ``kind``), all branching to the returned continuation afterwards."""
    del body
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
    emit_failure(b, module, f"irgrad: {fn.name}: the derivative of {bf.params[0]} "
                 "kinds other than 'd' and 's' (complex BLAS) is not supported")
    return out


def _join(fn: ir.Function, builders: list[tuple[str, IRBuilder]]) -> IRBuilder:
    if len(builders) == 1:
        return builders[0][1]
    done = fn.append_basic_block("kind.done")
    for _, bb in builders:
        bb.br(done)
    return IRBuilder(done)


def _slot(b: IRBuilder, fn: ir.Function, ty: ir.Type) -> ir.Value:
    eb = IRBuilder()
    eb.position_at_start(fn.blocks[0])
    return eb.alloca(ty)


# -- forward mode ------------------------------------------------------------------------------
def _forward(ctx: DerivativeContext, config: FnConfig, bf: BlasFunction,
             rule: BlasRule) -> ir.Function:
    ft = forward_signature(config)
    f = _new_function(ctx, "fwddiffe", config, ft)
    ctx.register(config, f)
    width = config.width
    p = _params(f, config, lanes=width, dret=False, tape=False)
    b = IRBuilder(f.blocks[0])
    orig_ret = config.function.return_type
    res_slot = None if orig_ret.is_void else _slot(b, f, orig_ret)
    tan_slots: list[ir.Value] = []
    returns_tangent = bf.routine.returns and "result" not in bf.params and \
        config.return_type is not DiffeType.CONST
    kind = p.primals[0] if bf.element is None else None
    paths = _for_elements(b, bf, kind, {})
    for el_name, eb in paths:
        c = _Call(bf, config, _ELEMENTS[el_name], p)
        _load_values(eb, c, {})
        for role in ARRAYS:
            a = c.arg(role)
            if a is not None:
                c.v[role] = a
        e = c.emitter(eb)
        if returns_tangent and not tan_slots:
            tan_slots = [_slot(eb, f, orig_ret) for _ in range(width)]
        result: ir.Value | None = None
        lanes = [_lane(eb, c, lane) for lane in range(width)]
        if rule.forward_pre is not None:
            for lane_d in lanes:
                pre = BlasOperands(dict(c.v), lane_d)
                rule.forward_pre(e, pre)
                for buf in pre.temps:
                    _free(eb, buf)
        if not rule.forward_before:
            result = _primal_call(eb, c)
            out = c.arg("result")
            if bf.routine.returns:  # numba's helpers return it through a pointer
                c.v["result"] = result if out is None else eb.load(c.el, out)
        for lane in range(width):
            o = BlasOperands(dict(c.v), lanes[lane])
            t = rule.forward(e, o)
            if "result" in bf.params and c.shadows("result"):
                eb.store(t if t is not None else e.fp(0.0), c.shadows("result")[lane])
            elif returns_tangent:
                eb.store(t if t is not None else e.fp(0.0), tan_slots[lane])
            for buf in o.temps:
                _free(eb, buf)
        if rule.forward_before:
            result = _primal_call(eb, c)
        if res_slot is not None:
            assert result is not None
            eb.store(result, res_slot)
    b = _join(f, paths)
    primal = b.load(orig_ret, res_slot) if res_slot is not None else None
    tangent: ir.Value | None = None
    if returns_tangent:
        lanes = [b.load(orig_ret, s) for s in tan_slots]
        if width == 1:
            tangent = lanes[0]
        else:
            agg: ir.Value = ir.UndefValue(ir.ArrayType(width, orig_ret))
            for k, t in enumerate(lanes):
                agg = b.insert_value(agg, t, [k])
            tangent = agg
    ret_ty = ft.return_type
    if ret_ty.is_void:
        b.ret_void()
    elif isinstance(ret_ty, ir.StructType):
        out: ir.Value = ir.UndefValue(ret_ty)
        out = b.insert_value(out, primal, [0])  # type: ignore[arg-type]
        out = b.insert_value(out, tangent if tangent is not None else ir.null_value(ret_ty.elements[1]), [1])
        b.ret(out)
    else:
        b.ret(tangent if tangent is not None and ret_ty == tangent.type else primal)  # type: ignore[arg-type]
    return f


def _lane(b: IRBuilder, c: _Call, lane: int) -> dict[str, ir.Value | None]:
    """Forward mode: the shadows (arrays) and tangents (scalars) of lane ``lane``."""
    d: dict[str, ir.Value | None] = {}
    for role in (*ARRAYS, *SCALARS):
        sh = c.shadows(role)
        if not sh:
            continue
        s = sh[lane]
        if role in SCALARS and c.by_ref(role):
            d[role] = b.load(c.el, s)
        else:
            d[role] = s
    return d


# -- reverse mode ------------------------------------------------------------------------------
def _markers(c: _Call) -> dict[str, ir.Value | None]:
    """Reverse mode: which operands carry derivatives (arrays: their shadow; scalars: a
    marker, active when passed ``enzyme_out`` by value or with a shadow by reference)."""
    d: dict[str, ir.Value | None] = {}
    for role in ARRAYS:
        sh = c.shadows(role)
        if sh:
            d[role] = sh[0]
    for role in SCALARS:
        k = c.bf.index(role)
        if k is None:
            continue
        dt = c.config.arg_types[k]
        if dt is DiffeType.OUT or (c.by_ref(role) and c.shadows(role)):
            d[role] = c.p.primals[k]
    return d


def _needed_copies(c: _Call, rule: BlasRule) -> list[tuple[str, str]]:
    """The arrays the reverse pass reads that may be overwritten before it runs."""
    kept = _not_overwritten(c.config)
    out: list[tuple[str, str]] = []
    for role, when in rule.needs(BlasOperands({}, _markers(c))):
        k = c.bf.index(role)
        assert k is not None
        written_by_call = when == "in" and role in c.bf.routine.writes
        if written_by_call or k not in kept:
            out.append((role, when))
    return out


def _saved_values(c: _Call) -> list[str]:
    """By-reference sizes, flags and scalars whose memory the caller may change."""
    kept = _not_overwritten(c.config)
    return [role for k, role in enumerate(c.bf.params)
            if role in (*INTS, *FLAGS, *SCALARS) and c.by_ref(role) and k not in kept]


def _tape_slot(b: IRBuilder, tape: ir.Value, k: int) -> ir.Value:
    return b.gep(ir.i64, tape, [ir.ConstantInt(ir.i64, k)])


def _split_pair(ctx: DerivativeContext, config: FnConfig, bf: BlasFunction,
                rule: BlasRule) -> tuple[ir.Function, ir.Function]:
    aug_cfg = replace(config, mode=DerivativeMode.REVERSE_PRIMAL)
    rev_cfg = replace(config, mode=DerivativeMode.REVERSE_GRADIENT)
    aug = _new_function(ctx, "augmented", config, augmented_signature(aug_cfg))
    ctx.register(aug_cfg, aug)
    rev = _new_function(ctx, "reverse", config, gradient_signature(rev_cfg))
    ctx.register(rev_cfg, rev)
    orig_ret = config.function.return_type
    has_dret = config.return_type is DiffeType.OUT and not orig_ret.is_void
    pa = _params(aug, config, lanes=1, dret=False, tape=False)
    pr = _params(rev, config, lanes=1, dret=has_dret, tape=True)
    ba, br = IRBuilder(aug.blocks[0]), IRBuilder(rev.blocks[0])
    res_slot = None if orig_ret.is_void else _slot(ba, aug, orig_ret)
    tape_slot = _slot(ba, aug, ir.ptr)
    outs = [k for k, dt in enumerate(config.arg_types) if dt is DiffeType.OUT]
    adj_slots = {k: _slot(br, rev, config.function.args[k].type) for k in outs}
    for slot_k, slot in adj_slots.items():
        br.store(ir.null_value(config.function.args[slot_k].type), slot)
    kind_a = pa.primals[0] if bf.element is None else None
    kind_r = pr.primals[0] if bf.element is None else None
    paths_a = _for_elements(ba, bf, kind_a, {})
    paths_r = _for_elements(br, bf, kind_r, {})
    for (el_name, eba), (_, ebr) in zip(paths_a, paths_r, strict=True):
        el = _ELEMENTS[el_name]
        ca = _Call(bf, config, el, pa)
        _load_values(eba, ca, {})
        copies = _needed_copies(ca, rule)
        values = _saved_values(ca)
        _augmented_body(eba, ca, copies, values, res_slot, tape_slot)
        cr = _Call(bf, config, el, pr)
        _reverse_body(ebr, cr, rule, copies, values, adj_slots)
    b = _join(aug, paths_a)
    tape = b.load(ir.ptr, tape_slot)
    if orig_ret.is_void:
        b.ret(tape)
    else:
        assert res_slot is not None
        agg: ir.Value = ir.UndefValue(aug.function_type.return_type)
        agg = b.insert_value(agg, tape, [0])
        agg = b.insert_value(agg, b.load(orig_ret, res_slot), [1])
        b.ret(agg)
    b = _join(rev, paths_r)
    if not outs:
        b.ret_void()
    else:
        ret_ty = rev.function_type.return_type
        out: ir.Value = ir.UndefValue(ret_ty)
        for j, k in enumerate(outs):
            out = b.insert_value(out, b.load(config.function.args[k].type, adj_slots[k]), [j])
        b.ret(out)
    return aug, rev


def _augmented_body(b: IRBuilder, c: _Call, copies: list[tuple[str, str]],
                    values: list[str], res_slot: ir.Value | None,
                    tape_slot: ir.Value) -> None:
    e = c.emitter(b)
    count = len(copies) + len(values)
    tape: ir.Value = ir.ConstantPointerNull()
    if count:
        tape = _malloc(b, ir.ConstantInt(ir.i64, 8 * count))

    def copy(k: int, role: str) -> None:
        arr = c.arg(role)
        assert arr is not None
        size = _bytes(e, _extent(e, c, role))
        buf = _malloc(b, size)
        b.memcpy(buf, arr, size)
        b.store(buf, _tape_slot(b, tape, k))
    for k, (role, when) in enumerate(copies):
        if when == "in":
            copy(k, role)
    for j, role in enumerate(values):  # as passed, before the call
        a = c.arg(role)
        assert a is not None
        b.store(b.load(_raw_type(c, role), a), _tape_slot(b, tape, len(copies) + j))
    result = _primal_call(b, c)
    if res_slot is not None:
        b.store(result, res_slot)
    for k, (role, when) in enumerate(copies):
        if when == "out":
            copy(k, role)
    b.store(tape, tape_slot)


def _reverse_body(b: IRBuilder, c: _Call, rule: BlasRule, copies: list[tuple[str, str]],
                  values: list[str], adj_slots: dict[int, ir.Value]) -> None:
    tape = c.p.tape
    assert tape is not None
    saved = {role: b.load(_raw_type(c, role), _tape_slot(b, tape, len(copies) + j))
             for j, role in enumerate(values)}
    _load_values(b, c, saved)
    bufs: list[ir.Value] = []
    for role in ARRAYS:
        a = c.arg(role)
        if a is not None:
            c.v[role] = a
    for role, when in rule.needs(BlasOperands({}, _markers(c))):  # as passed: not copied
        c.v[f"{role}_{when}"] = c.v[role]
    for k, (role, when) in enumerate(copies):
        buf = b.load(ir.ptr, _tape_slot(b, tape, k))
        c.v[f"{role}_{when}"] = buf
        bufs.append(buf)
    for role in ARRAYS:  # v[role]: its contents after the call when the rule needs them
        for when in ("in", "out"):
            if f"{role}_{when}" in c.v:
                c.v[role] = c.v[f"{role}_{when}"]
    e = c.emitter(b)
    d = _markers(c)
    dret = c.p.dret
    result_sh = c.shadows("result")
    if result_sh:  # numba's dot: the result's adjoint is in its shadow
        dret = b.load(c.el, result_sh[0])
        b.store(e.fp(0.0), result_sh[0])
    o = BlasOperands(dict(c.v), d, dret=dret)
    rule.reverse(e, o)
    for role, adj in o.adjoints.items():
        k = c.bf.index(role)
        assert k is not None
        if k in adj_slots:
            slot = adj_slots[k]
            b.store(b.fadd(b.load(adj.type, slot), adj), slot)
        elif c.shadows(role):
            sh = c.shadows(role)[0]
            b.store(b.fadd(b.load(c.el, sh), adj), sh)
    for buf in [*o.temps, *bufs]:
        _free(b, buf)
    if (copies or values) and c.config.free_memory:
        _free(b, tape)


def _combined(ctx: DerivativeContext, config: FnConfig, aug: ir.Function,
              rev: ir.Function) -> ir.Function:
    ft, _ = reverse_signature(config)
    f = _new_function(ctx, "diffe", config, ft)
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
