"""x86's packed max/min (Eigen's SSE ``pmax``/``pmin`` as inline ``maxpd``/``minpd`` under
clang, AVX's three-operand ``vmaxpd``, and the ``llvm.x86.*.max/min`` intrinsics of
AVX-512 builds) are differentiated as compare-and-select, with the instruction's own
choice on ties and NaNs (the second, source operand); lanes read back from a vector's bits
through a wide integer (``bitcast``/``lshr``/``trunc``, what instruction combining writes
for a narrowing shuffle) are differentiated as the shuffle. Both modes, -O0..-O3, with and
without the pre-AD pipeline; derivatives against the analytic one-hot values."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from irgrad.llvm.jit import JITModule
from irgrad.pipeline import PipelineOptions, run_pipeline

# each f_k(x) over x[0..8): a different way to pick lanes; the expected gradient below
KERNELS = {
    # max(x[0:2], x[2:4]) . (1, 2) with SSE maxpd (dst = second input)
    "sse_max": """
  %a = load <2 x double>, ptr %x, align 8
  %pb = getelementptr double, ptr %x, i64 2
  %b = load <2 x double>, ptr %pb, align 8
  %m = call <2 x double> asm "maxpd $1, $0", "=x,x,0,~{dirflag},~{fpsr},~{flags}"(<2 x double> %a, <2 x double> %b)
  %w = fmul <2 x double> %m, <double 1.0, double 2.0>
  %s = call double @llvm.vector.reduce.fadd.v2f64(double 0.0, <2 x double> %w)
  ret double %s""",
    "sse_min": """
  %a = load <2 x double>, ptr %x, align 8
  %pb = getelementptr double, ptr %x, i64 2
  %b = load <2 x double>, ptr %pb, align 8
  %m = call <2 x double> asm "minpd $1, $0", "=x,x,0"(<2 x double> %a, <2 x double> %b)
  %w = fmul <2 x double> %m, <double 1.0, double 2.0>
  %s = call double @llvm.vector.reduce.fadd.v2f64(double 0.0, <2 x double> %w)
  ret double %s""",
    "avx_max": """
  %a = load <2 x double>, ptr %x, align 8
  %pb = getelementptr double, ptr %x, i64 2
  %b = load <2 x double>, ptr %pb, align 8
  %m = call <2 x double> asm "vmaxpd $1, $2, $0", "=x,x,x,~{dirflag},~{fpsr},~{flags}"(<2 x double> %a, <2 x double> %b)
  %w = fmul <2 x double> %m, <double 1.0, double 2.0>
  %s = call double @llvm.vector.reduce.fadd.v2f64(double 0.0, <2 x double> %w)
  ret double %s""",
    "avx512_max": """
  %a = load <8 x double>, ptr %x, align 8
  %b = shufflevector <8 x double> %a, <8 x double> poison, <8 x i32> <i32 7, i32 6, i32 5, i32 4, i32 3, i32 2, i32 1, i32 0>
  %m = call <8 x double> @llvm.x86.avx512.max.pd.512(<8 x double> %a, <8 x double> %b, i32 4)
  %s = call double @llvm.vector.reduce.fadd.v8f64(double 0.0, <8 x double> %m)
  ret double %s""",
    "lane_shift": """
  %a = load <8 x double>, ptr %x, align 8
  %i = bitcast <8 x double> %a to i512
  %h = lshr i512 %i, 192
  %t = trunc i512 %h to i128
  %v = bitcast i128 %t to <2 x double>
  %w = fmul <2 x double> %v, %v
  %s = call double @llvm.vector.reduce.fadd.v2f64(double 0.0, <2 x double> %w)
  ret double %s""",
    "lane_scalar": """
  %pa = getelementptr double, ptr %x, i64 4
  %a = load <4 x double>, ptr %pa, align 8
  %i = bitcast <4 x double> %a to i256
  %h = lshr i256 %i, 128
  %t = trunc i256 %h to i64
  %v = bitcast i64 %t to double
  %s = fmul double %v, %v
  ret double %s""",
}
X = np.array([0.5, 3.0, 1.5, -2.0, 4.0, -1.0, 2.5, 0.25])


def _expected(name: str) -> np.ndarray:
    g = np.zeros(8)
    a, b = X[0:2], X[2:4]
    if name in ("sse_max", "avx_max"):
        for k in range(2):
            g[k if a[k] > b[k] else 2 + k] = k + 1.0
    elif name == "sse_min":
        for k in range(2):
            g[k if a[k] < b[k] else 2 + k] = k + 1.0
    elif name == "avx512_max":
        for k in range(8):
            g[k if X[k] > X[7 - k] else 7 - k] += 1.0
    elif name == "lane_scalar":  # lane 2 of x[4:8], squared
        g[6] = 2 * X[6]
    else:  # lanes 3 and 4, squared
        g[3], g[4] = 2 * X[3], 2 * X[4]
    return g


def _module(name: str) -> str:
    return f"""
declare void @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.vector.reduce.fadd.v2f64(double, <2 x double>)
declare double @llvm.vector.reduce.fadd.v8f64(double, <8 x double>)
declare <8 x double> @llvm.x86.avx512.max.pd.512(<8 x double>, <8 x double>, i32)

define double @f(ptr %x) {{{KERNELS[name]}
}}
define void @grad(ptr %x, ptr %dx) {{
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  ret void
}}
define double @tangent(ptr %x, ptr %tx) {{
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %tx)
  ret double %t
}}
"""


@pytest.mark.parametrize("name", sorted(KERNELS))
@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("pre_ad", [True, False])
def test_lane_choices(name: str, level: int, pre_ad: bool) -> None:
    module = run_pipeline(_module(name), filename=f"{name}.ll",
                          options=PipelineOptions(opt_level=level, pre_ad=pre_ad))
    jit = JITModule(module, filename=f"{name}.ll", opt_level=level)
    vp = ctypes.c_void_p
    x, dx = X.copy(), np.zeros(8)
    jit.get("grad", None, [vp, vp])(vp(x.ctypes.data), vp(dx.ctypes.data))
    want = _expected(name)
    np.testing.assert_allclose(dx, want, rtol=0, atol=1e-12)
    tx = np.array([1.0, -0.5, 0.25, 2.0, -1.0, 0.5, 0.75, -2.0])
    t = jit.get("tangent", ctypes.c_double, [vp, vp])(vp(x.ctypes.data), vp(tx.ctypes.data))
    assert t == pytest.approx(float(want @ tx), abs=1e-12)
