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
``(x, y) / |z|`` and ``(-y, x) / |z|^2``. The ``float`` and ``long double`` variants
(passed as a vector or in memory) are not covered and stay "No derivative found".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from irgrad import ir
from irgrad.ir.builder import IRBuilder

Complex = tuple[ir.Value, ir.Value]
#: f'(z) from the builder, the operands as complex numbers and the result (None for the
#: two real-valued functions): one complex derivative per complex operand
Derivative = Callable[[IRBuilder, list[Complex], Complex], list[Complex]]

_D = ir.double
_PAIR = ir.StructType([_D, _D])


def _c(b: IRBuilder, v: float) -> ir.Value:
    return ir.ConstantFP(_D, v)


def cmul(b: IRBuilder, z: Complex, w: Complex) -> Complex:
    (a, c), (e, f) = z, w
    return b.fsub(b.fmul(a, e), b.fmul(c, f)), b.fadd(b.fmul(a, f), b.fmul(c, e))


def crecip(b: IRBuilder, w: Complex) -> Complex:
    c, d = w
    n = b.fadd(b.fmul(c, c), b.fmul(d, d))
    return b.fdiv(c, n), b.fneg(b.fdiv(d, n))


def _cadd_real(b: IRBuilder, z: Complex, r: float) -> Complex:
    return b.fadd(z[0], _c(b, r)), z[1]


def _cneg(b: IRBuilder, z: Complex) -> Complex:
    return b.fneg(z[0]), b.fneg(z[1])


def _libcall(b: IRBuilder, name: str, z: Complex) -> Complex:
    """``name(z)`` of the library (declared in the module if missing)."""
    module = b.module
    assert module is not None
    fn = module.get_function(name) or module.get_or_insert_function(
        name, ir.FunctionType(_PAIR, [_D, _D]))
    r = b.call(fn, [z[0], z[1]])
    return b.extract_value(r, [0]), b.extract_value(r, [1])


def _one_minus_sq(b: IRBuilder, z: Complex, sign: float) -> Complex:
    """``1 + sign * z^2``."""
    sq = cmul(b, z, z)
    return _cadd_real(b, sq if sign > 0 else _cneg(b, sq), 1.0)


def _unary(fn: Callable[[IRBuilder, Complex, Complex], Complex]) -> Derivative:
    return lambda b, ops, res: [fn(b, ops[0], res)]


COMPLEX_FUNCTIONS: dict[str, Derivative] = {
    "cexp": _unary(lambda b, z, f: f),
    "clog": _unary(lambda b, z, f: crecip(b, z)),
    "csqrt": _unary(lambda b, z, f: crecip(b, (b.fmul(f[0], _c(b, 2.0)),
                                                b.fmul(f[1], _c(b, 2.0))))),
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


def is_complex_call(call: ir.CallBase, name: str | None) -> bool:
    """A call of one of the functions above with the ``double complex`` ABI."""
    if name not in COMPLEX_FUNCTIONS and name not in REAL_VALUED:
        return False
    want = _D if name in REAL_VALUED else _PAIR
    args = list(call.args)
    return (call.type == want and len(args) in (2, 4) and all(a.type == _D for a in args)
            and (len(args) == 4) == (name in ("__muldc3", "__divdc3", "cpow")))


def complex_derivatives(b: IRBuilder, name: str, args: Sequence[ir.Value],
                        result: ir.Value) -> list[Complex]:
    """``f'`` with respect to each complex operand, from the primal operands and result
    (for ``cabs``/``carg``: the gradient ``(d/dx, d/dy)`` of the one operand)."""
    ops = [(args[k], args[k + 1]) for k in range(0, len(args), 2)]
    x, y = ops[0]
    if name == "cabs":
        return [(b.fdiv(x, result), b.fdiv(y, result))]
    if name == "carg":
        r2 = b.fadd(b.fmul(x, x), b.fmul(y, y))
        return [(b.fneg(b.fdiv(y, r2)), b.fdiv(x, r2))]
    f = (b.extract_value(result, [0]), b.extract_value(result, [1]))
    return COMPLEX_FUNCTIONS[name](b, ops, f)


def tangent_of(b: IRBuilder, name: str, derivs: list[Complex],
               tangents: list[Complex]) -> ir.Value:
    """The result's tangent: ``sum_j f'_j * t_j`` (a ``{double, double}``), or for the
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
    out = b.insert_value(ir.null_value(_PAIR), re, [0])
    return b.insert_value(out, im, [1])


def adjoints_of(b: IRBuilder, name: str, derivs: list[Complex],
                d: ir.Value) -> list[Complex]:
    """What each operand pair receives from the result's adjoint ``d``: ``conj(f') *
    (dr + i di)`` (for the real-valued functions: the gradient times ``d``)."""
    if name in REAL_VALUED:
        gx, gy = derivs[0]
        return [(b.fmul(gx, d), b.fmul(gy, d))]
    dr, di = b.extract_value(d, [0]), b.extract_value(d, [1])
    return [(b.fadd(b.fmul(p, dr), b.fmul(q, di)), b.fsub(b.fmul(p, di), b.fmul(q, dr)))
            for p, q in derivs]


__all__ = ["COMPLEX_FUNCTIONS", "REAL_VALUED", "adjoints_of", "complex_derivatives",
           "is_complex_call", "tangent_of"]
