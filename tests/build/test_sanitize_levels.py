"""``irgrad cc -fsanitize=address,undefined`` at every level, the way a user checks a
derivative like the rest of their code.

At -O0 clang runs its pass sanitizers while it compiles each unit; before the fix the
instrumented unit kept the addresses of Enzyme's markers (``enzyme_dup``...) and the link
failed with undefined references. The program below keeps its gradient call in a static
function behind a function pointer (as benchmark drivers do), recurses with a malloc'd
sub-problem per call and checks its gradient against central differences.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from build_helpers import BIN, LEVELS, run, run_program

PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double det(const double *a, int n) {
  if (n == 1) return a[0];
  double *minor = malloc(sizeof(double) * (n - 1) * (n - 1));
  double sum = 0.0, sign = 1.0;
  for (int c = 0; c < n; c++) {
    for (int i = 1; i < n; i++) {
      int k = 0;
      for (int j = 0; j < n; j++)
        if (j != c) minor[(i - 1) * (n - 1) + k++] = a[i * n + j];
    }
    sum += sign * a[c] * det(minor, n - 1);
    sign = -sign;
  }
  free(minor);
  return sum;
}

static double A[16], DA[16];
static void gradient(void) {
  for (int i = 0; i < 16; i++) DA[i] = 0.0;
  __enzyme_autodiff((void *)det, enzyme_dup, A, DA, enzyme_const, 4);
}

int main(void) {
  void (*run)(void) = gradient;
  for (int i = 0; i < 16; i++) A[i] = sin(1.0 + i) + (i % 5 == 0 ? 2.0 : 0.0);
  run();
  for (int i = 0; i < 16; i++) {
    double h = 1e-6, keep = A[i];
    A[i] = keep + h;
    double up = det(A, 4);
    A[i] = keep - h;
    double down = det(A, 4);
    A[i] = keep;
    double fd = (up - down) / (2 * h);
    if (fabs(fd - DA[i]) > 1e-6 * (1.0 + fabs(fd))) {
      printf("wrong d/da[%d]: %.17g vs %.17g\n", i, DA[i], fd);
      return 1;
    }
  }
  printf("ok\n");
  return 0;
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_sanitized_gradient_at_every_level(level: str, tmp_path: Path,
                                           env: dict[str, str]) -> None:
    src = tmp_path / "det.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "det"
    run([str(BIN / "irgrad"), "cc", level, "-g", "-fsanitize=address,undefined",
         "-fno-sanitize-recover=all", str(src), "-o", str(exe), "-lm"], tmp_path, env)
    run_program(exe)
