"""A value defined outside every loop takes one tape slot however many reverse blocks
need it (issue 18, items 1 and 2): outside loops each block runs at most once per call,
so every lookup can share the slot of the last block that post-dominates them. A
recursive FFT that mallocs its even and odd halves needs each half's address (and its
shadow's) in the reverse of the split loop, of the two recursive calls, of the combine
loop and of the frees: before, each of those blocks popped its own copy (four slots per
pointer, 152 bytes per call); now one per pointer and one per shadow.

Checked by the dot-product test at -O0..-O3 and by the explain report of the recursive
callee's derivative at -O1..-O3 (each malloc'd pointer taped at most twice: the block's
address and its shadow's).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from reverse_dot_product import check_program

import irgrad

SOURCE = """
#include <math.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 8; /* a size the optimizer cannot fold */
static void fft(double *re, double *im, int n) {
  if (n == 1) return;
  int h = n / 2;
  double *er = malloc(sizeof(double) * h), *ei = malloc(sizeof(double) * h);
  double *odr = malloc(sizeof(double) * h), *odi = malloc(sizeof(double) * h);
  for (int k = 0; k < h; k++) {
    er[k] = re[2 * k];
    ei[k] = im[2 * k];
    odr[k] = re[2 * k + 1];
    odi[k] = im[2 * k + 1];
  }
  fft(er, ei, h);
  fft(odr, odi, h);
  for (int k = 0; k < h; k++) {
    double c = cos(-2 * M_PI * k / n), s = sin(-2 * M_PI * k / n);
    double tr = c * odr[k] - s * odi[k], ti = s * odr[k] + c * odi[k];
    re[k] = er[k] + tr;
    im[k] = ei[k] + ti;
    re[k + h] = er[k] - tr;
    im[k + h] = ei[k] - ti;
  }
  free(er);
  free(ei);
  free(odr);
  free(odi);
}
static double loss(const double *x, int n) {
  double re[8], im[8];
  for (int i = 0; i < n; i++) { re[i] = x[i] * x[(i + 3) % n]; im[i] = 0.1 * x[i]; }
  fft(re, im, n);
  double s = 0.0;
  for (int k = 0; k < n; k++) s += (1.0 + k) * (re[k] * re[k] + im[k] * im[k]);
  return s;
}
void primal(const double *x, double *y) { y[0] = loss(x, N); }
void grad(const double *x, double *dx, double *y, double *dy) {
  double g[8] = {0};
  __enzyme_autodiff((void *)loss, enzyme_dup, x, g, enzyme_const, N);
  for (int i = 0; i < 8; i++) dx[i] += dy[0] * g[i];
  primal(x, y);
}
"""


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_dot_product(level: int) -> None:
    check_program(SOURCE, 8, 1, level, seed=6, label=("fft_halves", level))


@pytest.mark.parametrize("level", [1, 2, 3])
def test_report_one_slot_per_pointer(tmp_path: Any, level: int) -> None:
    src = tmp_path / "prog.c"
    src.write_text(SOURCE)
    reports = [r for r in irgrad.explain_ad(src, opt_level=level) if " of fft " in r]
    assert reports, "no derivative of fft"
    for text in reports:
        cached = text.partition("recomputed in the reverse pass")[0]
        # taped malloc results, by source position
        mallocs = Counter(m.group(1) for m in re.finditer(
            r"prog\.c:(\d+:\d+): %[\w.]+ = .*call .*@malloc\(", cached))
        assert mallocs and max(mallocs.values()) <= 2, text
