"""irgrad.llvm.sort_search_libcalls: qsort, qsort_r and bsearch in a module that asks for
derivatives become calls of irgrad's own bodies, which sort and search as the library
does (checked here on the primal, by running them; their derivatives are checked by
tests/ad_programs/libc_qsort_bsearch.c at -O0..-O3 on every route)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from irgrad import ir
from irgrad.llvm.sort_search_libcalls import lower_sort_search_libcalls
from warm_cli import irgrad_command

DECLS = """
declare void @qsort(ptr, i64, i64, ptr)
declare ptr @bsearch(ptr, ptr, i64, i64, ptr)
declare i32 @cmp(ptr, ptr)
"""
CALLS = """
define void @f(ptr %p, ptr %k, i64 %n, ptr %c) {
  call void @qsort(ptr %p, i64 %n, i64 8, ptr @cmp)
  call void @qsort(ptr %p, i64 %n, i64 8, ptr %c)
  %r = call ptr @bsearch(ptr %k, ptr %p, i64 %n, i64 8, ptr @cmp)
  store ptr %r, ptr %k
  ret void
}
"""
ENZYME = "declare void @__enzyme_autodiff(ptr, ...)\n"


def _lower(text: str) -> tuple[int, str]:
    m = ir.parse_module(text, "t.ll")
    n = lower_sort_search_libcalls(m)
    ir.verify_module(m)
    return n, ir.print_module(m)


def test_calls_become_bodies_specialized_by_comparator_and_size() -> None:
    n, text = _lower(ENZYME + DECLS + CALLS)
    assert n == 3
    f = text.split("define void @f(")[1].split("\n}\n")[0]
    assert "@qsort(" not in f and "@bsearch(" not in f
    # a comparator the module declares but does not define is called through the pointer
    assert f.count("@__irgrad_qsort.indirect.8(") == 2
    assert "%r = call ptr @__irgrad_bsearch.indirect.8(" in f


def test_a_defined_comparator_is_called_directly() -> None:
    text = ENZYME + DECLS.replace("declare i32 @cmp(ptr, ptr)", """
define internal i32 @cmp(ptr %a, ptr %b) {
  %x = load double, ptr %a
  %y = load double, ptr %b
  %lt = fcmp olt double %x, %y
  %r = zext i1 %lt to i32
  ret i32 %r
}""") + CALLS
    n, out = _lower(text)
    assert n == 3
    body = out.split("define internal void @__irgrad_qsort.cmp.8(")[1].split("\n}\n")[0]
    assert "call i32 @cmp(" in body and "llvm.memcpy" in body
    assert "@__irgrad_qsort.indirect.8(" in out  # the call with a run-time comparator


def test_modules_without_derivatives_or_with_their_own_sort_are_left_alone() -> None:
    assert _lower(DECLS + CALLS)[0] == 0
    own = ENZYME + DECLS.replace("declare void @qsort(ptr, i64, i64, ptr)", """
define void @qsort(ptr %b, i64 %n, i64 %s, ptr %c) {
  ret void
}""") + CALLS
    n, out = _lower(own)
    assert n == 1  # only bsearch
    assert "call void @qsort(ptr %p, i64 %n, i64 8, ptr @cmp)" in out


PROGRAM = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
double __enzyme_autodiff(void *, ...);
typedef struct { double key; int order; } item;
static int by_key(const void *a, const void *b) {
  double x = ((const item *)a)->key, y = ((const item *)b)->key;
  return (x > y) - (x < y);
}
static int by_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}
static int by_mod(const void *a, const void *b, void *m) {
  int k = *(int *)m;
  return *(const int *)a % k - *(const int *)b % k;
}
static double square(double x) { return x * x; }
int main(void) {
  srand(7);
  for (int n = 0; n <= 67; n++) {
    item v[67];
    int w[67];
    for (int i = 0; i < n; i++) {
      v[i].key = rand() % 9;  // many ties: the sort must keep their order
      v[i].order = i;
      w[i] = rand() % 1000;
    }
    qsort(v, n, sizeof v[0], by_key);
    for (int i = 1; i < n; i++)
      if (v[i - 1].key > v[i].key ||
          (v[i - 1].key == v[i].key && v[i - 1].order > v[i].order)) {
        printf("unsorted at n=%d i=%d\n", n, i);
        return 1;
      }
    int seen[67] = {0};
    for (int i = 0; i < n; i++) seen[v[i].order]++;
    for (int i = 0; i < n; i++)
      if (seen[i] != 1) { printf("not a permutation at n=%d\n", n); return 1; }
    qsort(w, n, sizeof w[0], by_int);
    for (int i = 0; i < n; i++) {
      int *hit = bsearch(&w[i], w, n, sizeof w[0], by_int);
      if (!hit || *hit != w[i]) { printf("bsearch missed %d at n=%d\n", w[i], n); return 1; }
      int missing = -1 - i;
      if (bsearch(&missing, w, n, sizeof w[0], by_int)) { printf("found %d\n", missing); return 1; }
    }
    int m = 7;
    qsort_r(w, n, sizeof w[0], by_mod, &m);
    for (int i = 1; i < n; i++)
      if (w[i - 1] % 7 > w[i] % 7) { printf("qsort_r unsorted at n=%d\n", n); return 1; }
  }
  if (__enzyme_autodiff((void *)square, 3.0) != 6.0) return 1;
  printf("OK\n");
  return 0;
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_bodies_sort_stably_and_search_like_the_library(level: str, tmp_path: Path) -> None:
    src = tmp_path / "sorts.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "sorts"
    ll = tmp_path / "sorts.ll"
    cc = subprocess.run([*irgrad_command(), "cc", level, str(src), "-o", str(exe)],
                        capture_output=True, text=True, timeout=300)
    assert cc.returncode == 0, cc.stderr
    ir_cc = subprocess.run([*irgrad_command(), "cc", level, "-S", "-emit-llvm", str(src),
                            "-o", str(ll)], capture_output=True, text=True, timeout=300)
    assert ir_cc.returncode == 0, ir_cc.stderr
    text = ll.read_text()
    assert "@__irgrad_qsort.by_key.16(" in text and "@__irgrad_qsort_r.by_mod.4(" in text
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "OK", run.stdout + run.stderr
