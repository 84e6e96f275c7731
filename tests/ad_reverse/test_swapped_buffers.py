"""Loads re-read in the reverse pass although the loop writes through a pointer that
alternates between two buffers (issue 18, item 1): ``double *t = x; x = xnew; xnew = t;``
at the end of each sweep, as Jacobi solvers, time steppers and layer-by-layer networks
write it. The store's pointer is a phi of the two buffers; the writes are now known to
reach only the objects the phi may be based on (both allocations of the function), so a
matrix or weights passed in stay re-readable instead of taped once per use. Where one of
the two buffers is an argument (the caller's array swapped with scratch), the input
arrays may alias it and stay taped.

Every program is checked by the dot-product test at -O0..-O3, and the explain report says
whether the coefficient loads were re-read.
"""

from __future__ import annotations

from typing import Any

import pytest
from explain_lines import marked_loads, report_of
from reverse_dot_product import check_program

HEADER = """
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 3, SWEEPS = 4; /* trip counts the optimizer cannot fold */
"""

# name -> (program with primal and grad over 6 inputs and 1 output, are the coefficient
# loads (marked COEF) re-read?)
PROGRAMS: dict[str, tuple[str, bool]] = {
    # three coefficients of a tridiagonal operator and its right-hand side; Jacobi sweeps
    # into a buffer swapped with the iterate, both malloc'd here
    "jacobi_swap": ("""
static double sweep_all(const double *coef, const double *b, int n, int sweeps) {
  double *u = calloc(n, sizeof(double)), *unew = malloc(sizeof(double) * n);
  for (int s = 0; s < sweeps; s++) {
    for (int i = 0; i < n; i++) {
      double left = i > 0 ? u[i - 1] : 0.0, right = i < n - 1 ? u[i + 1] : 0.0;
      unew[i] = (b[i] - coef[1] * left - coef[2] * right) / (4.0 + coef[0]); /* COEF */
    }
    double *t = u; u = unew; unew = t;
  }
  double r = 0.0;
  for (int i = 0; i < n; i++) r += u[i] * u[i] * (1.0 + 0.1 * i);
  free(u);
  free(unew);
  return r;
}
void primal(const double *x, double *y) { y[0] = sweep_all(x, x + 3, N, SWEEPS); }
void grad(const double *x, double *dx, double *y, double *dy) {
  double g[6] = {0};
  __enzyme_autodiff((void *)sweep_all, enzyme_dup, x, g, enzyme_dup, x + 3, g + 3,
                    enzyme_const, N, enzyme_const, SWEEPS);
  for (int i = 0; i < 6; i++) dx[i] += dy[0] * g[i];
  primal(x, y);
}""", True),
    # the caller's array is one of the two buffers: the coefficients may alias it
    "caller_buffer_swap": ("""
static double smooth(double *u, const double *coef, int n, int sweeps) {
  double *cur = u, *nxt = malloc(sizeof(double) * n);
  for (int s = 0; s < sweeps; s++) {
    for (int i = 0; i < n; i++) {
      double left = i > 0 ? cur[i - 1] : cur[i], right = i < n - 1 ? cur[i + 1] : cur[i];
      nxt[i] = coef[i] * cur[i] + coef[3 + i] * (left + right); /* COEF */
    }
    double *t = cur; cur = nxt; nxt = t;
  }
  if (cur != u) memcpy(u, cur, sizeof(double) * n);
  free(cur == u ? nxt : cur);
  double r = 0.0;
  for (int i = 0; i < n; i++) r += u[i] * u[i];
  return r;
}
void primal(const double *x, double *y) {
  double u[3] = {x[1], x[3], x[5]};
  y[0] = smooth(u, x, N, SWEEPS);
}
void grad(const double *x, double *dx, double *y, double *dy) {
  double u[3] = {x[1], x[3], x[5]}, du[3] = {0}, dc[6] = {0};
  __enzyme_autodiff((void *)smooth, enzyme_dup, u, du, enzyme_dup, x, dc, enzyme_const, N,
                    enzyme_const, SWEEPS);
  for (int i = 0; i < 6; i++) dx[i] += dy[0] * dc[i];
  for (int i = 0; i < 3; i++) dx[2 * i + 1] += dy[0] * du[i];
  primal(x, y);
}""", False),
}


def source_of(name: str) -> str:
    return HEADER + PROGRAMS[name][0]


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    check_program(source_of(name), 6, 1, level, seed=5, label=(name, level))


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_report_coefficients(tmp_path: Any, name: str, level: int) -> None:
    text = report_of(tmp_path, source_of(name), level, "sweep_all", "smooth")
    taped, reread = marked_loads(text, source_of(name), "COEF")
    if PROGRAMS[name][1]:
        assert reread and not taped, text
    else:
        assert taped, text
