"""Activity analysis on hand-written IR and on C kernels through clang-22 and the pre-AD
pipeline."""

from __future__ import annotations

from analysis_helpers import c_module, inst, parse_fn

from irgrad.analysis.activity import ActivityAnalysis, default_activity
from irgrad.analysis.printers import print_activity

KERNEL = r"""
#include <stdio.h>
#include <math.h>
double f(double *x, int n, double y) {
  double s = 0;
  for (int i = 0; i < n; i++) { s += sin(x[i]) * y; }
  printf("%f %d\n", s, n);
  return s;
}
void g(double *out, const double *in, double c, int n) {
  double t = c * c;
  printf("%f\n", t);
  for (int i = 0; i < n; i++) out[i] = in[i] * 3.0;
}
"""


def activity_of(fn, args=None, ret=None):  # type: ignore[no-untyped-def]
    dargs, dret = default_activity(fn)
    return ActivityAnalysis.for_arguments(
        fn, dargs if args is None else args, return_active=dret if ret is None else ret)


def test_c_kernel_index_math_and_printf_inactive() -> None:
    m = c_module(KERNEL)
    fn = m.get_function("f")
    assert fn is not None
    aa = activity_of(fn)
    x, n, y = fn.args
    assert not aa.is_constant_value(x) and not aa.is_constant_value(y)
    assert aa.is_constant_value(n)
    for name in ("indvars.iv", "indvars.iv.next", "exitcond.not", "wide.trip.count", "cmp6"):
        assert aa.is_constant_value(inst(fn, name)) and aa.is_constant_instruction(inst(fn, name))
    for name in ("arrayidx", "call", "s.07", "s.0.lcssa"):
        assert not aa.is_constant_value(inst(fn, name)), name
        assert not aa.is_constant_instruction(inst(fn, name)), name
    printf = inst(fn, "call1")
    assert aa.is_constant_instruction(printf) and aa.is_constant_value(printf)
    text = print_activity(fn, aa)
    assert "i32 %n: icv:1\n" in text and "double %y: icv:0\n" in text
    assert "  %call = tail call double @sin(double noundef %0) #4, !tbaa !5: icv:0 ici:0\n" in text
    assert "  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1: icv:1 ici:1\n" in text


def test_values_only_printed_are_inactive() -> None:
    m = c_module(KERNEL)
    fn = m.get_function("g")
    assert fn is not None
    aa = activity_of(fn)
    mul = next(i for i in fn.instructions() if i.opcode == "fmul" and i.operands[1] is i.operands[0])
    assert aa.is_constant_value(mul)  # c*c only reaches printf
    assert aa.is_constant_value(fn.args[2]) is False  # the argument itself is declared active
    store = next(i for i in fn.instructions() if i.opcode == "store")
    assert not aa.is_constant_instruction(store)
    scaled = store.operands[0]
    assert not aa.is_constant_value(scaled)
    # with `in` constant, the stored value no longer depends on an active input
    aa2 = activity_of(fn, args=[True, False, True, False])
    assert aa2.is_constant_value(scaled)
    assert aa2.is_constant_instruction(store) is False  # still writes active memory


MEMORY = """
declare ptr @malloc(i64)
define double @f(double %x, ptr %pp) {
entry:
  %a = alloca double
  %b = alloca double
  %sz = mul i64 8, 4
  %m = call ptr @malloc(i64 %sz)
  store double %x, ptr %a
  store double 2.0, ptr %b
  store double 3.0, ptr %m
  %la = load double, ptr %a
  %lb = load double, ptr %b
  %lm = load double, ptr %m
  %q = load ptr, ptr %pp
  %lq = load double, ptr %q
  %s1 = fmul double %la, %lb
  %s2 = fadd double %s1, %lm
  %s3 = fadd double %s2, %lq
  ret double %s3
}
"""


def test_activity_through_memory() -> None:
    fn = parse_fn(MEMORY)
    aa = ActivityAnalysis.for_arguments(fn, [True, True], return_active=True)
    active = {"a", "la", "s1", "s2", "s3", "q", "lq"}
    constant = {"b", "lb", "sz", "m", "lm"}
    for name in active:
        assert not aa.is_constant_value(inst(fn, name)), name
    for name in constant:
        assert aa.is_constant_value(inst(fn, name)), name
    # stores of constants into inactive memory are constant instructions
    stores = [i for i in fn.instructions() if i.opcode == "store"]
    assert [aa.is_constant_instruction(s) for s in stores] == [False, True, True]
    # the pointer-to-pointer argument constant: the loaded pointer is inactive too
    aa2 = ActivityAnalysis.for_arguments(fn, [True, False], return_active=True)
    assert aa2.is_constant_value(inst(fn, "q")) and aa2.is_constant_value(inst(fn, "lq"))
    # inactive return: nothing is useful, so no float value is active
    aa3 = ActivityAnalysis.for_arguments(fn, [True, True], return_active=False)
    assert aa3.is_constant_value(inst(fn, "s3")) and aa3.is_constant_value(inst(fn, "s1"))
    assert not aa3.is_constant_value(inst(fn, "a"))  # pointers follow memory only


CALLS = """
declare double @unknown(double)
declare void @sink(ptr, double)
declare i32 @printf(ptr, ...)
define double @f(double %x, ptr %out) {
entry:
  %c = call double @llvm.cos.f64(double %x)
  %u = call double @unknown(double %c)
  %p = call i32 (ptr, ...) @printf(ptr null, double %u)
  call void @sink(ptr %out, double %c)
  %k = call double @llvm.cos.f64(double 1.0)
  %r = fadd double %u, %k
  ret double %r
}
declare double @llvm.cos.f64(double)
"""


def test_calls() -> None:
    fn = parse_fn(CALLS)
    aa = ActivityAnalysis.for_arguments(fn, [True, True], return_active=True)
    assert not aa.is_constant_value(inst(fn, "c"))
    assert not aa.is_constant_value(inst(fn, "u"))
    assert aa.is_constant_value(inst(fn, "p")) and aa.is_constant_instruction(inst(fn, "p"))
    sink = next(i for i in fn.instructions() if i.opcode == "call" and i.type.is_void)
    assert not aa.is_constant_instruction(sink)
    assert aa.is_constant_value(inst(fn, "k")) and aa.is_constant_instruction(inst(fn, "k"))
    assert not aa.is_constant_value(inst(fn, "r"))
