/* LAPACK's getri (the inverse from getrf's factors) the way C code calls it: getrf, then
 * a workspace query (lwork = -1), then getri with the workspace it asked for -- through
 * Fortran (dgetri_/sgetri_) and LAPACKE (both layouts; its middle level LAPACKE_dgetri_work
 * with the caller's workspace query), with the inverse used afterwards
 * by dgemm, and with active and inactive operands: blas_check.h. */
#include <cblas.h>
#include <lapacke.h>

#include "blas_check.h"

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                    int *info);
extern void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv,
                    int *info);
extern void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
                    const int *lwork, int *info);
extern void sgetri_(const int *n, float *a, const int *lda, const int *ipiv, float *work,
                    const int *lwork, int *info);

enum { N = 4, LD = 5, NRHS = 3 };
static const int n_ = N, ld_ = LD;

/* a well-conditioned matrix: the random entries plus 2 on the diagonal (ld 5) */
static void diag_dominant(double x[4][NBUF]) {
  for (int i = 0; i < N; i++) x[0][i + LD * i] += 2.0;
}
static void diag_dominant_f(float x[4][NBUF]) {
  for (int i = 0; i < N; i++) x[0][i + LD * i] += 2.0f;
}

/* A := A^-1 in place, with the workspace size LAPACK asks for */
static void dinvert(double *a) {
  int ipiv[N], info, lwork = -1;
  double wkopt;
  dgetrf_(&n_, &n_, a, &ld_, ipiv, &info);
  dgetri_(&n_, a, &ld_, ipiv, &wkopt, &lwork, &info);  /* the query */
  lwork = (int)wkopt;
  double *work = malloc(sizeof(double) * (size_t)lwork);
  dgetri_(&n_, a, &ld_, ipiv, work, &lwork, &info);
  free(work);
}
static void inv(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  dinvert(a);
}
/* C := A^-1 B, A inverted in a copy (A itself is left alone) */
static void inv_times(double *a, double *b, double *c, double *s) {
  (void)s;
  double ainv[LD * N];
  for (int k = 0; k < LD * N; k++) ainv[k] = a[k];
  dinvert(ainv);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, NRHS, N, 1.0, ainv, LD, b, LD,
              0.0, c, LD);
}
/* a fixed workspace on the stack, no query; the factors' pivots reused */
static void inv_fixed_work(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  int ipiv[N], info, lwork = 16 * N;
  double work[16 * N];
  dgetrf_(&n_, &n_, a, &ld_, ipiv, &info);
  dgetri_(&n_, a, &ld_, ipiv, work, &lwork, &info);
  for (int i = 0; i < N; i++) b[i] *= a[i + LD * i];  /* the inverse's diagonal */
}
static void sinv(float *a, float *b, float *c, float *s) {
  (void)b; (void)c; (void)s;
  int ipiv[N], info, lwork = -1;
  float wkopt;
  sgetrf_(&n_, &n_, a, &ld_, ipiv, &info);
  sgetri_(&n_, a, &ld_, ipiv, &wkopt, &lwork, &info);
  lwork = (int)wkopt;
  float *work = malloc(sizeof(float) * (size_t)lwork);
  sgetri_(&n_, a, &ld_, ipiv, work, &lwork, &info);
  free(work);
}
static void lapacke_row(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  lapack_int ipiv[N];
  LAPACKE_dgetrf(LAPACK_ROW_MAJOR, N, N, a, LD, ipiv);
  LAPACKE_dgetri(LAPACK_ROW_MAJOR, N, a, LD, ipiv);
}
static void lapacke_col_times(double *a, double *b, double *c, double *s) {
  (void)s;
  lapack_int ipiv[N];
  LAPACKE_dgetrf(LAPACK_COL_MAJOR, N, N, a, LD, ipiv);
  LAPACKE_dgetri(LAPACK_COL_MAJOR, N, a, LD, ipiv);
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, N, NRHS, N, 1.0, a, LD, b, LD, 0.0,
              c, LD);
}
/* LAPACKE's middle level: the workspace query and the workspace are the caller's */
static void lapacke_work_row(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  lapack_int ipiv[N];
  double wkopt;
  LAPACKE_dgetrf_work(LAPACK_ROW_MAJOR, N, N, a, LD, ipiv);
  LAPACKE_dgetri_work(LAPACK_ROW_MAJOR, N, a, LD, ipiv, &wkopt, -1);
  lapack_int lwork = (lapack_int)wkopt;
  double *work = malloc(sizeof(double) * (size_t)lwork);
  LAPACKE_dgetri_work(LAPACK_ROW_MAJOR, N, a, LD, ipiv, work, lwork);
  free(work);
}
static void slapacke_row(float *a, float *b, float *c, float *s) {
  (void)b; (void)c; (void)s;
  lapack_int ipiv[N];
  LAPACKE_sgetrf(LAPACK_ROW_MAJOR, N, N, a, LD, ipiv);
  LAPACKE_sgetri(LAPACK_ROW_MAJOR, N, a, LD, ipiv);
}

PATTERN(double, inv, dup, const, const, const)
PATTERN(double, inv_times, dup, dup, dup, const)
PATTERN(double, inv_times, const, dup, dup, const)
PATTERN(double, inv_times, dup, const, dup, const)
PATTERN(double, inv_fixed_work, dup, dup, const, const)
PATTERN(float, sinv, dup, const, const, const)
PATTERN(double, lapacke_row, dup, const, const, const)
PATTERN(double, lapacke_col_times, dup, dup, dup, const)
PATTERN(double, lapacke_col_times, dup, const, dup, const)
PATTERN(float, slapacke_row, dup, const, const, const)
PATTERN(double, lapacke_work_row, dup, const, const, const)

int main(void) {
  CHECK(double, "dgetrf_+dgetri_ (query)", inv, dup, const, const, const, diag_dominant);
  CHECK(double, "dgetri_ then dgemm", inv_times, dup, dup, dup, const, diag_dominant);
  CHECK(double, "dgetri_ then dgemm const A", inv_times, const, dup, dup, const,
        diag_dominant);
  CHECK(double, "dgetri_ then dgemm const B", inv_times, dup, const, dup, const,
        diag_dominant);
  CHECK(double, "dgetri_ fixed work", inv_fixed_work, dup, dup, const, const, diag_dominant);
  CHECK(float, "sgetrf_+sgetri_ (query)", sinv, dup, const, const, const, diag_dominant_f);
  CHECK(double, "LAPACKE_dgetri row", lapacke_row, dup, const, const, const, diag_dominant);
  CHECK(double, "LAPACKE_dgetri col, gemm", lapacke_col_times, dup, dup, dup, const,
        diag_dominant);
  CHECK(double, "LAPACKE_dgetri col const B", lapacke_col_times, dup, const, dup, const,
        diag_dominant);
  CHECK(float, "LAPACKE_sgetri row", slapacke_row, dup, const, const, const,
        diag_dominant_f);
  CHECK(double, "LAPACKE_dgetri_work row (query)", lapacke_work_row, dup, const, const,
        const, diag_dominant);
  return check_done();
}
