"""Derivatives of C99 complex arithmetic and the complex math library (``double complex``).

On x86-64 and AArch64 a ``double complex`` is passed as two doubles (real, imaginary)
and returned as ``{ double, double }``. Clang multiplies inline and calls ``__muldc3``
only when the naive product is NaN; it always divides with ``__divdc3`` (unless
``-ffast-math`` or ``-fcx-limited-range``). ``<complex.h>``'s ``cexp``, ``csqrt``, ... are
library calls, as are ``std::complex<double>``'s ``exp``/``sqrt`` (libstdc++ calls the
builtins). Without these rules every program with a complex division stopped at
"No derivative found for __divdc3".

Every such function is holomorphic where it is differentiable, so its Jacobian in real
coordinates is multiplication by the complex derivative ``f'(z) = p + iq``:
``[[p, -q], [q, p]]``. Forward mode multiplies the input tangent by ``f'(z)``; reverse
mode adds ``conj(f'(z))`` times the output adjoint, that is ``dx += p dr + q di``,
``dy += -q dr + p di``. ``f'`` is built from the function's own result and the library
(``csin' = ccos``). ``cabs`` and ``carg`` return a real: their gradients are
``(x, y) / |z|`` and ``(-y, x) / |z|^2``. The ``float`` variants (``cexpf``,
``__mulsc3``) follow the ABI the call has: x86-64 passes a ``float complex`` as one
``<2 x float>``. ``long double complex`` (passed in memory) is not covered and stays
"No derivative found".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from irgrad import ir
from irgrad.ir.builder import IRBuilder

Complex = tuple[ir.Value, ir.Value]
#: f'(z) from the builder, the operands as complex numbers and the result (None for the
#: two real-valued functions): one complex derivative per complex operand
Derivative = Callable[[IRBuilder, list[Complex], Complex], list[Complex]]

def _k(like: ir.Value, v: float) -> ir.Value:
    """The constant ``v`` of ``like``'s floating-point type."""
    return ir.ConstantFP(like.type, v)


def cmul(b: IRBuilder, z: Complex, w: Complex) -> Complex:
    (a, c), (e, f) = z, w
    return b.fsub(b.fmul(a, e), b.fmul(c, f)), b.fadd(b.fmul(a, f), b.fmul(c, e))


def crecip(b: IRBuilder, w: Complex) -> Complex:
    c, d = w
    n = b.fadd(b.fmul(c, c), b.fmul(d, d))
    return b.fdiv(c, n), b.fneg(b.fdiv(d, n))


def _cadd_real(b: IRBuilder, z: Complex, r: float) -> Complex:
    return b.fadd(z[0], _k(z[0], r)), z[1]


def _cneg(b: IRBuilder, z: Complex) -> Complex:
    return b.fneg(z[0]), b.fneg(z[1])


def _libcall(b: IRBuilder, name: str, z: Complex) -> Complex:
    """``name(z)`` of the library in ``z``'s precision, with the ABI the front end gives
    that precision (declared in the module if missing)."""
    abi = Abi.of(z[0].type)
    assert b.module is not None
    fn = b.module.get_function(abi.spell(name)) or b.module.get_or_insert_function(
        abi.spell(name), abi.unary_type())
    args = [abi.pack(b, z)] if abi.vector else list(z)
    return abi.parts(b, b.call(fn, args))


def _one_minus_sq(b: IRBuilder, z: Complex, sign: float) -> Complex:
    """``1 + sign * z^2``."""
    sq = cmul(b, z, z)
    return _cadd_real(b, sq if sign > 0 else _cneg(b, sq), 1.0)


def _unary(fn: Callable[[IRBuilder, Complex, Complex], Complex]) -> Derivative:
    return lambda b, ops, res: [fn(b, ops[0], res)]


COMPLEX_FUNCTIONS: dict[str, Derivative] = {
    "cexp": _unary(lambda b, z, f: f),
    "clog": _unary(lambda b, z, f: crecip(b, z)),
    "csqrt": _unary(lambda b, z, f: crecip(b, (b.fmul(f[0], _k(f[0], 2.0)),
                                                b.fmul(f[1], _k(f[1], 2.0))))),
    "csin": _unary(lambda b, z, f: _libcall(b, "ccos", z)),
    "ccos": _unary(lambda b, z, f: _cneg(b, _libcall(b, "csin", z))),
    "ctan": _unary(lambda b, z, f: _cadd_real(b, cmul(b, f, f), 1.0)),
    "csinh": _unary(lambda b, z, f: _libcall(b, "ccosh", z)),
    "ccosh": _unary(lambda b, z, f: _libcall(b, "csinh", z)),
    "ctanh": _unary(lambda b, z, f: _cadd_real(b, _cneg(b, cmul(b, f, f)), 1.0)),
    "casin": _unary(lambda b, z, f: crecip(b, _libcall(b, "csqrt", _one_minus_sq(b, z, -1)))),
    "cacos": _unary(lambda b, z, f: _cneg(
        b, crecip(b, _libcall(b, "csqrt", _one_minus_sq(b, z, -1))))),
    "catan": _unary(lambda b, z, f: crecip(b, _one_minus_sq(b, z, 1))),
    "casinh": _unary(lambda b, z, f: crecip(b, _libcall(b, "csqrt", _one_minus_sq(b, z, 1)))),
    "cacosh": _unary(lambda b, z, f: crecip(b, cmul(
        b, _libcall(b, "csqrt", _cadd_real(b, z, -1.0)),
        _libcall(b, "csqrt", _cadd_real(b, z, 1.0))))),
    "catanh": _unary(lambda b, z, f: crecip(b, _one_minus_sq(b, z, -1))),
    # binary: d/dz and d/dw
    "__muldc3": lambda b, ops, f: [ops[1], ops[0]],
    "__divdc3": lambda b, ops, f: [crecip(b, ops[1]),
                                   _cneg(b, cmul(b, f, crecip(b, ops[1])))],
    "cpow": lambda b, ops, f: [cmul(b, ops[1], cmul(b, f, crecip(b, ops[0]))),
                               cmul(b, f, _libcall(b, "clog", ops[0]))],
}
#: real-valued: the gradient (d/dx, d/dy) from z and |z| or arg z
REAL_VALUED = ("cabs", "carg")
#: the float spellings of the two arithmetic helpers
_FLOAT_HELPERS = {"__mulsc3": "__muldc3", "__divsc3": "__divdc3"}
#: flang's runtime for ``z ** n`` (complex(8) and complex(4), integer(4) and integer(8)):
#: one complex operand and the integer exponent last
INTEGER_POWERS = ("_FortranAzpowi", "_FortranAzpowk", "_FortranAcpowi", "_FortranAcpowk")


@dataclass(frozen=True)
class Abi:
    """How one precision's complex values cross calls: ``double complex`` as two doubles
    and ``{ double, double }``; ``float complex`` (x86-64) as one ``<2 x float>``."""

    elem: ir.FloatType
    vector: bool

    @staticmethod
    def of(elem: ir.Type) -> Abi:
        assert isinstance(elem, ir.FloatType)
        return Abi(elem, elem == ir.float_)

    @property
    def pair_type(self) -> ir.Type:
        return (ir.VectorType(2, self.elem) if self.vector
                else ir.StructType([self.elem, self.elem]))

    def spell(self, base: str) -> str:
        return base + "f" if self.elem == ir.float_ else base

    def unary_type(self) -> ir.FunctionType:
        params = [self.pair_type] if self.vector else [self.elem, self.elem]
        return ir.FunctionType(self.pair_type, params)

    def pack(self, b: IRBuilder, z: Complex) -> ir.Value:
        out: ir.Value = ir.null_value(self.pair_type)
        for k, part in enumerate(z):
            out = (b.insert_element(out, part, k) if self.vector
                   else b.insert_value(out, part, [k]))
        return out

    @staticmethod
    def parts(b: IRBuilder, v: ir.Value) -> Complex:
        if v.type.is_vector:
            return b.extract_element(v, 0), b.extract_element(v, 1)
        return b.extract_value(v, [0]), b.extract_value(v, [1])


def complex_base(call: ir.CallBase, name: str | None) -> str | None:
    """The double spelling of the function ``call`` calls (``cexpf`` -> ``cexp``) when it
    is one of the functions above with its precision's usual ABI (else None)."""
    if name is None:
        return None
    if name in INTEGER_POWERS:
        args = list(call.args)
        elem = _element(call.type)
        ok = (elem in (ir.double, ir.float_) and len(args) > 1
              and args[-1].type.is_integer and _pairs_shape(args[:-1], elem) == 1)
        return "zpowi" if ok else None
    base = _FLOAT_HELPERS.get(name, name)
    if base not in COMPLEX_FUNCTIONS and base not in REAL_VALUED and name.endswith("f"):
        base = name[:-1]
    if base not in COMPLEX_FUNCTIONS and base not in REAL_VALUED:
        return None
    elem = call.type if base in REAL_VALUED else _element(call.type)
    if elem not in (ir.double, ir.float_) or (elem == ir.float_) != (name != base):
        return None
    binary = base in ("__muldc3", "__divdc3", "cpow")
    return base if _pairs_shape(list(call.args), elem) == (2 if binary else 1) else None


def _element(t: ir.Type) -> ir.Type | None:
    """The part type of a complex value returned as ``<2 x T>`` or ``{ T, T }``."""
    if t.is_vector and t == ir.VectorType(2, t.element):  # type: ignore[attr-defined]
        return t.element  # type: ignore[attr-defined]
    if t.is_struct and len(t.elements) == 2 and t.elements[0] == t.elements[1]:  # type: ignore[attr-defined]
        return t.elements[0]  # type: ignore[attr-defined]
    return None


def _pairs_shape(args: list[ir.Value], elem: ir.Type) -> int:
    """How many complex operands ``args`` hold (scalars in pairs or ``<2 x elem>``; -1
    when they are not all that)."""
    slots = operand_slots(args)
    if sum(len(slot) for slot in slots) != len(args):
        return -1  # (an integer, or an unpaired scalar)
    fits = all(a.type == (ir.VectorType(2, elem) if len(slot) == 1 else elem)
               for slot in slots for a in slot)
    return len(slots) if fits else -1


def operand_slots(args: Sequence[ir.Value]) -> list[tuple[ir.Value, ...]]:
    """The argument(s) each complex operand came in: one vector, or two scalars; an
    integer (an exponent) ends them."""
    out: list[tuple[ir.Value, ...]] = []
    k = 0
    while k < len(args) and not args[k].type.is_integer:
        step = 1 if args[k].type.is_vector else 2
        out.append(tuple(args[k:k + step]))
        k += step
    return out


def operand_pairs(b: IRBuilder, args: Sequence[ir.Value]) -> list[Complex]:
    """The complex operands of a call (its arguments as given: pairs or vectors)."""
    return [Abi.parts(b, slot[0]) if len(slot) == 1 else (slot[0], slot[1])
            for slot in operand_slots(args)]


def complex_derivatives(b: IRBuilder, name: str, site: ir.CallBase, args: Sequence[ir.Value],
                        result: ir.Value) -> list[Complex]:
    """``f'`` with respect to each complex operand of the call ``site``, from the primal
    operands and result where the builder is (for ``cabs``/``carg``: the gradient
    ``(d/dx, d/dy)`` of the one operand)."""
    ops = operand_pairs(b, args)
    x, y = ops[0]
    if name == "cabs":
        return [(b.fdiv(x, result), b.fdiv(y, result))]
    if name == "carg":
        r2 = b.fadd(b.fmul(x, x), b.fmul(y, y))
        return [(b.fneg(b.fdiv(y, r2)), b.fdiv(x, r2))]
    if name == "zpowi":  # n z^(n-1), by the same runtime function (exact at z = 0)
        e = args[-1]
        lower = b.call(site.callee, [*args[:-1], b.sub(e, ir.ConstantInt(e.type, 1))],
                       site.function_type)
        n = b.sitofp(e, x.type)
        f = Abi.parts(b, lower)
        return [(b.fmul(n, f[0]), b.fmul(n, f[1]))]
    return COMPLEX_FUNCTIONS[name](b, ops, Abi.parts(b, result))


def tangent_of(b: IRBuilder, name: str, derivs: list[Complex], tangents: list[Complex],
               result_type: ir.Type) -> ir.Value:
    """The result's tangent: ``sum_j f'_j * t_j`` (of the call's complex type), or for the
    real-valued functions the gradient dotted with the tangent."""
    if name in REAL_VALUED:
        (gx, gy), (tx, ty) = derivs[0], tangents[0]
        return b.fadd(b.fmul(gx, tx), b.fmul(gy, ty))
    re: ir.Value | None = None
    im: ir.Value | None = None
    for d, t in zip(derivs, tangents, strict=True):
        pr, pi = cmul(b, d, t)
        re, im = (pr, pi) if re is None or im is None else (b.fadd(re, pr), b.fadd(im, pi))
    assert re is not None and im is not None
    return Abi(re.type, result_type.is_vector).pack(b, (re, im))  # type: ignore[arg-type]


def adjoints_of(b: IRBuilder, name: str, derivs: list[Complex],
                d: ir.Value) -> list[Complex]:
    """What each complex operand receives from the result's adjoint ``d``: ``conj(f') *
    (dr + i di)`` (for the real-valued functions: the gradient times ``d``)."""
    if name in REAL_VALUED:
        gx, gy = derivs[0]
        return [(b.fmul(gx, d), b.fmul(gy, d))]
    dr, di = Abi.parts(b, d)
    return [(b.fadd(b.fmul(p, dr), b.fmul(q, di)), b.fsub(b.fmul(p, di), b.fmul(q, dr)))
            for p, q in derivs]


__all__ = ["COMPLEX_FUNCTIONS", "REAL_VALUED", "Abi", "adjoints_of", "complex_base",
           "complex_derivatives", "operand_pairs", "operand_slots", "tangent_of"]
