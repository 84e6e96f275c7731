"""Calls to defined functions in reverse mode: augmented primal + reverse with a tape.

Numbers: the dot-product test <t, J^T c> = <J t, c> (J t by central differences) for
vector functions F(x) -> y whose work happens in ``noinline`` callees that update memory
in place, are called twice, in loops, recursively, or whose inputs the caller overwrites
(re-running the callee's combined gradient in the reverse pass was silently wrong there),
at -O0..-O3. Structure: the cheap re-run path is kept for pure callees, the augmented
pair is synthesized once per configuration (recursion included). Effects analysis: what
makes a callee pure.
"""

from __future__ import annotations

import ctypes
from typing import Any

import llvmlite.binding as llvm
import numpy as np
import pytest
from reverse_dot_product import check_dot_product, ptr

from irgrad import ir
from irgrad.ad.api import lower_enzyme_calls
from irgrad.ad.reverse.call_effects import function_effects
from irgrad.llvm.canonicalize import canonicalize
from irgrad.llvm.load import parse_llvm
from irgrad.testing import c_to_ir, compile_c_to_jit

HEADER = """
#include <math.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
#define NOINLINE __attribute__((noinline))
"""
WRAPPER = """
void grad(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
void primal(const double *x, double *y) { F(x, y); }
"""

# name -> (n inputs, m outputs, C body defining `void F(const double *x, double *y)`)
FUNCTIONS: dict[str, tuple[int, int, str]] = {
    "inplace_twice": (2, 2, """
NOINLINE void sq(double *v) { v[0] = v[0] * v[0] + sin(v[1]); v[1] = v[1] * v[0]; }
static void F(const double *x, double *y) {
  y[0] = x[0]; y[1] = x[1];
  sq(y); sq(y);
}"""),
    "input_overwritten_after_call": (3, 2, """
NOINLINE double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void F(const double *x, double *y) {
  double t[3] = {x[0], x[1], x[2]};
  double r = dot3(t, t);
  t[0] = r * x[1];            /* overwrites what dot3 read */
  y[0] = r * dot3(t, x);
  y[1] = exp(0.1 * r);
}"""),
    "stepper_in_loop": (3, 3, """
NOINLINE void step(double *s, const double *w) {
  double a = s[0], b = s[1], c = s[2];
  s[0] = a + 0.1 * (w[0] * b - a * c);
  s[1] = b * cos(0.3 * a);
  s[2] = c + 0.1 * sin(w[1] * b) * w[2];
}
static void F(const double *x, double *y) {
  double w[3] = {x[2], x[1], x[0]};
  y[0] = x[0]; y[1] = x[1]; y[2] = x[2];
  for (int k = 0; k < 6; k++) step(y, w);
}"""),
    "recursion_through_memory": (2, 2, """
NOINLINE void rec(double *v, int n) {
  if (n == 0) return;
  v[0] = v[0] * v[1] + 0.25 * sin(v[0]);
  rec(v, n - 1);
  v[1] = v[1] + v[0] * v[0];
}
static void F(const double *x, double *y) {
  y[0] = x[0]; y[1] = x[1];
  rec(y, 4);
}"""),
    "callee_local_array_and_output": (4, 4, """
NOINLINE double mix(double *out, const double *in) {
  double tmp[4];
  for (int i = 0; i < 4; i++) tmp[i] = in[i] * in[(i + 1) % 4];
  double acc = 0.0;
  for (int i = 0; i < 4; i++) { out[i] = tmp[3 - i] + 0.5 * out[i] * out[i]; acc += out[i]; }
  return acc;
}
static void F(const double *x, double *y) {
  double a[4] = {x[0], x[1], x[2], x[3]};
  for (int i = 0; i < 4; i++) y[i] = 0.1 * x[i];
  double s = mix(y, a);
  double t = mix(a, y);   /* overwrites a, the input of the first call */
  y[0] += s * t;
}"""),
    "split_callee_calls_split_callee_in_loop": (3, 3, """
NOINLINE void inner(double *v, double a) { v[0] = v[0] * cos(a * v[1]); v[1] += a * v[0]; }
NOINLINE void outer(double *v, int n) {
  for (int i = 0; i < n; i++) {
    inner(v, 0.3 + 0.1 * i);
    if (v[0] > 50.0) return;   /* a second return */
    v[2] = v[2] * v[0] + v[1];
  }
}
static void F(const double *x, double *y) {
  y[0] = x[0]; y[1] = x[1]; y[2] = x[2];
  outer(y, 5);
  outer(y, 3);
}"""),
    "pure_callees_cheap_path": (2, 1, """
NOINLINE double poly(double u) { return u * u * u - 2.0 * u; }
NOINLINE double norm2(const double *v) { return v[0] * v[0] + v[1] * v[1]; }
static void F(const double *x, double *y) {
  y[0] = poly(x[0]) * poly(x[1]) + sqrt(norm2(x));
}"""),
}

_CACHE: dict[tuple[str, int], Any] = {}


def _jit(name: str, level: int) -> Any:
    key = (name, level)
    if key not in _CACHE:
        _CACHE[key] = compile_c_to_jit(HEADER + FUNCTIONS[name][2] + WRAPPER, level)
    return _CACHE[key]


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_dot_product(name: str, level: int) -> None:
    n, m, _ = FUNCTIONS[name]
    check_dot_product(_jit(name, level), n, m, seed=11, x_high=0.9, primal_tol=1e-13,
                      label=(name, level))


# -- structure ---------------------------------------------------------------------------
def _lowered(name: str) -> ir.Module:
    text = c_to_ir(HEADER + FUNCTIONS[name][2] + WRAPPER, 2)
    module = canonicalize(parse_llvm(text, name), filename=name)
    return lower_enzyme_calls(ir.parse_module(str(module), name))


def _lower_source(source: str) -> ir.Module:
    module = canonicalize(parse_llvm(c_to_ir(source, 2), "src"), filename="src")
    return lower_enzyme_calls(ir.parse_module(str(module), "src"))


READER_LAST = HEADER + """
NOINLINE void axpy(double a, const double *x, double *y) { for (int i = 0; i < 3; i++) y[i] += a * x[i]; }
NOINLINE double norm2(const double *y) { return y[0] * y[0] + y[1] * y[1] + y[2] * y[2]; }
double driver(const double *x) {
  double y[3] = {1.0, 2.0, 3.0};
  axpy(2.0, x, y);
  return norm2(y) + norm2(x);   /* nothing writes memory after the readers */
}
double grad(const double *x, double *dx) {
  return __enzyme_autodiff((void *)driver, enzyme_dup, x, dx), 0.0;
}
"""


def test_reader_with_no_later_write_keeps_the_cheap_path() -> None:
    module = _lower_source(READER_LAST)
    assert _names(module, "augmented_axpy") == ["augmented_axpy"]  # it writes y
    assert _names(module, "augmented_norm2") == []  # reads y, x; nothing overwrites them
    llvm.parse_assembly(ir.print_module(module)).verify()


def test_reader_with_no_later_write_numbers() -> None:
    jit = compile_c_to_jit(READER_LAST, 2)
    vp = ctypes.c_void_p
    grad = jit.get("grad", ctypes.c_double, [vp, vp])
    x = np.array([0.3, -0.6, 0.9])
    dx = np.zeros(3)
    grad(ptr(x), ptr(dx))
    # d/dx [sum (y0 + 2x)^2 + sum x^2] = 4 (y0 + 2x) + 2x
    np.testing.assert_allclose(dx, 4 * (np.array([1.0, 2.0, 3.0]) + 2 * x) + 2 * x,
                               rtol=1e-14)


def _names(module: ir.Module, prefix: str) -> list[str]:
    return [f.name for f in module.functions if f.name.startswith(prefix)]


def test_pure_callees_keep_the_cheap_path() -> None:
    module = _lowered("pure_callees_cheap_path")
    # poly reads no memory: re-running it in the reverse pass is exact wherever it is
    # called (norm2 reads x; whether F's store to y blocks its cheap path depends on
    # whether that store can be sunk past the reverse pass)
    assert _names(module, "augmented_poly") == []
    assert any(n.startswith("diffe_poly") for n in _names(module, "diffe_"))


def test_inplace_callee_gets_one_augmented_pair() -> None:
    module = _lowered("inplace_twice")
    assert _names(module, "augmented_sq") == ["augmented_sq"]  # two calls, one synthesis
    assert _names(module, "reverse_sq") == ["reverse_sq"]
    assert _names(module, "split_") == []  # the work function is removed
    llvm.parse_assembly(ir.print_module(module)).verify()


def test_recursive_callee_pair_is_synthesized_once() -> None:
    module = _lowered("recursion_through_memory")
    assert _names(module, "augmented_rec") == ["augmented_rec"]
    assert _names(module, "reverse_rec") == ["reverse_rec"]
    aug = module.get_function("augmented_rec")
    rev = module.get_function("reverse_rec")
    assert aug is not None and rev is not None
    callees = {i.called_function.name for i in aug.instructions()
               if isinstance(i, ir.CallInst) and i.called_function is not None}
    assert "augmented_rec" in callees  # the recursion goes through the augmented primal
    callees = {i.called_function.name for i in rev.instructions()
               if isinstance(i, ir.CallInst) and i.called_function is not None}
    assert "reverse_rec" in callees
    llvm.parse_assembly(ir.print_module(module)).verify()


# -- effects -------------------------------------------------------------------------------
EFFECTS_IR = """
declare double @sin(double)
define double @pure(double %x) {
  %s = call double @sin(double %x)
  ret double %s
}
define double @reads(ptr %p) {
  %v = load double, ptr %p
  %r = call double @pure(double %v)
  ret double %r
}
define void @writes(ptr %p) {
  %v = call double @reads(ptr %p)
  store double %v, ptr %p
  ret void
}
define double @local_only(double %x) {
  %a = alloca double
  store double %x, ptr %a
  %v = load double, ptr %a
  ret double %v
}
define double @calls_writer(ptr %p) {
  call void @writes(ptr %p)
  ret double 0.0
}
define double @self(ptr %p, i32 %n) {
  %c = icmp eq i32 %n, 0
  br i1 %c, label %done, label %more
more:
  %m = sub i32 %n, 1
  %r = call double @self(ptr %p, i32 %m)
  ret double %r
done:
  %v = load double, ptr %p
  ret double %v
}
"""


@pytest.mark.parametrize(("fn", "writes", "reads"), [
    ("pure", False, False),
    ("reads", False, True),
    ("writes", True, True),
    ("local_only", False, False),
    ("calls_writer", True, True),
    ("self", False, True),
])
def test_function_effects(fn: str, writes: bool, reads: bool) -> None:
    module = ir.parse_module(EFFECTS_IR)
    f = module.get_function(fn)
    assert f is not None
    eff = function_effects(f)
    assert (eff.writes, eff.reads) == (writes, reads)


def test_derivative_keeps_locals_alive_for_the_reverse_pass() -> None:
    """The primal ends the local array's lifetime right after the call; the reverse pass
    re-runs the callee's derivative on it afterwards. The derivative must carry no
    lifetime markers, or stack colouring may give the array's slot to a later local."""
    from irgrad.testing import c_to_ir, lower_ir

    src = """
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double norm2(const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += y[i] * y[i];
  return s;
}
double driver(const double *x) {
  double y[4];
  for (int i = 0; i < 4; i++) y[i] = 1.0 + 2.0 * x[i];
  return norm2(y, 4);
}
void grad(const double *x, double *dx) {
  __enzyme_autodiff((void *)driver, enzyme_dup, x, dx);
}
"""
    text = lower_ir(c_to_ir(src, 2), 0)
    start = text.index("@diffe_driver(")
    start = text.rfind("\ndefine", 0, text.index("{", start)) + 1
    body = text[start : text.index("\n}\n", start)]
    assert "define" in body.splitlines()[0] and "diffe_driver" in body.splitlines()[0]
    assert "llvm.lifetime" not in body
