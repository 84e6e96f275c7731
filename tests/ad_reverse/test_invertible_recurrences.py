"""Loop-carried values recovered backwards in the reverse loop instead of taped once per
iteration (issue 18, item 1): conditional counters that pack a minor or compact a list
(``if (j != c) minor[k++] = ...``), sign flips (``sign = -sign``) and pointers advanced
by a stride computed from the loop index. The reverse pass keeps such a value in a slot,
sets it to the value of the last iteration when it enters the loop's reverse, and undoes
one update per iteration (see ``irgrad.ad.reverse.recurrences``).

Every program is checked by the dot-product test at -O0..-O3 (an undo with the wrong
condition or stride gives a wrong gradient). The explain report must say the counter is
recovered (not taped) where its update depends on the loop index or on memory nothing
overwrites, and taped where it depends on memory the loop itself overwrites.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from reverse_dot_product import check_program

import irgrad

HEADER = """
#include <math.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 12; /* a trip count the optimizer cannot fold */
"""
DRIVER = """
void grad(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
void primal(const double *x, double *y) { f(x, y); }
"""

# name -> (program, number of outputs, is the counter k recovered?)
PROGRAMS: dict[str, tuple[str, int, str, bool]] = {
    # a textbook determinant: each level mallocs the minor it packs, column by column
    "laplace_minor": ("""
static double det(const double *a, int n) {
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
static void f(const double *x, double *y) {
  y[0] = det(x, 3);
  y[1] = det(x + 3, 3) * x[0];
}""", 2, True),
    # compaction by the index, then an alternating sum walking x with strides 1, 2, 1, ...
    "compact_by_index": ("""
static void f(const double *x, double *y) {
  double packed[12];
  int k = 0;
  for (int i = 0; i < N; i++)
    if (i % 3 != 1) packed[k++] = x[i] * x[(i + 5) % N];
  double s = 0.0, sign = 1.0;
  const double *p = x;
  for (int i = 0; i < k; i++) {
    s += sign * packed[i] * *p * *p;
    sign = -sign;
    p += (i & 1) ? 2 : 1;
  }
  y[0] = s;
  y[1] = packed[k - 1] * s;
}""", 2, True),
    # compaction by a test of data nothing overwrites afterwards (a working copy of the
    # input: the caller's y may alias x, so x itself could change), re-read per iteration
    "compact_by_input": ("""
static void f(const double *x, double *y) {
  double in[12], kept[12];
  for (int i = 0; i < N; i++) in[i] = x[i];
  int k = 0;
  for (int i = 0; i < N; i++) {
    double v = in[i] * in[(i + 1) % N];
    if (in[i] > 0.45) kept[k++] = v;
  }
  double s = 0.0;
  for (int i = 0; i < k; i++) s += kept[i] * kept[(i + 1) % k];
  y[0] = s;
  y[1] = k > 0 ? kept[0] : 0.0;
}""", 2, True),
    # the test reads memory the loop overwrites: the counter stays on the tape
    "compact_in_place": ("""
static void f(const double *x, double *y) {
  double w[12];
  for (int i = 0; i < N; i++) w[i] = x[i];
  int k = 0;
  for (int i = 0; i < N; i++) {
    if (w[i] > 0.45) { w[k] = w[i] * w[(i + 1) % N]; k++; }
  }
  double s = 0.0;
  for (int i = 0; i < k; i++) s += w[i] * x[i];
  y[0] = s;
  y[1] = w[0] * w[N - 1];
}""", 2, False),
}


def source_of(name: str) -> str:
    return HEADER + PROGRAMS[name][0] + DRIVER


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    check_program(source_of(name), 12, PROGRAMS[name][1], level, seed=11, label=(name, level))


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_report_counter(tmp_path: Any, name: str, level: int) -> None:
    src = tmp_path / "prog.c"
    src.write_text(source_of(name))
    text = "\n".join(irgrad.explain_ad(src, opt_level=level))
    cached, recovered = _counter_lines(text)
    if PROGRAMS[name][2]:
        assert recovered and not cached, text
    else:
        assert cached and not recovered, text


_COUNTER = re.compile(r"%k\.\d+ = phi i32")


def _counter_lines(text: str) -> tuple[list[str], list[str]]:
    """The phis of the counter ``k`` taped once per iteration of a loop, and those
    recovered by undoing their update."""
    cached: list[str] = []
    recovered: list[str] = []
    lines = text.splitlines()
    section = ""
    for k, ln in enumerate(lines):
        if "cached on the tape" in ln:
            section = "cached"
        elif "recomputed in the reverse pass" in ln:
            section = "recomputed"
        if not _COUNTER.search(ln):
            continue
        why = lines[k + 1] if k + 1 < len(lines) else ""
        if section == "cached" and "loop at" in why:
            cached.append(ln)
        elif section == "recomputed" and "undoing its update" in why:
            recovered.append(ln)
    return cached, recovered
