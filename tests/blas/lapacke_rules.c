/* LAPACKE's Cholesky routines (row- and column-major; their derivatives call LAPACKE and
 * CBLAS): blas_check.h. */
#include <lapacke.h>

#include "blas_check.h"

enum { N = 4, NRHS = 3 };

/* a symmetric positive definite 4 x 4 matrix in a (ld 5) */
static void spd(double x[4][NBUF]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      double v = (i == j ? 3.0 : 0.0) + 0.5 * x[0][i + 5 * j];
      x[0][i + 5 * j] = v;
      x[0][j + 5 * i] = v;
    }
}
static void potrf_row_l(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', N, a, 5);
}
static void solve_col_u(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', N, a, 5);
  LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'U', N, NRHS, a, 5, b, 5);
}
static void solve_row_l(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', N, a, 5);
  LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', N, NRHS, a, 5, b, NRHS + 1);
}

PATTERN(double, potrf_row_l, dup, const, const, const)
PATTERN(double, solve_col_u, dup, dup, const, const)
PATTERN(double, solve_row_l, dup, dup, const, const)
PATTERN(double, solve_row_l, const, dup, const, const)

int main(void) {
  CHECK(double, "LAPACKE_dpotrf row L", potrf_row_l, dup, const, const, const, spd);
  CHECK(double, "LAPACKE_dpotrf+dpotrs col U", solve_col_u, dup, dup, const, const, spd);
  CHECK(double, "LAPACKE_dpotrf+dpotrs row L", solve_row_l, dup, dup, const, const, spd);
  CHECK(double, "LAPACKE solve row L const A", solve_row_l, const, dup, const, const, spd);
  return check_done();
}
