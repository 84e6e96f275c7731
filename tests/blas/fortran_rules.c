/* Every BLAS/LAPACK rule through the Fortran interface (all arguments by reference, as
 * C code calls reference BLAS and LAPACK), double and float, forward and reverse, with
 * active and inactive operands: blas_check.h. */
#include "blas_check.h"

extern double ddot_(const int *n, const double *x, const int *incx, const double *y,
                    const int *incy);
extern float sdot_(const int *n, const float *x, const int *incx, const float *y,
                   const int *incy);
extern double dnrm2_(const int *n, const double *x, const int *incx);
extern void daxpy_(const int *n, const double *a, const double *x, const int *incx, double *y,
                   const int *incy);
extern void saxpy_(const int *n, const float *a, const float *x, const int *incx, float *y,
                   const int *incy);
extern void dscal_(const int *n, const double *a, double *x, const int *incx);
extern void dcopy_(const int *n, const double *x, const int *incx, double *y, const int *incy);
extern void dswap_(const int *n, double *x, const int *incx, double *y, const int *incy);
extern void dgemv_(const char *trans, const int *m, const int *n, const double *alpha,
                   const double *a, const int *lda, const double *x, const int *incx,
                   const double *beta, double *y, const int *incy);
extern void sgemv_(const char *trans, const int *m, const int *n, const float *alpha,
                   const float *a, const int *lda, const float *x, const int *incx,
                   const float *beta, float *y, const int *incy);
extern void dger_(const int *m, const int *n, const double *alpha, const double *x,
                  const int *incx, const double *y, const int *incy, double *a, const int *lda);
extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc);
extern void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const float *alpha, const float *a, const int *lda, const float *b,
                   const int *ldb, const float *beta, float *c, const int *ldc);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info);

extern double dasum_(const int *n, const double *x, const int *incx);
extern void dsymv_(const char *uplo, const int *n, const double *alpha, const double *a,
                   const int *lda, const double *x, const int *incx, const double *beta,
                   double *y, const int *incy);
extern void dsymm_(const char *side, const char *uplo, const int *m, const int *n,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc);
extern void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag,
                   const int *m, const int *n, const double *alpha, const double *a,
                   const int *lda, double *b, const int *ldb);
extern void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n,
                   const double *a, const int *lda, double *x, const int *incx);

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                    int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
                    const int *lda, const int *ipiv, double *b, const int *ldb, int *info);

extern void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag,
                   const int *m, const int *n, const double *alpha, const double *a,
                   const int *lda, double *b, const int *ldb);
extern void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *beta,
                   double *c, const int *ldc);
extern void dtrmv_(const char *uplo, const char *trans, const char *diag, const int *n,
                   const double *a, const int *lda, double *x, const int *incx);

static const int M = 3, N = 4, K = 5, ONE = 1, TWO = 2, LDM = 4, LDK = 6, LDN = 5;

static void fdot(double *a, double *b, double *c, double *s) {
  (void)s;
  c[0] = ddot_(&N, a, &TWO, b, &ONE) * dnrm2_(&N, b, &ONE);
}
static void fsdot(float *a, float *b, float *c, float *s) {
  (void)s;
  c[0] = sdot_(&N, a, &ONE, b, &TWO);
}
static void faxpy_scal(double *a, double *b, double *c, double *s) {
  (void)c;
  daxpy_(&N, &s[0], a, &ONE, b, &TWO);
  dscal_(&N, &s[1], a, &TWO);
}
static void fsaxpy(float *a, float *b, float *c, float *s) {
  (void)c;
  saxpy_(&N, &s[0], a, &TWO, b, &ONE);
}
static void fcopy_swap(double *a, double *b, double *c, double *s) {
  (void)s;
  dcopy_(&N, a, &TWO, c, &ONE);
  dswap_(&N, a, &ONE, b, &TWO);
}
static void fgemv_n(double *a, double *b, double *c, double *s) {
  dgemv_("N", &M, &N, &s[0], a, &LDM, b, &ONE, &s[1], c, &TWO);
}
static void fgemv_t(double *a, double *b, double *c, double *s) {
  dgemv_("t", &M, &N, &s[0], a, &LDM, b, &TWO, &s[1], c, &ONE);
}
static void fsgemv_t(float *a, float *b, float *c, float *s) {
  sgemv_("T", &M, &N, &s[0], a, &LDM, b, &ONE, &s[1], c, &ONE);
}
static void fger(double *a, double *b, double *c, double *s) {
  dger_(&M, &N, &s[0], a, &ONE, b, &TWO, c, &LDM);
}
static void fgemm_nn(double *a, double *b, double *c, double *s) {
  dgemm_("N", "N", &M, &N, &K, &s[0], a, &LDM, b, &LDK, &s[1], c, &LDM);
}
static void fgemm_tt(double *a, double *b, double *c, double *s) {
  dgemm_("T", "T", &M, &N, &K, &s[0], a, &LDK, b, &LDN, &s[1], c, &LDM);
}
static void fsgemm_tn(float *a, float *b, float *c, float *s) {
  sgemm_("T", "N", &M, &N, &K, &s[0], a, &LDK, b, &LDK, &s[1], c, &LDM);
}

/* LAPACK: a symmetric positive definite matrix in a (n = 4, lda = 5) */
static void spd(double x[4][NBUF]) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j <= i; j++) {
      double v = (i == j ? 3.0 : 0.0) + 0.5 * x[0][i + 5 * j];
      x[0][i + 5 * j] = v;
      x[0][j + 5 * i] = v;
    }
}
static void spd_f(float x[4][NBUF]) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j <= i; j++) {
      float v = (i == j ? 3.0f : 0.0f) + 0.5f * x[0][i + 5 * j];
      x[0][i + 5 * j] = v;
      x[0][j + 5 * i] = v;
    }
}
/* a Cholesky factor: a positive diagonal (potrs alone reads only one triangle) */
static void factor(double x[4][NBUF]) {
  for (int i = 0; i < 4; i++) x[0][i + 5 * i] = 2.0 + x[0][i + 5 * i];
}
static void fpotrf_l(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  int info;
  dpotrf_("L", &N, a, &LDN, &info);
}
static void fpotrf_u(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  int info;
  dpotrf_("U", &N, a, &LDN, &info);
}
static void fspotrf(float *a, float *b, float *c, float *s) {
  (void)b; (void)c; (void)s;
  int info;
  spotrf_("L", &N, a, &LDN, &info);
}
static void fpotrs_l(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  int info;
  dpotrs_("L", &N, &M, a, &LDN, b, &LDN, &info);
}
static void fpotrs_u(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  int info;
  dpotrs_("U", &N, &M, a, &LDN, b, &LDN, &info);
}
static void fsolve(double *a, double *b, double *c, double *s) { /* A x = b, A SPD */
  (void)c; (void)s;
  int info;
  dpotrf_("U", &N, a, &LDN, &info);
  dpotrs_("U", &N, &TWO, a, &LDN, b, &LDN, &info);
}

static void fasum_symv(double *a, double *b, double *c, double *s) {
  c[10] = dasum_(&N, b, &TWO);
  dsymv_("U", &N, &s[0], a, &LDN, b, &TWO, &s[1], c, &ONE);
}
static void fsymm(double *a, double *b, double *c, double *s) {
  dsymm_("R", "L", &M, &N, &s[0], a, &LDN, b, &LDM, &s[1], c, &LDM);
}
static void ftrsm(double *a, double *b, double *c, double *s) {
  (void)c;
  dtrsm_("L", "L", "T", "N", &M, &N, &s[0], a, &LDN, b, &LDM);
  dtrsv_("U", "N", "U", &N, a, &LDN, b + 20, &TWO);
}
static void boost(double x[4][NBUF]) {
  for (int i = 0; i < 5; i++) x[0][i * 6] += 3;
}

static void fgetrf(double *a, double *b, double *c, double *s) {
  (void)b; (void)c; (void)s;
  int ipiv[4], info;
  dgetrf_(&N, &N, a, &LDN, ipiv, &info);
}
static void fgetrs_n(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  int ipiv[4], info;
  dgetrf_(&N, &N, a, &LDN, ipiv, &info);
  dgetrs_("N", &N, &M, a, &LDN, ipiv, b, &LDN, &info);
}
static void fgetrs_t(double *a, double *b, double *c, double *s) {
  (void)c; (void)s;
  int ipiv[4], info;
  dgetrf_(&N, &N, a, &LDN, ipiv, &info);
  dgetrs_("T", &N, &TWO, a, &LDN, ipiv, b, &LDN, &info);
}

static void ftrmm_syrk(double *a, double *b, double *c, double *s) {
  dtrmm_("R", "U", "N", "U", &M, &N, &s[0], a, &LDN, b, &LDM);
  dsyrk_("L", "T", &N, &M, &s[1], b, &LDM, &s[2], c, &LDN);
  dtrmv_("U", "T", "N", &N, a, &LDN, c + 40, &TWO);
}

PATTERN(double, ftrmm_syrk, dup, dup, dup, dup)
PATTERN(double, ftrmm_syrk, const, dup, dup, const)
PATTERN(double, fgetrf, dup, const, const, const)
PATTERN(double, fgetrs_n, dup, dup, const, const)
PATTERN(double, fgetrs_n, const, dup, const, const)
PATTERN(double, fgetrs_t, dup, dup, const, const)
PATTERN(double, fasum_symv, dup, dup, dup, dup)
PATTERN(double, fsymm, dup, dup, dup, dup)
PATTERN(double, fsymm, const, dup, dup, const)
PATTERN(double, ftrsm, dup, dup, const, dup)
PATTERN(double, ftrsm, const, dup, const, dup)
PATTERN(double, fdot, dup, dup, dup, const)
PATTERN(double, fdot, dup, const, dup, const)
PATTERN(float, fsdot, dup, dup, dup, const)
PATTERN(double, faxpy_scal, dup, dup, const, dup)
PATTERN(double, faxpy_scal, const, dup, const, const)
PATTERN(float, fsaxpy, dup, dup, const, dup)
PATTERN(double, fcopy_swap, dup, dup, dup, const)
PATTERN(double, fgemv_n, dup, dup, dup, dup)
PATTERN(double, fgemv_t, const, dup, dup, const)
PATTERN(float, fsgemv_t, dup, dup, dup, dup)
PATTERN(double, fger, dup, dup, dup, dup)
PATTERN(double, fger, dup, const, dup, const)
PATTERN(double, fgemm_nn, dup, dup, dup, dup)
PATTERN(double, fgemm_nn, dup, const, dup, const)
PATTERN(double, fgemm_tt, const, dup, dup, dup)
PATTERN(float, fsgemm_tn, dup, dup, dup, dup)
PATTERN(double, fpotrf_l, dup, const, const, const)
PATTERN(double, fpotrf_u, dup, const, const, const)
PATTERN(float, fspotrf, dup, const, const, const)
PATTERN(double, fpotrs_l, dup, dup, const, const)
PATTERN(double, fpotrs_l, const, dup, const, const)
PATTERN(double, fpotrs_u, dup, dup, const, const)
PATTERN(double, fsolve, dup, dup, const, const)

int main(void) {
  CHECK(double, "ddot_*dnrm2_", fdot, dup, dup, dup, const, NULL);
  CHECK(double, "ddot_ const y", fdot, dup, const, dup, const, NULL);
  CHECK(float, "sdot_", fsdot, dup, dup, dup, const, NULL);
  CHECK(double, "daxpy_+dscal_", faxpy_scal, dup, dup, const, dup, NULL);
  CHECK(double, "daxpy_+dscal_ const x, alpha", faxpy_scal, const, dup, const, const, NULL);
  CHECK(float, "saxpy_", fsaxpy, dup, dup, const, dup, NULL);
  CHECK(double, "dcopy_+dswap_", fcopy_swap, dup, dup, dup, const, NULL);
  CHECK(double, "dgemv_ N", fgemv_n, dup, dup, dup, dup, NULL);
  CHECK(double, "dgemv_ t const A, alpha", fgemv_t, const, dup, dup, const, NULL);
  CHECK(float, "sgemv_ T", fsgemv_t, dup, dup, dup, dup, NULL);
  CHECK(double, "dger_", fger, dup, dup, dup, dup, NULL);
  CHECK(double, "dger_ const y, alpha", fger, dup, const, dup, const, NULL);
  CHECK(double, "dgemm_ NN", fgemm_nn, dup, dup, dup, dup, NULL);
  CHECK(double, "dgemm_ NN const B, s", fgemm_nn, dup, const, dup, const, NULL);
  CHECK(double, "dgemm_ TT const A", fgemm_tt, const, dup, dup, dup, NULL);
  CHECK(float, "sgemm_ TN", fsgemm_tn, dup, dup, dup, dup, NULL);
  CHECK(double, "dpotrf_ L", fpotrf_l, dup, const, const, const, spd);
  CHECK(double, "dpotrf_ U", fpotrf_u, dup, const, const, const, spd);
  CHECK(float, "spotrf_ L", fspotrf, dup, const, const, const, spd_f);
  CHECK(double, "dpotrs_ L", fpotrs_l, dup, dup, const, const, factor);
  CHECK(double, "dpotrs_ L const factor", fpotrs_l, const, dup, const, const, factor);
  CHECK(double, "dpotrs_ U", fpotrs_u, dup, dup, const, const, factor);
  CHECK(double, "dpotrf_+dpotrs_ U (solve)", fsolve, dup, dup, const, const, spd);
  CHECK(double, "dasum_+dsymv_ U", fasum_symv, dup, dup, dup, dup, NULL);
  CHECK(double, "dsymm_ R L", fsymm, dup, dup, dup, dup, NULL);
  CHECK(double, "dsymm_ R L const A, s", fsymm, const, dup, dup, const, NULL);
  CHECK(double, "dtrsm_ L L T + dtrsv_ U N unit", ftrsm, dup, dup, const, dup, boost);
  CHECK(double, "dtrsm_+dtrsv_ const A", ftrsm, const, dup, const, dup, boost);
  CHECK(double, "dtrmm_ R U N unit+dsyrk_ L T+dtrmv_", ftrmm_syrk, dup, dup, dup, dup, NULL);
  CHECK(double, "dtrmm_+dsyrk_+dtrmv_ const A, s", ftrmm_syrk, const, dup, dup, const, NULL);
  CHECK(double, "dgetrf_", fgetrf, dup, const, const, const, NULL);
  CHECK(double, "dgetrf_+dgetrs_ N", fgetrs_n, dup, dup, const, const, NULL);
  CHECK(double, "dgetrf_+dgetrs_ N const A", fgetrs_n, const, dup, const, const, NULL);
  CHECK(double, "dgetrf_+dgetrs_ T", fgetrs_t, dup, dup, const, const, NULL);
  return check_done();
}
