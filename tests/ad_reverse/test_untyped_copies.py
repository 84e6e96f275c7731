"""Copies of bytes nothing types (``memcpy``/``memmove`` whose ends are never read or
written with a type in the code irgrad analyses).

* Into a block the function has just allocated -- a ``std::vector`` member
  copy-constructed at -O0 whose elements the program never uses -- the copy is
  differentiated: its reverse is a no-op while the destination's shadow is still zero,
  which the reverse pass checks at run time (tests/ad_cxx/copy_unused_member_vector.cpp
  is the numeric check).
* When derivatives do reach such a destination (here through a callback that type
  analysis does not follow), the derivative stops at run time with the located
  ``Cannot deduce type`` message: never a silently wrong derivative.
* Into memory the function did not allocate (an argument), it stays a compile-time error
  (tests/ad_api/errors/memcpy_without_type.c).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from warm_cli import irgrad_command

HIDDEN_READER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static double sum_squares(const double *p, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += p[i] * p[i];
  return s;
}
static double sum_cubes(const double *p, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += p[i] * p[i] * p[i];
  return s;
}
double (*reader)(const double *, long);

/* a byte copy into scratch memory, read back through a callback */
__attribute__((noinline)) double through_scratch(const void *x, long n) {
  void *scratch = malloc(n * sizeof(double));
  memcpy(scratch, x, n * sizeof(double));  /* COPY-LINE */
  double r = reader(scratch, n);
  free(scratch);
  return r;
}

int main(int argc, char **argv) {
  (void)argv;
  reader = argc > 5 ? sum_cubes : sum_squares;
  double x[3] = {1.0, 2.0, 3.0}, dx[3] = {0.0, 0.0, 0.0};
  __enzyme_autodiff((void *)through_scratch, enzyme_dup, x, dx, enzyme_const, 3L);
  printf("dx = %g %g %g\n", dx[0], dx[1], dx[2]);
  return 0;
}
"""


@pytest.mark.parametrize("level", ["O0", "O2"])
def test_derivatives_reaching_untyped_copy_stop_at_run_time(level: str,
                                                           tmp_path: Path) -> None:
    src = tmp_path / "hidden_reader.c"
    src.write_text(HIDDEN_READER)
    exe = tmp_path / "hidden_reader"
    cc = subprocess.run([*irgrad_command(), "cc", f"-{level}", "-g", str(src), "-o",
                         str(exe)], capture_output=True, text=True, timeout=300, check=False)
    assert cc.returncode == 0, cc.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode != 0, run.stdout  # never prints a (wrong) gradient
    assert "dx =" not in run.stdout
    line = next(k for k, text in enumerate(HIDDEN_READER.splitlines(), 1)
                if "COPY-LINE" in text)
    assert f"hidden_reader.c:{line}:" in run.stderr, run.stderr
    assert "Cannot deduce type of the data copied by memcpy/memmove" in run.stderr
    assert " object at 0x" not in run.stderr
