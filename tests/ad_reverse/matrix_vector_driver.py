"""The C around a test program ``static double f(double *a, double *x, int n)``: a 3x3
matrix and a 6-vector built from the 6 inputs (``a``'s entries scaled by ``diag`` on
every fourth, by ``off`` elsewhere), ``primal`` and ``grad`` for the dot-product test
(:func:`reverse_dot_product.check_program` with 6 inputs and 1 output)."""

from __future__ import annotations

HEADER = """
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 3, ITERS = 3; /* trip counts the optimizer cannot fold */
"""


def driver(diag: float, off: float) -> str:
    scale = f"(k % 4 == 0 ? {diag} : {off})"
    return f"""
void primal(const double *in, double *y) {{
  double a[9], x[6];
  for (int k = 0; k < 9; k++) a[k] = in[k % 6] * {scale};
  for (int k = 0; k < 6; k++) x[k] = in[(k + 2) % 6];
  y[0] = f(a, x, N);
}}
void grad(const double *in, double *din, double *y, double *dy) {{
  double a[9], da[9] = {{0}}, x[6], dx[6] = {{0}};
  for (int k = 0; k < 9; k++) a[k] = in[k % 6] * {scale};
  for (int k = 0; k < 6; k++) x[k] = in[(k + 2) % 6];
  __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_const, N);
  for (int k = 0; k < 9; k++) din[k % 6] += dy[0] * da[k] * {scale};
  for (int k = 0; k < 6; k++) din[(k + 2) % 6] += dy[0] * dx[k];
  primal(in, y);
}}
"""
