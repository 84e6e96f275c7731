"""Which globals carry derivatives (irgrad.analysis.global_activity), and what happens
where a global cannot: a located error at compile time, or -- for a pointer kept in a
global since before the derivative was called -- a message at run time instead of a
null dereference. The numbers are checked by the C programs in tests/ad_programs
(globals_active_shadow, globals_constant_shadow, globals_user_shadow_table)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from irgrad import ir
from irgrad.ad.api import lower_enzyme_calls
from irgrad.analysis.global_activity import global_activity
from irgrad.errors import DifferentiationError
from irgrad.ir.printer import print_function
from irgrad.toolchain import enzyme_include_dir
from warm_cli import irgrad_command

CLASSIFY = """
@scratch = internal global [4 x double] zeroinitializer
@read_only = global double 2.0
@set_to_constant = global double 0.0
@counter = global i32 0
@escapes = global [2 x double] zeroinitializer
@table = internal constant [2 x double] [double 1.0, double 2.0]
@unreached = global double 0.0
@in_list = global double 0.0
@llvm.used = appending global [1 x ptr] [ptr @in_list], section "llvm.metadata"

declare void @external(ptr)

define double @f(ptr %x, i32 %i) {
  %v = load double, ptr %x
  store double %v, ptr getelementptr inbounds (i8, ptr @scratch, i64 8)
  %r = load double, ptr @read_only
  store double 1.0, ptr @set_to_constant
  %c = load i32, ptr @counter
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @counter
  %t = load double, ptr @table
  %in = load double, ptr @in_list
  call void @helper()
  %s = load double, ptr getelementptr inbounds (i8, ptr @scratch, i64 8)
  %m = fmul double %s, %r
  ret double %m
}

define void @helper() {
  call void @external(ptr @escapes)
  ret void
}

define void @other(double %v) {
  store double %v, ptr @unreached
  ret void
}
"""


def test_global_classification() -> None:
    module = ir.parse_module(CLASSIFY, "classify.ll")
    f, helper = module.get_function("f"), module.get_function("helper")
    got = global_activity(module, [f])
    names = {g.name for g in got.active}
    # a computed double stored into it; its address handed to an unknown function
    assert names == {"scratch", "escapes"}, names
    assert f in got.users and f in got.writers and helper in got.writers
    assert module.get_function("other") not in got.users  # not reached from f
    # with every function as a root, the store in @other counts too
    assert "unreached" in {g.name for g in global_activity(module).active}


def _lower(text: str) -> None:
    lower_enzyme_calls(ir.parse_module(text, "t.ll"))


SIZELESS = """
@weights = external global [0 x double]
declare double @__enzyme_autodiff(...)

define double @f(double %x) {
  store double %x, ptr @weights
  %w = load double, ptr @weights
  %m = fmul double %w, %x
  ret double %m
}

define double @g(double %x) {
  %d = call double (...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}
"""


def test_global_without_size_is_a_located_error() -> None:
    with pytest.raises(DifferentiationError, match=r"active memory in global @weights has "
                       r"no shadow: global @weights is declared without its size"):
        _lower(SIZELESS)
    with pytest.raises(DifferentiationError, match=r"@weights.*without its size"):
        _lower(SIZELESS.replace("__enzyme_autodiff(ptr @f, double %x)",
                                "__enzyme_fwddiff(ptr @f, double %x, double 1.0)")
               .replace("declare double @__enzyme_autodiff", "declare double @__enzyme_fwddiff"))


LAZY = r"""
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double *work;  /* allocated by the first call, reused by the next ones */
double f(const double *x, int n) {
  if (!work) work = malloc(16 * sizeof(double));
  for (int i = 0; i < n; i++) work[i] = 2.0 * x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += work[i] * x[i];
  return s;
}
int main(int argc, char **argv) {
  double x[3] = {1, 2, 3}, dx[3] = {0}, t[3] = {1, 0, 0};
  f(x, 3);  /* the primal allocates: the derivative's shadow of @work is unknown */
  if (argv[1][0] == 'r') __enzyme_autodiff((void *)f, x, dx, enzyme_const, 3);
  else __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, 3);
  printf("not reached\n");
  return 0;
}
"""


def test_pointer_kept_from_an_earlier_call_stops_with_a_message(tmp_path: Path) -> None:
    src = tmp_path / "lazy.c"
    src.write_text(LAZY)
    exe = tmp_path / "lazy"
    cc = subprocess.run([*irgrad_command(), "cc", f"-I{enzyme_include_dir()}",
                         "-O2", str(src), "-o", str(exe)], capture_output=True, text=True,
                        timeout=300, check=False)
    assert cc.returncode == 0, cc.stderr
    for mode in ("reverse", "forward"):
        run = subprocess.run([str(exe), mode], capture_output=True, text=True, timeout=60,
                             check=False)
        assert run.returncode != 0 and "not reached" not in run.stdout, (mode, run.stdout)
        assert "the pointer in global @work was set before this derivative was called" in \
            run.stderr, (mode, run.stderr)


METADATA = """
@g = global double 2.0, align 8, !enzyme_shadow !0
@g_d = global double 0.0, align 8
@scratch = internal global double 0.0, align 8
declare double @__enzyme_fwddiff(...)
declare double @__enzyme_autodiff(...)

define double @f(double %x) {
  %v = load double, ptr @g
  store double %x, ptr @scratch
  %s = load double, ptr @scratch
  %m = fmul double %v, %s
  ret double %m
}

define double @tangent(double %x) {
  %r = call double (...) @__enzyme_fwddiff(ptr @f, double %x, double 0.0)
  ret double %r
}

define double @gradient(double %x) {
  %r = call double (...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}
!0 = !{ptr @g_d}
"""


def test_enzyme_shadow_metadata_names_the_users_shadow() -> None:
    """The global's tangent is read from (its adjoint added into) the user's shadow,
    which is never zeroed; irgrad's own shadows are zeroed before each derivative call."""
    module = ir.parse_module(METADATA, "meta.ll")
    lower_enzyme_calls(module)
    text = ir.print_module(module)
    assert "load double, ptr @g_d" in text
    assert "@scratch.shadow = internal global double 0.0" in text
    for caller in ("tangent", "gradient"):
        body = print_function(module.get_function(caller))
        assert "llvm.memset.p0.i64(ptr align 8 @scratch.shadow, i8 0, i64 8" in body, body
        assert "@g_d" not in body
