"""Derivatives through what vectorizers make of scalar code: doubles moved as integer
vectors (``load <2 x i64>`` / ``store <2 x i64>`` of a struct's two doubles) and vectors
with undefined lanes (``shufflevector %v, poison, <1, poison>``, where a derivative
multiplies a dead lane's zero adjoint by poison).

Both once gave silently wrong gradients: the integer vector was taken for inactive data (a
zero derivative), and ``0 * poison`` put NaN into the caller's shadow. The C kernels are
written as serialization and complex-arithmetic code is written; each is checked with the
dot-product test against central differences at -O0..-O3 and vectorized for the host
(-O3 -march=native -ffast-math). The reduced IR of each is checked at every post-AD level.
"""

from __future__ import annotations

import ctypes
import tempfile
from pathlib import Path

import numpy as np
import pytest
from reverse_dot_product import check_dot_product, ptr

from irgrad import ir
from irgrad.ad.core.defined_lanes import define_undefined_lanes
from irgrad.frontends.c import compile_c
from irgrad.llvm.jit import JITModule
from irgrad.pipeline import PipelineOptions, parse_llvm, run_pipeline, to_ir_model

HEADER = """
#include <math.h>
#include <stdint.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
"""

# records serialized into a message of raw 64-bit words and read back (the copy loops
# vectorize into <2 x i64> moves of each record's two doubles)
WIRE = HEADER + """
typedef struct { double position, velocity; int id; } particle_t;
static uint64_t pack(double x) { uint64_t u; memcpy(&u, &x, sizeof u); return u; }
static double unpack(uint64_t u) { double x; memcpy(&x, &u, sizeof x); return x; }

void primal(const double *x, double *y, long n) {
  particle_t parts[16];
  uint64_t wire[32];
  for (long i = 0; i < n; i++) {
    parts[i].position = x[i];
    parts[i].velocity = x[i] * x[i] - 0.5 * x[i];
    parts[i].id = (int)i;
  }
  for (long i = 0; i < n; i++) {
    wire[2 * i] = pack(parts[i].position);
    wire[2 * i + 1] = pack(parts[i].velocity);
  }
  double e = 0.0;
  for (long i = 0; i < n; i++) e += unpack(wire[2 * i]) * unpack(wire[2 * i + 1]);
  y[0] = e;
  y[1] = unpack(wire[1]) + 2.0 * unpack(wire[2 * n - 2]);
}

void grad(double *x, double *dx, double *y, double *dy, long n) {
  __enzyme_autodiff((void *)primal, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
"""

# interleaved complex numbers (re, im pairs): |z_k|^2 and Im(z_k * z_{k+1}) summed, the
# pairwise products InstCombine turns into a shuffle with an undefined lane
COMPLEX = HEADER + """
void primal(const double *x, double *y, long n) {
  long m = n / 2;
  double power = 0.0, cross = 0.0;
  for (long k = 0; k < m; k++) {
    double re = x[2 * k], im = x[2 * k + 1];
    power += re * re + im * im;
    y[2 + k] = re * im;
  }
  for (long k = 0; k + 1 < m; k++)
    cross += x[2 * k] * x[2 * k + 3] + x[2 * k + 1] * x[2 * k + 2];
  y[0] = power;
  y[1] = cross;
}

void grad(double *x, double *dx, double *y, double *dy, long n) {
  __enzyme_autodiff((void *)primal, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
"""

FLAGS = {"O0": (0, ()), "O1": (1, ()), "O2": (2, ()), "O3": (3, ()),
         "O3-native": (3, ("-march=native", "-ffast-math"))}


def _jit(source: str, name: str, level: str) -> JITModule:
    opt, flags = FLAGS[level]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"{name}.c"
        src.write_text(source)
        bc = compile_c(src, opt_level=opt, flags=flags)
    module = run_pipeline(bc, filename=name, options=PipelineOptions(opt_level=opt))
    return JITModule(module, filename=name, opt_level=opt)


@pytest.mark.parametrize("level", list(FLAGS))
@pytest.mark.parametrize(("name", "source", "n", "m"),
                         [("wire", WIRE, 9, 2), ("complex", COMPLEX, 10, 7)])
def test_vectorized_kernels(name: str, source: str, n: int, m: int, level: str) -> None:
    jit = _jit(source, name, level)
    check_dot_product(jit, n, m, seed=11, extra=(ctypes.c_long(n),), primal_tol=1e-12,
                      label=(name, level))


# the reduced IR of both bugs: a struct's doubles moved as <2 x i64> (or <2 x double>)
# into a buffer of words, read back and multiplied pairwise through a shuffle whose
# second lane is undefined
REDUCED = """
%struct.p = type { double, double, i32 }
define double @f(ptr %x, i64 %n) {
entry:
  %p = alloca [8 x %struct.p], align 16
  %w = alloca [16 x i64], align 16
  br label %l1
l1:
  %i = phi i64 [0, %entry], [%i1, %l1]
  %xi = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %xi
  %pi = getelementptr inbounds %struct.p, ptr %p, i64 %i
  store double %a, ptr %pi
  %b = fmul double %a, %a
  %pi1 = getelementptr inbounds i8, ptr %pi, i64 8
  store double %b, ptr %pi1
  %pi2 = getelementptr inbounds i8, ptr %pi, i64 16
  store i32 -1, ptr %pi2
  %i1 = add i64 %i, 1
  %c1 = icmp eq i64 %i1, %n
  br i1 %c1, label %l2, label %l1
l2:
  %j = phi i64 [0, %l1], [%j1, %l2]
  %pj = getelementptr inbounds %struct.p, ptr %p, i64 %j
  %o = shl i64 %j, 4
  %wj = getelementptr inbounds i8, ptr %w, i64 %o
  %v = load <2 x WORD>, ptr %pj, align 8
  store <2 x WORD> %v, ptr %wj, align 16
  %j1 = add i64 %j, 1
  %c2 = icmp eq i64 %j1, %n
  br i1 %c2, label %l3, label %l2
l3:
  %k = phi i64 [0, %l2], [%k1, %l3]
  %s = phi double [0.0, %l2], [%s1, %l3]
  %o3 = shl i64 %k, 4
  %wk = getelementptr inbounds i8, ptr %w, i64 %o3
  %d = load <2 x double>, ptr %wk, align 16
  %shift = shufflevector <2 x double> %d, <2 x double> poison, <2 x i32> <i32 1, i32 poison>
  %prod = fmul <2 x double> %d, %shift
  %m = extractelement <2 x double> %prod, i64 0
  %s1 = fadd double %s, %m
  %k1 = add i64 %k, 1
  %c3 = icmp eq i64 %k1, %n
  br i1 %c3, label %done, label %l3
done:
  ret double %s1
}
declare void @__enzyme_autodiff(...)
define void @grad(ptr %x, ptr %dx, i64 %n) {
  call void (...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret void
}
"""


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("word", ["i64", "double"])
@pytest.mark.parametrize("pre_ad", [True, False])
def test_reduced_ir(word: str, level: int, pre_ad: bool) -> None:
    src = REDUCED.replace("WORD", word)
    module = run_pipeline(src, filename="lanes.ll",
                          options=PipelineOptions(opt_level=level, pre_ad=pre_ad))
    jit = JITModule(module, filename="lanes.ll", opt_level=level)
    grad = jit.get("grad", None, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long])
    x = np.array([0.3, 2.0, -1.25, 0.5])
    dx = np.zeros_like(x)
    grad(ptr(x), ptr(dx), ctypes.c_long(len(x)))
    np.testing.assert_allclose(dx, 3 * x * x, rtol=1e-14)  # f = sum x^3


def test_undefined_lanes_become_zero() -> None:
    src = """
define <4 x double> @g(<4 x double> %a, <4 x double> %b, double %s) {
  %one = shufflevector <4 x double> %a, <4 x double> poison, <4 x i32> <i32 1, i32 poison, i32 3, i32 undef>
  %two = shufflevector <4 x double> %a, <4 x double> %b, <4 x i32> <i32 0, i32 5, i32 poison, i32 7>
  %ins = insertelement <4 x double> poison, double %s, i64 0
  %c = fmul <4 x double> %one, <double 2.0, double poison, double 1.0, double undef>
  %d = fadd <4 x double> %c, %two
  %e = fadd <4 x double> %d, %ins
  %ptrs = shufflevector <2 x ptr> poison, <2 x ptr> poison, <2 x i32> <i32 0, i32 poison>
  ret <4 x double> %e
}
define void @run(ptr %pa, ptr %pb, double %s, ptr %out) {
  %a = load <4 x double>, ptr %pa, align 8
  %b = load <4 x double>, ptr %pb, align 8
  %e = call <4 x double> @g(<4 x double> %a, <4 x double> %b, double %s)
  store <4 x double> %e, ptr %out, align 8
  ret void
}
"""
    model = to_ir_model(parse_llvm(src, "lanes.ll"), "lanes.ll")
    fn = model.get_function("g")
    assert define_undefined_lanes(fn)
    assert not define_undefined_lanes(fn)  # nothing left to do the second time
    text = ir.print_module(model)
    body = text[text.index("define"):]
    # number vectors: no undefined lane left; pointer vectors untouched
    assert "<2 x ptr> poison" in body
    assert "double poison" not in body and "double undef" not in body
    assert "<4 x double> poison" not in body
    for line in body.splitlines():
        if "shufflevector <4 x double>" in line:
            assert "poison" not in line and "undef" not in line, line
    # the lanes g defined keep their values; the undefined ones are now the zeros'
    jit = JITModule(parse_llvm(text, "lanes.ll"), filename="lanes.ll", opt_level=0)
    vp = ctypes.c_void_p
    run = jit.get("run", None, [vp, vp, ctypes.c_double, vp])
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([10.0, 20.0, 30.0, 40.0])
    out = np.full(4, np.nan)
    run(ptr(a), ptr(b), ctypes.c_double(0.5), ptr(out))
    np.testing.assert_array_equal(out, [2 * a[1] + a[0] + 0.5, b[1], a[3], b[3]])


# a buffer of doubles cleared by one integer-vector store (memset-like code, or a
# vectorized ``buf[0] = buf[1] = 0``): the clear must also clear the adjoints
CLEARED = """
define double @f(ptr %x) {
  %buf = alloca [2 x double], align 16
  %x0 = load double, ptr %x
  %px1 = getelementptr inbounds double, ptr %x, i64 1
  %x1 = load double, ptr %px1
  %b1 = getelementptr inbounds double, ptr %buf, i64 1
  store double %x0, ptr %buf
  store double %x1, ptr %b1
  store <2 x i64> zeroinitializer, ptr %buf, align 16
  %old = load double, ptr %buf
  %t = fmul double %x0, 3.0
  %new = fadd double %old, %t
  store double %new, ptr %buf
  %u = load double, ptr %buf
  %w = load double, ptr %b1
  %r = fadd double %u, %w
  ret double %r
}
declare void @__enzyme_autodiff(...)
define void @grad(ptr %x, ptr %dx) {
  call void (...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  ret void
}
"""


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_integer_vector_store_clears_adjoints(level: int) -> None:
    module = run_pipeline(CLEARED, filename="cleared.ll",
                          options=PipelineOptions(opt_level=level, pre_ad=False))
    jit = JITModule(module, filename="cleared.ll", opt_level=level)
    grad = jit.get("grad", None, [ctypes.c_void_p, ctypes.c_void_p])
    x = np.array([0.7, -1.5])
    dx = np.zeros_like(x)
    grad(ptr(x), ptr(dx))
    np.testing.assert_array_equal(dx, [3.0, 0.0])
