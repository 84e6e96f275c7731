"""Loads re-read in the reverse pass because the array written is a ``restrict``
(``noalias``) argument (issue 18, item 1). An iterative solver updates its solution
``x`` every iteration and reads its matrix through a pointer kept in an operator struct
(the way solver libraries pass operators): without ``restrict`` the updates may
overwrite the matrix, so every entry is taped once per use; with it, the matrix is
reached only through pointers not based on ``x`` while the function runs (LLVM's
``noalias``), and is re-read. Where the function keeps a copy of ``x`` (stores it into
the operator and reads the pointer back), the rule must not fire.

Every program is checked by the dot-product test at -O0..-O3, and the explain report
says whether the matrix loads (marked MATRIX) were re-read.
"""

from __future__ import annotations

from typing import Any

import pytest
from explain_lines import marked_loads, report_of
from reverse_dot_product import check_program

HEADER = """
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 3, ITERS = 4; /* trip counts the optimizer cannot fold */
typedef struct { int n; const double *a; double *out; } op_t;
static void apply(const op_t *op, const double *v, double *w) {
  for (int i = 0; i < op->n; i++) {
    double s = 0.0;
    for (int j = 0; j < op->n; j++) {
      double aij = op->a[i * op->n + j]; /* MATRIX */
      s += aij * v[j];
    }
    w[i] = s;
  }
}
"""
# Richardson iterations x += 0.1 (b - A x) on a 3x3 matrix built from the inputs;
# RESTRICT qualifies the solution array, APPLY is how the solver applies the operator
SOLVER = """
double solve(op_t *op, const double *b, double *RESTRICT x) {
  double r[3];
  memset(x, 0, sizeof(double) * op->n);
  for (int it = 0; it < ITERS; it++) {
    APPLY
    for (int i = 0; i < op->n; i++) x[i] += 0.1 * (b[i] - r[i]);
  }
  double s = 0.0;
  for (int i = 0; i < op->n; i++) s += x[i] * x[i] * (1.0 + i);
  return s;
}
void primal(const double *in, double *y) {
  double a[9], x[3];
  for (int k = 0; k < 9; k++) a[k] = in[k % 6] * (k % 4 == 0 ? 2.0 : 0.3);
  op_t op = {N, a, 0};
  y[0] = solve(&op, in + 3, x);
}
void grad(const double *in, double *din, double *y, double *dy) {
  double a[9], da[9] = {0}, x[3], dx[3] = {0}, db[3] = {0};
  for (int k = 0; k < 9; k++) a[k] = in[k % 6] * (k % 4 == 0 ? 2.0 : 0.3);
  op_t op = {N, a, 0}, dop = {N, da, 0};
  __enzyme_autodiff((void *)solve, enzyme_dup, &op, &dop, enzyme_dup, in + 3, db,
                    enzyme_dup, x, dx);
  for (int k = 0; k < 9; k++) din[k % 6] += dy[0] * da[k] * (k % 4 == 0 ? 2.0 : 0.3);
  for (int k = 0; k < 3; k++) din[3 + k] += dy[0] * db[k];
  primal(in, y);
}
"""

# name -> (restrict or not, how the solver applies the operator, matrix re-read?)
PROGRAMS: dict[str, tuple[str, str, bool]] = {
    "restrict_solution": ("restrict", "apply(op, x, r);", True),
    "aliasable_solution": ("", "apply(op, x, r);", False),
    # the solver keeps a copy of x in the operator and reads the pointer back
    "restrict_but_kept": ("restrict", "op->out = x; apply(op, op->out, r);", False),
}


def source_of(name: str) -> str:
    restrict, apply_, _ = PROGRAMS[name]
    return HEADER + SOLVER.replace("RESTRICT", restrict).replace("APPLY", apply_)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    check_program(source_of(name), 6, 1, level, seed=3, label=(name, level))


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_report_matrix(tmp_path: Any, name: str, level: int) -> None:
    text = report_of(tmp_path, source_of(name), level, "solve")
    taped, reread = marked_loads(text, source_of(name), "MATRIX")
    if PROGRAMS[name][2]:
        assert reread and not taped, text
    else:
        assert taped and not reread, text
