"""irgrad.llvm.memory_libcalls: glibc's __memcpy_chk and siblings (-D_FORTIFY_SOURCE)
become memory intrinsics preceded by the same object-size check; plain memcpy/memmove/
memset calls (-fno-builtin) become the intrinsics."""

from __future__ import annotations

import subprocess

import pytest

from irgrad import ir
from irgrad.llvm.memory_libcalls import CHECK, lower_memory_libcalls
from warm_cli import irgrad_command

HEADER = """
declare ptr @__memcpy_chk(ptr, ptr, i64, i64)
declare ptr @__memmove_chk(ptr, ptr, i64, i64)
declare ptr @__mempcpy_chk(ptr, ptr, i64, i64)
declare ptr @__memset_chk(ptr, i32, i64, i64)
"""


def _lowered(body: str) -> tuple[int, str]:
    m = ir.parse_module(HEADER + body, "t.ll")
    n = lower_memory_libcalls(m)
    ir.verify_module(m)
    return n, ir.print_module(m)


def _body(text: str, header: str) -> str:
    """The body of the function whose definition starts with ``header``."""
    return text.split(header)[1].split("\n}\n")[0]


def test_each_checked_call_becomes_the_check_and_the_intrinsic() -> None:
    n, text = _lowered("""
define ptr @f(ptr %d, ptr %s, i64 %n) {
  %a = call ptr @__memcpy_chk(ptr %d, ptr %s, i64 %n, i64 128), !dbg !1
  %b = call ptr @__memmove_chk(ptr %a, ptr %s, i64 %n, i64 128)
  %c = call ptr @__memset_chk(ptr %b, i32 7, i64 %n, i64 128)
  %e = call ptr @__mempcpy_chk(ptr %c, ptr %s, i64 %n, i64 128)
  ret ptr %e
}
!1 = !{}
""")
    assert n == 4
    f = _body(text, "define ptr @f(")
    assert "_chk" not in f
    assert f.count(f"call void @{CHECK}(i64 %n, i64 128)") == 4
    for intrinsic in ("llvm.memcpy.p0.p0.i64(ptr %d, ptr %s", "llvm.memmove.p0.p0.i64(ptr %d",
                      "llvm.memset.p0.i64(ptr %d, i8 7"):
        assert intrinsic in f
    assert "getelementptr i8, ptr %d, i64 %n" in f  # mempcpy's result: the end
    check = _body(text, f"define internal void @{CHECK}(")
    assert "icmp ugt i64 %n, %size" in check and "call void @__chk_fail()" in check


def test_an_unknown_object_size_needs_no_check() -> None:
    n, text = _lowered("""
define void @g(ptr %d, ptr %s, i64 %n) {
  %a = call ptr @__memcpy_chk(ptr %d, ptr %s, i64 %n, i64 -1)
  ret void
}
""")
    assert n == 1 and CHECK not in text and "llvm.memcpy" in text


OVERFLOW = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct box { double v[4]; int n; };
__attribute__((noinline)) double fill(const double *x, int n) {
  struct box b;
  memcpy(b.v, x, (size_t)n * sizeof(double));
  b.n = n;
  double s = 0;
  for (int i = 0; i < 4; i++) s += b.v[i];
  return s;
}
int main(int argc, char **argv) {
  double x[64] = {1, 2, 3, 4};
  printf("%g\n", fill(x, atoi(argv[1])));
  return 0;
}
"""


@pytest.mark.parametrize("opt_level", [1, 2, 3])
def test_the_overflow_check_stays(tmp_path, opt_level: int) -> None:
    src = tmp_path / "box.c"
    src.write_text(OVERFLOW)
    exe = tmp_path / "box"
    subprocess.run([*irgrad_command(), "cc", f"-O{opt_level}",
                    "-D_FORTIFY_SOURCE=2", str(src), "-o", str(exe)], check=True)
    ok = subprocess.run([str(exe), "4"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.strip() == "10"
    bad = subprocess.run([str(exe), "40"], capture_output=True, text=True)
    assert bad.returncode != 0 and "buffer overflow detected" in bad.stderr


def test_plain_library_calls_become_intrinsics() -> None:
    n, text = _lowered("""
declare ptr @memcpy(ptr, ptr, i64)
declare ptr @memset(ptr, i32, i64)
define ptr @h(ptr %d, ptr %s, i64 %n) {
  %a = call ptr @memcpy(ptr %d, ptr %s, i64 %n)
  %b = call ptr @memset(ptr %a, i32 0, i64 %n)
  ret ptr %b
}
""")
    h = _body(text, "define ptr @h(")
    assert n == 2 and CHECK not in text and "call ptr @mem" not in h
    assert "llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n" in h and "ret ptr %d" in h


def test_a_module_s_own_memcpy_stays() -> None:
    n, _ = _lowered("""
define ptr @memcpy(ptr %d, ptr %s, i64 %n) {
  ret ptr %d
}
define void @k(ptr %d, ptr %s) {
  %a = call ptr @memcpy(ptr %d, ptr %s, i64 8)
  ret void
}
""")
    assert n == 0


@pytest.mark.parametrize("opt_level", [0, 2])
def test_a_gradient_through_memcpy_under_fno_builtin(tmp_path, opt_level: int) -> None:
    src = tmp_path / "nb.c"
    src.write_text(NO_BUILTIN)
    exe = tmp_path / "nb"
    subprocess.run([*irgrad_command(), "cc", f"-O{opt_level}", "-fno-builtin",
                    str(src), "-o", str(exe), "-lm"], check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.split() == ["2", "4", "6", "0.5"]


NO_BUILTIN = r"""
#include <stdio.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
struct st { double buf[8]; double w; };
double f(const double *x, int n, double w) {
  struct st s;
  memset(&s, 0, sizeof s);
  memcpy(s.buf, x, (size_t)n * sizeof(double));
  memmove(&s.w, &w, sizeof w);
  double r = 0;
  for (int i = 0; i < n; i++) r += s.buf[i] * s.buf[i];
  return r + 0.5 * s.w;
}
int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  double dw = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3, 1.0);
  printf("%g %g %g %g\n", dx[0], dx[1], dx[2], dw);
  return 0;
}
"""
