"""Round trip of clang-22 output for small C files generated at test time."""

from __future__ import annotations

import pytest
from ir_helpers import check_roundtrip, clang_ir

from irgrad import ir

C_NUMERIC = r"""
#include <math.h>
#include <stdlib.h>
#include <string.h>
struct P { double x, y; int tag; };
static double scale = 2.5;
double norm(const struct P *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += sqrt(p[i].x * p[i].x + p[i].y * p[i].y) * scale;
  return s;
}
void saxpy(int n, float a, const float *restrict x, float *restrict y) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
double *copy(const double *x, size_t n) { double *r = malloc(n * sizeof *r); memcpy(r, x, n * sizeof *r); return r; }
int classify(int k) { switch (k) { case 0: return 10; case 3: return 4; case 9: return -1; default: return k; } }
"""

C_MISC = r"""
#include <stdio.h>
#include <stdarg.h>
#include <stdatomic.h>
_Atomic long counter;
long bump(long k) { return atomic_fetch_add(&counter, k) + atomic_load_explicit(&counter, memory_order_acquire); }
int sum(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }
__thread int tls_value = 7;
int get_tls(void) { return ++tls_value; }
static const char *names[] = {"zero", "one", "two \"quoted\"\n"};
void show(int i) { printf("%s %d\n", names[i % 3], sum(3, i, i + 1, i + 2)); }
typedef struct { _Complex double z; long double ld; __int128 big; } Odd;
Odd odd(Odd o) { o.z *= 2; o.ld += 1.0L; o.big <<= 3; return o; }
"""


@pytest.mark.parametrize("opt", ["-O0", "-O1", "-O2", "-O3"])
@pytest.mark.parametrize("name", ["numeric", "misc"])
def test_clang_roundtrip(name: str, opt: str) -> None:
    src = C_NUMERIC if name == "numeric" else C_MISC
    text = clang_ir(src, opt)
    check_roundtrip(text, f"{name}{opt}.ll")


def test_clang_debug_info_roundtrip() -> None:
    text = clang_ir(C_NUMERIC, "-O2", extra=("-g",))
    assert "#dbg_value" in text
    check_roundtrip(text, "numeric-g.ll")


C_LABELS = r"""
int f(int *p, int n) { int s = 0; struct { int a, b; } st = {1, 2};
  again: for (int i = 0; i < n; i++) s += p[i] * st.a;
  if (s < 0) { st.b = s; goto again; }
  return s + st.b; }
"""


@pytest.mark.parametrize("opt", ["-O0", "-O1"])
def test_clang_debug_records_roundtrip(opt: str) -> None:
    text = clang_ir(C_LABELS, opt, extra=("-g",))
    kinds = {"#dbg_declare", "#dbg_label"} if opt == "-O0" else {"#dbg_value"}
    assert all(k in text for k in kinds)
    out = check_roundtrip(text, f"labels{opt}.ll")
    m = ir.parse_module(out, lazy=False)
    records = [r for f in m.functions for i in f.instructions() for r in i.debug_records]
    assert {f"#dbg_{r.kind}" for r in records} >= kinds


def test_clang_cxx_exceptions_roundtrip() -> None:
    src = r"""
#include <stdexcept>
#include <vector>
struct Base { virtual ~Base() {} virtual double f(double) = 0; };
double run(std::vector<double>& v, Base* b) {
  double s = 0;
  try { for (double x : v) { if (x < 0) throw std::runtime_error("neg"); s += b->f(x); } }
  catch (const std::exception&) { s = -1; }
  return s;
}
"""
    text = clang_ir(src, "-O2", lang="c++")
    assert "landingpad" in text and "invoke" in text
    out = check_roundtrip(text, "eh.ll")
    m = ir.parse_module(out, lazy=False)
    ops = {i.opcode for f in m.functions for i in f.instructions()}
    assert {"invoke", "landingpad", "resume"} <= ops or {"invoke", "landingpad"} <= ops


def test_parsed_clang_values() -> None:
    text = clang_ir(C_NUMERIC, "-O2")
    m = ir.parse_module(text, lazy=False)
    classify = m.get_function("classify")
    assert classify is not None and not classify.is_declaration
    assert m.get_function("sqrt") is not None or m.get_function("llvm.sqrt.f64") is not None
    assert m.triple and m.data_layout and m.source_filename == "-"
    norm = m.get_function("norm")
    assert norm.function_type == ir.FunctionType(ir.double, [ir.ptr, ir.i32])
    assert any(i.opcode == "phi" for i in norm.instructions())
