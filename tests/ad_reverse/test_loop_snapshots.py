"""Arrays read the same way in every iteration of an outer loop are copied once before
it instead of taped once per iteration (issue 18, item 1): in a matrix-vector product
``t += a[i][j] * x[j]`` the vector ``x`` is read ``n`` times per product, and when the
program overwrites ``x`` afterwards (a power iteration, a solver's search direction)
taping it cost ``n^2`` values per product for ``n`` distinct ones. The reverse pass
now reads ``x[j]`` from a copy taken at the outer loop's preheader (see
``irgrad.ad.reverse.loop_snapshots``).

The copy is only right when nothing in the outer loop writes the array: a Gauss-Seidel
sweep that updates ``x[i]`` in place while reading ``x[j]`` must keep taping it. Layers
computed through two buffers swapped after each layer read one allocation and write the
other within a layer (copied); two halves of one allocation are not known apart (taped). Every
program is checked by the dot-product test at -O0..-O3, and the explain report says
which loads (marked READ) were read from a copy.
"""

from __future__ import annotations

from typing import Any

import pytest
from explain_lines import marked_loads, report_of
from matrix_vector_driver import HEADER, driver
from reverse_dot_product import check_program

DRIVER = driver(1.5, 0.4)

# name -> (program defining f(a, x, n), is the x[j] load (READ) read from a copy?)
PROGRAMS: dict[str, tuple[str, bool]] = {
    # power iteration: y = A x, then x = y / |y|-ish, ITERS times
    "power_iteration": ("""
static double f(const double *a, double *x, int n) {
  double *y = malloc(sizeof(double) * n), s = 0.0;
  for (int it = 0; it < ITERS; it++) {
    for (int i = 0; i < n; i++) {
      double t = 0.0;
      for (int j = 0; j < n; j++) {
        double xj = x[j]; /* READ */
        t += a[i * n + j] * xj;
      }
      y[i] = t;
    }
    double norm = 0.0;
    for (int i = 0; i < n; i++) norm += y[i] * y[i];
    for (int i = 0; i < n; i++) x[i] = y[i] / (1.0 + norm);
    s += norm;
  }
  free(y);
  return s + x[0];
}""", True),
    # every other entry of x (an interleaved complex vector's real parts), step 2
    "strided_vector": ("""
static double f(const double *a, double *x, int n) {
  double *y = malloc(sizeof(double) * n), s = 0.0;
  for (int it = 0; it < ITERS; it++) {
    for (int i = 0; i < n; i++) {
      double t = 0.0;
      for (int j = 0; j < 2 * n; j += 2) {
        double xj = x[j]; /* READ */
        t += a[i * n + j / 2] * xj * x[j + 1];
      }
      y[i] = t;
    }
    for (int i = 0; i < n; i++) { x[2 * i] = 0.5 * y[i]; s += y[i] * y[i]; }
  }
  free(y);
  return s;
}""", True),
    # layer by layer through two buffers swapped after each layer: within a layer the
    # activations read and the ones written are different allocations
    "swapped_layers": ("""
static double f(const double *a, double *x, int n) {
  double *cur = malloc(sizeof(double) * n), *nxt = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) cur[i] = x[i] * x[i + n];
  for (int l = 0; l < ITERS; l++) {
    for (int r = 0; r < n; r++) {
      double s = 0.1 * l;
      for (int c = 0; c < n; c++) {
        double v = cur[c]; /* READ */
        s += a[r * n + c] * v;
      }
      nxt[r] = s / (1.0 + s * s);
    }
    double *t = cur; cur = nxt; nxt = t;
  }
  double out = 0.0;
  for (int i = 0; i < n; i++) out += cur[i] * (1.0 + i);
  free(cur);
  free(nxt);
  return out;
}""", True),
    # the same with the two buffers as halves of one allocation: not known apart
    "swapped_halves": ("""
static double f(const double *a, double *x, int n) {
  double *buf = malloc(sizeof(double) * 2 * n), *cur = buf, *nxt = buf + n;
  for (int i = 0; i < n; i++) cur[i] = x[i] * x[i + n];
  for (int l = 0; l < ITERS; l++) {
    for (int r = 0; r < n; r++) {
      double s = 0.1 * l;
      for (int c = 0; c < n; c++) {
        double v = cur[c]; /* READ */
        s += a[r * n + c] * v;
      }
      nxt[r] = s / (1.0 + s * s);
    }
    double *t = cur; cur = nxt; nxt = t;
  }
  double out = 0.0;
  for (int i = 0; i < n; i++) out += cur[i] * (1.0 + i);
  free(buf);
  return out;
}""", False),
    # Gauss-Seidel: x[i] is updated in the loop that reads x[j]
    "gauss_seidel": ("""
static double f(const double *a, double *x, int n) {
  double s = 0.0;
  for (int it = 0; it < ITERS; it++) {
    for (int i = 0; i < n; i++) {
      double t = 1.0;
      for (int j = 0; j < n; j++) {
        double xj = x[j]; /* READ */
        if (j != i) t -= 0.3 * a[i * n + j] * xj;
      }
      x[i] = t / (2.0 + a[i * n + i] * a[i * n + i]);
    }
    s += x[0] * x[n - 1];
  }
  return s;
}""", False),
}


def source_of(name: str) -> str:
    return HEADER + PROGRAMS[name][0] + DRIVER


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    check_program(source_of(name), 6, 1, level, seed=9, label=(name, level))


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_report_vector_loads(tmp_path: Any, name: str, level: int) -> None:
    text = report_of(tmp_path, source_of(name), level, "f")
    taped, rest = marked_loads(text, source_of(name), "READ")
    copied = [ln for ln, why in rest if "copy of the range" in why]
    if PROGRAMS[name][1]:
        assert copied and not taped, text
    else:
        assert taped and not copied, text
