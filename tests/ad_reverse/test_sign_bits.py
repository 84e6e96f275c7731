"""fabs, fneg and -fabs written as integer masks on a float's bits (``and`` with the
magnitude mask, ``xor`` / ``or`` with the sign bit), as vectorized libraries emit them
(Eigen's AVX-512 ``pabs`` is ``and <8 x i64>``): reverse and forward mode against the
closed forms, scalar and vector, double and float, at every post-AD level. The IR is
differentiated as given (the pre-AD pipeline would fold the masks back into ``fabs``)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from irgrad.llvm.jit import JITModule
from irgrad.pipeline import PipelineOptions, run_pipeline

# f(x) = op(x) * x over an array, summed; op one of |x|, -x, -|x| through the bits
TEMPLATE = """
declare void @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)

define double @f(ptr %x) {
  %v = load <4 x FT>, ptr %x, align 8
  %bits = bitcast <4 x FT> %v to <4 x IT>
  %m = OP <4 x IT> %bits, splat (IT MASK)
  %r = bitcast <4 x IT> %m to <4 x FT>
  %p = fmul <4 x FT> %r, %v
  %e0 = extractelement <4 x FT> %p, i64 0
  %e1 = extractelement <4 x FT> %p, i64 1
  %e2 = extractelement <4 x FT> %p, i64 2
  %e3 = extractelement <4 x FT> %p, i64 3
  %s0 = fadd FT %e0, %e1
  %s1 = fadd FT %e2, %e3
  %s = fadd FT %s0, %s1
  %sd = FEXT
  ret double %sd
}

define double @g(ptr %x) {
  %v = load FT, ptr %x, align 8
  %bits = bitcast FT %v to IT
  %m = OP IT %bits, MASK
  %r = bitcast IT %m to FT
  %p = fmul FT %r, %v
  %sd = FEXT1
  ret double %sd
}

define void @grad(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  ret void
}
define void @grad1(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @g, ptr %x, ptr %dx)
  ret void
}
define double @tangent(ptr %x, ptr %tx) {
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %tx)
  ret double %t
}
"""
MASKS = {  # op -> (opcode, mask for 64 bits, mask for 32 bits, d/dx of op(x)*x)
    "abs": ("and", 0x7FFFFFFFFFFFFFFF, 0x7FFFFFFF, lambda x: 2 * np.abs(x)),
    "neg": ("xor", -0x8000000000000000, -0x80000000, lambda x: -2 * x),
    "nabs": ("or", -0x8000000000000000, -0x80000000, lambda x: -2 * np.abs(x)),
}


def _module(kind: str, ft: str) -> str:
    opcode, m64, m32, _ = MASKS[kind]
    it, mask = ("i64", m64) if ft == "double" else ("i32", m32)
    fext = "fadd double %s, 0.0" if ft == "double" else "fpext float %s to double"
    fext1 = "fadd double %p, 0.0" if ft == "double" else "fpext float %p to double"
    return (TEMPLATE.replace("FEXT1", fext1).replace("FEXT", fext).replace("FT", ft)
            .replace("IT", it).replace("OP", opcode).replace("MASK", str(mask)))


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("ft", ["double", "float"])
@pytest.mark.parametrize("kind", list(MASKS))
def test_sign_bit_masks(kind: str, ft: str, level: int) -> None:
    src = _module(kind, ft)
    module = run_pipeline(src, filename=f"{kind}.ll",
                          options=PipelineOptions(opt_level=level, pre_ad=False))
    jit = JITModule(module, filename=f"{kind}.ll", opt_level=level)
    vp = ctypes.c_void_p
    dtype = np.float64 if ft == "double" else np.float32
    want = MASKS[kind][3]
    x = np.array([1.5, -0.75, 2.25, -3.0], dtype=dtype)

    def p(a: np.ndarray) -> ctypes.c_void_p:
        return ctypes.c_void_p(a.ctypes.data)

    dx = np.zeros_like(x)
    jit.get("grad", None, [vp, vp])(p(x), p(dx))
    np.testing.assert_allclose(dx, want(x), rtol=1e-6)
    d1 = np.zeros(1, dtype=dtype)
    jit.get("grad1", None, [vp, vp])(p(x[1:2].copy()), p(d1))
    np.testing.assert_allclose(d1, want(x[1:2]), rtol=1e-6)
    tangent = jit.get("tangent", ctypes.c_double, [vp, vp])
    for k in range(4):
        t = np.zeros_like(x)
        t[k] = 1.0
        assert tangent(p(x), p(t)) == pytest.approx(float(want(x)[k]), rel=1e-6)
