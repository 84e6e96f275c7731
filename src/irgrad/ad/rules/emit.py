"""Rule expressions -> IR instructions, plus small value helpers shared by the AD modules.

:func:`emit_expr` walks an :class:`~irgrad.ad.rules.expr.Expr` bottom-up and emits
``fadd fsub fmul fdiv fneg fcmp select``, intrinsic calls (``llvm.sqrt.f64``,
``llvm.pow.v4f64``... declared on demand with the type suffix) and runtime helpers
(``__irgrad_digamma``, defined in the module in IR on first use). Trivial cases fold
(``x * 1``, ``x + 0``, constant operands) so the derivative IR stays small.
:func:`emit_partials` gives a rule's partial derivatives for one instruction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from irgrad import ir
from irgrad.ad.rules.expr import LIBM_CALL, BinOp, Call, Cmp, Const, Expr, Neg, Select, Sym
from irgrad.ad.rules.rule import Rule
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder

_FCMP = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}
_SUFFIX = {
    "half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64", "x86_fp80": "f80",
    "fp128": "f128", "ppc_fp128": "ppcf128",
}  # fmt: skip
DIGAMMA = "__irgrad_digamma"


# --- constants and types -----------------------------------------------------------------


def type_suffix(ty: ir.Type) -> str:
    """LLVM's overload suffix: ``f64``, ``f32``, ``v4f64``..."""
    if isinstance(ty, ir.VectorType):
        prefix = "nxv" if ty.scalable else "v"
        return f"{prefix}{ty.count}{type_suffix(ty.element)}"
    if isinstance(ty, ir.FloatType):
        return _SUFFIX[ty.kind]
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    if ty.is_pointer:
        return f"p{getattr(ty, 'addrspace', 0)}"
    raise DifferentiationError(f"no intrinsic overload suffix for type {ty}")


def _x87_text(value: float) -> str:
    """The ``0xK...`` spelling of a double value as an x86_fp80 constant."""
    if math.isnan(value):
        return "0xK7FFFC000000000000000"
    sign = 0x8000 if math.copysign(1.0, value) < 0 else 0
    if math.isinf(value):
        return f"0xK{sign | 0x7FFF:04X}8000000000000000"
    if value == 0.0:
        return f"0xK{sign:04X}0000000000000000"
    m, e = math.frexp(abs(value))
    mantissa = int(m * (1 << 64))
    return f"0xK{sign | (e - 1 + 16383):04X}{mantissa:016X}"


def fp_constant(ty: ir.Type, value: float) -> ir.Constant:
    """A floating-point constant of ``ty`` (a splat for vectors)."""
    if isinstance(ty, ir.VectorType):
        return ir.ConstantVector(ty, [fp_constant(ty.element, value)], splat=True)
    if isinstance(ty, ir.FloatType):
        if ty.kind == "x86_fp80":
            return ir.ConstantFP(ty, float(value), _x87_text(float(value)))
        if ty.kind in ("fp128", "ppc_fp128") and value != 0.0:
            raise DifferentiationError(f"constants of type {ty} are not supported yet")
        if ty.kind in ("fp128", "ppc_fp128"):
            return ir.null_value(ty)  # type: ignore[return-value]
        return ir.ConstantFP(ty, float(value))
    raise DifferentiationError(f"not a floating-point type: {ty}")


def const_value(v: ir.Value) -> float | None:
    """The number a floating-point constant (or splat) holds, else None."""
    if isinstance(v, ir.ConstantFP):
        return v.value
    if isinstance(v, ir.ConstantAggregateZero) and v.type.is_fp_or_fp_vector:
        return 0.0
    if isinstance(v, ir.ConstantVector):
        elems = {id(e) for e in v.operands}
        if len(elems) == 1 or v.splat:
            return const_value(v.operands[0])
        values = [const_value(e) for e in v.operands]
        if values and all(x is not None and x == values[0] for x in values):
            return values[0]
    return None


def is_const(v: ir.Value, value: float) -> bool:
    c = const_value(v)
    return c is not None and c == value and (value != 0.0 or math.copysign(1, c) > 0)


def is_zero(v: ir.Value) -> bool:
    c = const_value(v)
    return c is not None and c == 0.0


# --- folding arithmetic ------------------------------------------------------------------


def fadd(b: IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    if is_zero(y):
        return x
    if is_zero(x):
        return y
    cx, cy = const_value(x), const_value(y)
    if cx is not None and cy is not None:
        return fp_constant(x.type, cx + cy)
    return b.fadd(x, y)


def fsub(b: IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    if is_zero(y):
        return x
    if is_zero(x):
        return fneg(b, y)
    cx, cy = const_value(x), const_value(y)
    if cx is not None and cy is not None:
        return fp_constant(x.type, cx - cy)
    return b.fsub(x, y)


def fmul(b: IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """``x * y`` in derivative code; a constant zero factor gives zero whatever the other
    factor (a symbolic zero: 0 * inf is 0 here, not NaN)."""
    if is_zero(x) or is_zero(y):
        return fp_constant(x.type if isinstance(x.type, ir.VectorType) else y.type, 0.0)
    if is_const(x, 1.0):
        return y
    if is_const(y, 1.0):
        return x
    if is_const(x, -1.0):
        return fneg(b, y)
    if is_const(y, -1.0):
        return fneg(b, x)
    cx, cy = const_value(x), const_value(y)
    if cx is not None and cy is not None:
        return fp_constant(x.type, cx * cy)
    return b.fmul(x, y)


def fdiv(b: IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    if is_const(y, 1.0):
        return x
    cx, cy = const_value(x), const_value(y)
    if cx is not None and cy is not None and cy != 0.0:
        return fp_constant(x.type, cx / cy)
    return b.fdiv(x, y)


def fneg(b: IRBuilder, x: ir.Value) -> ir.Value:
    c = const_value(x)
    if c is not None:
        return fp_constant(x.type, -c)
    return b.fneg(x)


def splat(b: IRBuilder, scalar: ir.Value, ty: ir.Type) -> ir.Value:
    """``scalar`` broadcast to the vector type ``ty`` (``scalar`` itself if ``ty`` is not)."""
    if not isinstance(ty, ir.VectorType) or scalar.type == ty:
        return scalar
    c = const_value(scalar)
    if c is not None:
        return fp_constant(ty, c)
    one = b.insert_element(ir.PoisonValue(ir.VectorType(1, scalar.type)), scalar, 0)
    return b.shuffle_vector(one, ir.PoisonValue(one.type), [0] * ty.count)


# --- expressions -------------------------------------------------------------------------


def emit_expr(
    builder: IRBuilder, expr: Expr, env: Mapping[str, ir.Value], ty: ir.Type
) -> ir.Value:
    """Emit ``expr`` at the builder's position; ``env`` binds its symbols, ``ty`` is the
    floating-point (or floating-point vector) type of the result."""
    memo: dict[Expr, ir.Value] = {}
    return _emit(builder, expr, env, ty, memo)


def _emit(
    b: IRBuilder, e: Expr, env: Mapping[str, ir.Value], ty: ir.Type, memo: dict[Expr, ir.Value]
) -> ir.Value:
    hit = memo.get(e)
    if hit is not None:
        return hit
    out: ir.Value
    if isinstance(e, Sym):
        if e.name not in env:
            raise DifferentiationError(f"internal: rule symbol {e.name} has no value")
        out = env[e.name]
        if out.type.is_fp_or_fp_vector and out.type != ty:
            out = splat(b, out, ty) if isinstance(ty, ir.VectorType) else out
    elif isinstance(e, Const):
        out = fp_constant(ty, e.value)
    elif isinstance(e, Neg):
        out = fneg(b, _emit(b, e.operand, env, ty, memo))
    elif isinstance(e, BinOp):
        x = _emit(b, e.lhs, env, ty, memo)
        y = _emit(b, e.rhs, env, ty, memo)
        out = {"+": fadd, "-": fsub, "*": fmul, "/": fdiv}[e.op](b, x, y)
    elif isinstance(e, Cmp):
        x = _emit(b, e.lhs, env, ty, memo)
        y = _emit(b, e.rhs, env, ty, memo)
        out = b.fcmp(_FCMP[e.pred], x, y)
    elif isinstance(e, Select):
        c = _emit(b, e.cond, env, ty, memo)
        t = _emit(b, e.if_true, env, ty, memo)
        f = _emit(b, e.if_false, env, ty, memo)
        out = t if t is f else b.select(c, t, f)
    elif isinstance(e, Call):
        out = _emit_call(b, e, env, ty, memo)
    else:  # pragma: no cover - the DSL has no other nodes
        raise DifferentiationError(f"internal: cannot emit rule expression {e}")
    memo[e] = out
    return out


def _emit_call(
    b: IRBuilder, e: Call, env: Mapping[str, ir.Value], ty: ir.Type, memo: dict[Expr, ir.Value]
) -> ir.Value:
    name = e.fn
    if name == "to_fp":
        arg = _raw_operand(b, e.args[0], env, ty, memo)
        if arg.type.is_fp_or_fp_vector:
            return arg
        scalar_ty = ty.element if isinstance(ty, ir.VectorType) else ty
        return splat(b, b.sitofp(arg, scalar_ty), ty)
    args = [_emit(b, a, env, ty, memo) for a in e.args]
    if name == "sign":
        x = args[0]
        pos = b.fcmp("ogt", x, fp_constant(ty, 0.0))
        neg = b.fcmp("olt", x, fp_constant(ty, 0.0))
        inner = b.select(neg, fp_constant(ty, -1.0), fp_constant(ty, 0.0))
        return b.select(pos, fp_constant(ty, 1.0), inner)
    if name == "frexp_exp":
        int_ty: ir.Type = (
            ir.VectorType(ty.count, ir.i32) if isinstance(ty, ir.VectorType) else ir.i32
        )
        fn_ty = ir.FunctionType(ir.StructType([ty, int_ty]), [ty])
        fn = b.get_or_insert_function(f"llvm.frexp.{type_suffix(ty)}.{type_suffix(int_ty)}",
                                      fn_ty)
        pair = b.call(fn, [args[0]])
        exp_int = b.extract_value(pair, 1)
        return b.sitofp(exp_int, ty)
    if name == "digamma":
        return call_digamma(b, args[0], ty)
    spec = e.spec
    if spec.emit.startswith("llvm."):
        return intrinsic(b, spec.emit, ty, args)
    if spec.emit.startswith(LIBM_CALL):
        return call_libm(b, spec.emit.removeprefix(LIBM_CALL), args, ty)
    raise DifferentiationError(f"internal: no emitter for rule function {name}")


def _raw_operand(
    b: IRBuilder, e: Expr, env: Mapping[str, ir.Value], ty: ir.Type, memo: dict[Expr, ir.Value]
) -> ir.Value:
    """An operand that may be an integer (``to_fp(Y)`` with integer ``Y``)."""
    if isinstance(e, Sym) and e.name in env and env[e.name].type.is_integer:
        return env[e.name]
    return _emit(b, e, env, ty, memo)


def intrinsic(b: IRBuilder, base: str, ty: ir.Type, args: Sequence[ir.Value]) -> ir.Value:
    """Call the overloaded intrinsic ``base`` at type ``ty`` (declared on demand)."""
    fn_ty = ir.FunctionType(ty, [a.type for a in args])
    fn = b.get_or_insert_function(f"{base}.{type_suffix(ty)}", fn_ty)
    return b.call(fn, list(args))


_LIBM_SUFFIX = {"double": "", "float": "f", "x86_fp80": "l", "fp128": "l"}


def call_libm(b: IRBuilder, name: str, args: Sequence[ir.Value], ty: ir.Type) -> ir.Value:
    """``name(args...)`` through the C library function of type ``ty`` (``j1f`` for float,
    ``j1l`` for long double), lane by lane for a vector. With two arguments the first is
    an integer order (``jn(n, x)``), computed as a float and converted to ``int``."""
    if isinstance(ty, ir.VectorType):
        out: ir.Value = ir.PoisonValue(ty)
        for k in range(ty.count):
            lanes = [b.extract_element(a, k) for a in args]
            out = b.insert_element(out, call_libm(b, name, lanes, ty.element), k)
        return out
    suffix = _LIBM_SUFFIX.get(ty.kind) if hasattr(ty, "kind") else None
    if suffix is None:  # half, bfloat: through double
        wide = [_fp_cast(b, a, ir.double) for a in args]
        return _fp_cast(b, call_libm(b, name, wide, ir.double), ty)
    values = list(args)
    if len(values) == 2:
        values[0] = b.fptosi(values[0], ir.i32)
    fn_ty = ir.FunctionType(ty, [v.type for v in values])
    fn = b.get_or_insert_function(name + suffix, fn_ty)
    return b.call(fn, values)


def call_digamma(b: IRBuilder, x: ir.Value, ty: ir.Type) -> ir.Value:
    """``psi(x)`` through the module's ``__irgrad_digamma`` (double) helper."""
    if isinstance(ty, ir.VectorType):
        out: ir.Value = ir.PoisonValue(ty)
        for k in range(ty.count):
            lane = b.extract_element(x, k)
            out = b.insert_element(out, call_digamma(b, lane, ty.element), k)
        return out
    module = b.module
    assert module is not None
    fn = define_digamma(module)
    arg = x if x.type == ir.double else _fp_cast(b, x, ir.double)
    res = b.call(fn, [arg])
    return res if ty == ir.double else _fp_cast(b, res, ty)


def define_digamma(module: ir.Module) -> ir.Function:
    """Define ``double __irgrad_digamma(double)`` in IR (recurrence + asymptotic series)."""
    existing = module.get_function(DIGAMMA)
    if existing is not None:
        return existing
    d = ir.double
    fn = ir.Function(DIGAMMA, ir.FunctionType(d, [d]), linkage="internal", arg_names=["x"])
    module.add_function(fn)
    x = fn.args[0]
    entry = fn.append_basic_block("entry")
    reflect = fn.append_basic_block("reflect")
    loop = fn.append_basic_block("loop")
    step = fn.append_basic_block("step")
    tail = fn.append_basic_block("tail")
    b = IRBuilder(entry)
    b.cond_br(b.fcmp("olt", x, 0.5), reflect, loop)
    b.position_at_end(reflect)  # psi(x) = psi(1 - x) - pi / tan(pi x)
    r = b.call(fn, [b.fsub(1.0, x)])
    tan = module.get_or_insert_function("tan", ir.FunctionType(d, [d]))
    t = b.call(tan, [b.fmul(math.pi, x)])
    b.ret(b.fsub(r, b.fdiv(math.pi, t)))
    b.position_at_end(loop)
    xv = b.phi(d, [(x, entry)], name="xv")
    acc = b.phi(d, [(fp_constant(d, 0.0), entry)], name="acc")
    b.cond_br(b.fcmp("olt", xv, 10.0), step, tail)
    b.position_at_end(step)  # psi(x) = psi(x + 1) - 1/x
    acc_next = b.fsub(acc, b.fdiv(1.0, xv))
    x_next = b.fadd(xv, 1.0)
    b.br(loop)
    xv.add_incoming(x_next, step)
    acc.add_incoming(acc_next, step)
    b.position_at_end(tail)
    inv = b.fdiv(1.0, xv)
    inv2 = b.fmul(inv, inv)
    series: ir.Value = b.fdiv(inv2, 132.0)
    for c in (1 / 240, 1 / 252, 1 / 120, 1 / 12):
        series = b.fmul(inv2, b.fsub(c, series))
    log_x = intrinsic(b, "llvm.log", d, [xv])
    result = b.fsub(b.fsub(b.fadd(acc, log_x), b.fmul(0.5, inv)), series)
    b.ret(result)
    return fn


# --- zero times infinity -------------------------------------------------------------------

# functions bounded for finite arguments: their partials stay finite
_BOUNDED_FUNCTIONS = frozenset(["sin", "cos", "fabs", "sign", "copysign", "trunc", "to_fp",
                                "frexp_exp"])


def may_be_unbounded(e: Expr) -> bool:
    """Can partial ``e`` be infinite (or NaN) for finite operands? It can when it divides,
    calls an unbounded function (``log``, ``pow``, ``exp``...) or uses the primal RESULT
    (which may have overflowed)."""
    if isinstance(e, Sym):
        return e.name == "RESULT"
    if isinstance(e, BinOp) and e.op == "/":
        return True
    if isinstance(e, Call) and e.fn not in _BOUNDED_FUNCTIONS:
        return True
    if isinstance(e, Select):
        return may_be_unbounded(e.if_true) or may_be_unbounded(e.if_false)
    return any(may_be_unbounded(c) for c in e.children)


def strong_zero(b: IRBuilder, d: ir.Value, scaled: ir.Value) -> ir.Value:
    """``d == 0 ? 0 : scaled`` where ``scaled`` is ``d`` times a partial: a zero adjoint
    (or tangent) gives a zero contribution even where the partial is infinite, instead of
    0 * inf = NaN (a value whose derivative is not needed, the untaken arm of a select).
    The zero is -0.0, the additive identity of the sum it goes into."""
    c = const_value(d)
    if c is not None:
        return fp_constant(d.type, -0.0) if c == 0.0 else scaled
    is_zero_d = b.fcmp("oeq", d, fp_constant(d.type, 0.0))
    return b.select(is_zero_d, fp_constant(scaled.type, -0.0), scaled)


def constant_operands(operands: Sequence[ir.Value]) -> frozenset[int]:
    """The operands that are nonzero finite floating-point constants (where a rule's
    ``when_constant`` partials apply), of types no wider than double: the forms fold
    constants in Python's double precision, which would be less precise than a
    ``long double`` operation."""
    out = set()
    for k, v in enumerate(operands):
        c = const_value(v)
        scalar = v.type.scalar_type
        if c is not None and c != 0.0 and math.isfinite(c) and \
                getattr(scalar, "bits", 128) <= 64:
            out.add(k)
    return frozenset(out)


def emit_adjoint(b: IRBuilder, rule: Rule, i: int, env: Mapping[str, ir.Value],
                 ty: ir.Type, constants: frozenset[int] = frozenset()) -> ir.Value:
    """Reverse mode: ``DRET * partial_i`` of ``rule`` (``env`` binds DRET and the
    operands; ``constants``: the operands that are nonzero finite constants), checked for
    a zero ``DRET`` where the partial may be infinite."""
    value = emit_expr(b, rule.adjoint(i, constants), env, ty)
    if may_be_unbounded(rule.partials_given(constants)[i]):
        return strong_zero(b, env["DRET"], value)
    return value


# --- partial derivatives of one operation ------------------------------------------------


def rule_env(
    operands: Sequence[ir.Value], result: ir.Value | None, builder: IRBuilder | None = None,
    result_index: int | None = None,
) -> dict[str, ir.Value]:
    env: dict[str, ir.Value] = {}
    for name, v in zip(("X", "Y", "Z"), operands, strict=False):
        env[name] = v
    if result is not None:
        if result.type.is_struct and builder is not None:
            result = builder.extract_value(result, result_index or 0)
        env["RESULT"] = result
    return env


def emit_partials(
    builder: IRBuilder, rule: Rule, operands: Sequence[ir.Value], result: ir.Value
) -> list[ir.Value | None]:
    """``d result / d operand_i`` for each operand (None where it is inactive or zero)."""
    needs_result = rule.uses_result
    env = rule_env(operands, result if needs_result else None, builder, rule.result_index)
    partials = rule.partials_given(constant_operands(operands))
    out: list[ir.Value | None] = []
    memo: dict[Expr, ir.Value] = {}
    for i, op in enumerate(operands):
        if i >= rule.arity or i not in rule.active_operands:
            out.append(None)
            continue
        partial = partials[i]
        if isinstance(partial, Const) and partial.value == 0.0:
            out.append(None)
            continue
        out.append(_emit(builder, partial, env, op.type, memo))
    return out


# --- conversions between the user's values and the derivative's -------------------------


def _fp_cast(b: IRBuilder, v: ir.Value, ty: ir.Type) -> ir.Value:
    src_bits = v.type.scalar_type.bits  # type: ignore[attr-defined]
    dst_bits = ty.scalar_type.bits  # type: ignore[attr-defined]
    if v.type == ty:
        return v
    c = const_value(v)
    if c is not None:
        return fp_constant(ty, c)
    return b.fpext(v, ty) if dst_bits > src_bits else b.fptrunc(v, ty)


def coerce_scalar(b: IRBuilder, v: ir.Value, ty: ir.Type) -> ir.Value:
    """Convert a vararg value to a parameter type (float<->double, int widths, addrspace)."""
    if v.type == ty:
        return v
    if v.type.is_fp_or_fp_vector and ty.is_fp_or_fp_vector:
        return _fp_cast(b, v, ty)
    if v.type.is_integer and ty.is_integer:
        src, dst = v.type.width, ty.width  # type: ignore[attr-defined]
        if isinstance(v, ir.ConstantInt):
            return ir.ConstantInt(ty, v.value)
        return b.sext(v, ty) if dst > src else b.trunc(v, ty)
    if v.type.is_pointer and ty.is_pointer:
        return b.addrspacecast(v, ty)
    raise ValueError(f"cannot convert {v.type} to {ty}")


def _leaves(b: IRBuilder, v: ir.Value) -> list[ir.Value]:
    ty = v.type
    if isinstance(ty, ir.StructType | ir.IdentifiedStructType):
        out: list[ir.Value] = []
        for k in range(len(ty.elements)):
            out.extend(_leaves(b, b.extract_value(v, k)))
        return out
    if isinstance(ty, ir.ArrayType):
        out = []
        for k in range(ty.count):
            out.extend(_leaves(b, b.extract_value(v, k)))
        return out
    if isinstance(ty, ir.VectorType):
        return [b.extract_element(v, k) for k in range(ty.count)]
    return [v]


def _leaf_types(ty: ir.Type) -> list[ir.Type]:
    if isinstance(ty, ir.StructType | ir.IdentifiedStructType):
        return [t for e in ty.elements for t in _leaf_types(e)]
    if isinstance(ty, ir.ArrayType | ir.VectorType):
        return _leaf_types(ty.element) * ty.count
    return [ty]


def _build(b: IRBuilder, ty: ir.Type, leaves: list[ir.Value]) -> ir.Value:
    """Assemble a value of ``ty`` from its scalar leaves (consumed from the front)."""
    if isinstance(ty, ir.StructType | ir.IdentifiedStructType | ir.ArrayType):
        elems = ty.elements if not isinstance(ty, ir.ArrayType) else [ty.element] * ty.count
        agg: ir.Value = ir.UndefValue(ty)
        for k, et in enumerate(elems):
            agg = b.insert_value(agg, _build(b, et, leaves), k)
        return agg
    if isinstance(ty, ir.VectorType):
        vec: ir.Value = ir.UndefValue(ty)
        for k in range(ty.count):
            vec = b.insert_element(vec, _build(b, ty.element, leaves), k)
        return vec
    return coerce_scalar(b, leaves.pop(0), ty)


def adapt_value(b: IRBuilder, v: ir.Value, ty: ir.Type) -> ir.Value:
    """``v`` reshaped to ``ty`` leaf by leaf (``{double, double}`` <-> ``[2 x double]`` <->
    ``<2 x float>``...); ValueError when the leaves do not correspond."""
    if v.type == ty:
        return v
    src, dst = _leaf_types(v.type), _leaf_types(ty)
    if len(src) != len(dst):
        raise ValueError(f"{len(src)} value(s) cannot be returned as {len(dst)}")
    for s, d in zip(src, dst, strict=True):
        same_kind = (s.is_float and d.is_float) or (s.is_integer and d.is_integer) or s == d
        if not same_kind:
            raise ValueError(f"{s} cannot be returned as {d}")
    if not v.type.is_aggregate and not v.type.is_vector and len(dst) == 1:
        return _build(b, ty, [v])
    return _build(b, ty, _leaves(b, v))
