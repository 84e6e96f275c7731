"""Inline assembly that computes a known operation (Eigen's FMA kernels wrap
``vfmadd231pd`` in ``asm`` to pin the instruction) is differentiated as that operation, in
both modes; any other inline assembly on an active value stays a located error."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from irgrad.errors import DifferentiationError
from irgrad.llvm.jit import JITModule
from irgrad.pipeline import PipelineOptions, run_pipeline

# f(x) = sum(fma(x, x*x, x)) over 4 lanes, the fma written as Eigen's pmadd asm
FMA = """
declare void @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)

define double @f(ptr %x) {
  %v = load <4 x double>, ptr %x, align 8
  %sq = fmul <4 x double> %v, %v
  %r = call <4 x double> asm "vfmadd231pd $1, $2, $0", "=x,x,x,0,~{dirflag},~{fpsr},~{flags}"(<4 x double> %v, <4 x double> %sq, <4 x double> %v)
  %s = call double @llvm.vector.reduce.fadd.v4f64(double 0.0, <4 x double> %r)
  ret double %s
}
define double @g(double %x) {
  %sq = fmul double %x, %x
  %r = call double asm "vfmadd231sd $2, $1, $0", "=x,x,x,0"(double %sq, double %x, double 1.0)
  ret double %r
}
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)

define void @grad(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  ret void
}
define double @dg(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @g, double %x)
  ret double %d
}
define double @tg(double %x) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double 1.0)
  ret double %d
}
"""


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("pre_ad", [True, False])
def test_fma_asm(level: int, pre_ad: bool) -> None:
    module = run_pipeline(FMA, filename="fma.ll",
                          options=PipelineOptions(opt_level=level, pre_ad=pre_ad))
    jit = JITModule(module, filename="fma.ll", opt_level=level)
    vp, dbl = ctypes.c_void_p, ctypes.c_double
    x = np.array([0.5, -1.25, 2.0, 0.75])
    dx = np.zeros(4)
    jit.get("grad", None, [vp, vp])(ctypes.c_void_p(x.ctypes.data),
                                    ctypes.c_void_p(dx.ctypes.data))
    np.testing.assert_allclose(dx, 3 * x * x + 1, rtol=1e-14)  # d(x^3 + x)/dx
    for fn in ("dg", "tg"):  # g = x^3 + 1
        assert jit.get(fn, dbl, [dbl])(1.5) == pytest.approx(3 * 1.5**2, rel=1e-14)


def test_unknown_asm_is_a_located_error() -> None:
    src = FMA.replace('"vfmadd231pd $1, $2, $0"', '"vfmsub231pd $1, $2, $0"')
    with pytest.raises(DifferentiationError, match="cannot differentiate inline assembly"):
        run_pipeline(src, filename="fma.ll", options=PipelineOptions(opt_level=0))
