/* LAPACK's LU routines beyond the square getrf/getrs of fortran_rules.c: getrf of
 * rectangular matrices (m > n: L is m x n; m < n: U is m x n), through Fortran and
 * LAPACKE (row- and column-major), double and float; gesv (factor and solve in one call)
 * through Fortran and LAPACKE, with active and inactive operands: blas_check.h. */
#include <lapacke.h>

#include "blas_check.h"

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                    int *info);
extern void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv,
                    int *info);
extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                   double *b, const int *ldb, int *info);

static const int FIVE = 5, THREE = 3, FOUR = 4, SIX = 6;

static void getrf_tall(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  int ipiv[3], info;
  dgetrf_(&FIVE, &THREE, a, &SIX, ipiv, &info);  /* 5 x 3, ld 6 */
}
static void getrf_wide(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  int ipiv[3], info;
  dgetrf_(&THREE, &FIVE, a, &FOUR, ipiv, &info);  /* 3 x 5, ld 4 */
}
static void sgetrf_tall(float *a, float *b, float *c, float *s) {
  (void)b; (void)c; (void)s;
  int ipiv[3], info;
  sgetrf_(&FIVE, &THREE, a, &FIVE, ipiv, &info);
}
/* a tall factorization whose factors are used afterwards: L's lower part scales b */
static void getrf_then_use(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  int ipiv[4], info;
  dgetrf_(&SIX, &FOUR, a, &SIX, ipiv, &info);
  for (int i = 0; i < 6; i++) b[i] *= a[i] + a[6 + 3];
}
static void lapacke_tall_row(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  int ipiv[3];
  LAPACKE_dgetrf(LAPACK_ROW_MAJOR, 5, 3, a, 4, ipiv);  /* row-major 5 x 3, ld 4 */
}
static void lapacke_wide_row(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  int ipiv[3];
  LAPACKE_dgetrf(LAPACK_ROW_MAJOR, 3, 5, a, 6, ipiv);
}
static void lapacke_wide_col(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  int ipiv[2];
  LAPACKE_dgetrf(LAPACK_COL_MAJOR, 2, 5, a, 3, ipiv);
}
static void gesv(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  int ipiv[4], info;
  dgesv_(&FOUR, &THREE, a, &FIVE, ipiv, b, &FIVE, &info);
}
static void lapacke_gesv_row(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  int ipiv[4];
  LAPACKE_dgesv(LAPACK_ROW_MAJOR, 4, 2, a, 5, ipiv, b, 3);
}

PATTERN(double, getrf_tall, dup, const, const, const)
PATTERN(double, getrf_wide, dup, const, const, const)
PATTERN(float, sgetrf_tall, dup, const, const, const)
PATTERN(double, getrf_then_use, dup, dup, const, const)
PATTERN(double, lapacke_tall_row, dup, const, const, const)
PATTERN(double, lapacke_wide_row, dup, const, const, const)
PATTERN(double, lapacke_wide_col, dup, const, const, const)
PATTERN(double, gesv, dup, dup, const, const)
PATTERN(double, gesv, const, dup, const, const)
PATTERN(double, gesv, dup, const, const, const)
PATTERN(double, lapacke_gesv_row, dup, dup, const, const)

int main(void) {
  CHECK(double, "dgetrf_ 5x3", getrf_tall, dup, const, const, const, NULL);
  CHECK(double, "dgetrf_ 3x5", getrf_wide, dup, const, const, const, NULL);
  CHECK(float, "sgetrf_ 5x3", sgetrf_tall, dup, const, const, const, NULL);
  CHECK(double, "dgetrf_ 6x4, factors used", getrf_then_use, dup, dup, const, const, NULL);
  CHECK(double, "LAPACKE_dgetrf row 5x3", lapacke_tall_row, dup, const, const, const, NULL);
  CHECK(double, "LAPACKE_dgetrf row 3x5", lapacke_wide_row, dup, const, const, const, NULL);
  CHECK(double, "LAPACKE_dgetrf col 2x5", lapacke_wide_col, dup, const, const, const, NULL);
  CHECK(double, "dgesv_", gesv, dup, dup, const, const, NULL);
  CHECK(double, "dgesv_ const A", gesv, const, dup, const, const, NULL);
  CHECK(double, "dgesv_ const B", gesv, dup, const, const, const, NULL);
  CHECK(double, "LAPACKE_dgesv row", lapacke_gesv_row, dup, dup, const, const, NULL);
  return check_done();
}
