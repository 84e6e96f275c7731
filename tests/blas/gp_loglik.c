/* The negative log marginal likelihood of a Gaussian process, written the way GP codes
 * in C do it with LAPACK's LU: the covariance K = sf2 exp(-(xi - xj)^2 / (2 ell^2)) +
 * sn2 I is factored by getrf (log|K| from U's diagonal), inverted in place by getri
 * (after a workspace query, lwork = -1), and alpha = K^-1 y comes from gemv:
 *
 *     nll = 1/2 y^T K^-1 y + 1/2 log|K| + n/2 log(2 pi)
 *
 * Twice: through the Fortran interface (dgetrf_/dgetri_/dgemv_, column-major) and
 * through LAPACKE/CBLAS (row-major). The gradient with respect to the log
 * hyperparameters and the data y (reverse), a forward directional derivative, central
 * differences, and the textbook formula d nll / d log sn2 = sn2/2 (tr K^-1 - alpha^T
 * alpha) must agree. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
extern void __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                    int *info);
extern void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
                    const int *lwork, int *info);
extern void dgemv_(const char *trans, const int *m, const int *n, const double *alpha,
                   const double *a, const int *lda, const double *x, const int *incx,
                   const double *beta, double *y, const int *incy);

enum { NOBS = 7 };

static double kernel(const double *theta, double xi, double xj) {
  double ell = exp(theta[0]), sf2 = exp(theta[1]);
  double d = (xi - xj) / ell;
  return sf2 * exp(-0.5 * d * d);
}

/* theta = (log ell, log sf2, log sn2); K is column-major, ld n */
double nll_fortran(const double *theta, const double *x, const double *y, int n) {
  double *K = malloc(sizeof(double) * (size_t)(n * n));
  double *alpha = malloc(sizeof(double) * (size_t)n);
  int *ipiv = malloc(sizeof(int) * (size_t)n);
  double sn2 = exp(theta[2]);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) K[i + n * j] = kernel(theta, x[i], x[j]) + (i == j ? sn2 : 0);
  int info, lwork = -1, one = 1;
  dgetrf_(&n, &n, K, &n, ipiv, &info);
  if (info != 0) { fprintf(stderr, "dgetrf_: info %d\n", info); abort(); }
  double logdet = 0;
  for (int i = 0; i < n; i++) logdet += log(fabs(K[i + n * i]));
  double wkopt;
  dgetri_(&n, K, &n, ipiv, &wkopt, &lwork, &info);
  lwork = (int)wkopt;
  double *work = malloc(sizeof(double) * (size_t)lwork);
  dgetri_(&n, K, &n, ipiv, work, &lwork, &info);
  const double d1 = 1.0, d0 = 0.0;
  dgemv_("N", &n, &n, &d1, K, &n, y, &one, &d0, alpha, &one);
  double quad = 0;
  for (int i = 0; i < n; i++) quad += y[i] * alpha[i];
  free(work); free(ipiv); free(alpha); free(K);
  return 0.5 * quad + 0.5 * logdet + 0.5 * n * log(2 * M_PI);
}

/* the same through LAPACKE and CBLAS, K row-major with a padded row (ld n + 1) */
double nll_lapacke(const double *theta, const double *x, const double *y, int n) {
  int ld = n + 1;
  double *K = malloc(sizeof(double) * (size_t)(n * ld));
  double *alpha = malloc(sizeof(double) * (size_t)n);
  lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      K[i * ld + j] = kernel(theta, x[i], x[j]) + (i == j ? exp(theta[2]) : 0);
  if (LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, K, ld, ipiv) != 0) abort();
  double logdet = 0;
  for (int i = 0; i < n; i++) logdet += log(fabs(K[i * ld + i]));
  LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, K, ld, ipiv);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0, K, ld, y, 1, 0.0, alpha, 1);
  double quad = cblas_ddot(n, y, 1, alpha, 1);
  free(ipiv); free(alpha); free(K);
  return 0.5 * quad + 0.5 * logdet + 0.5 * n * log(2 * M_PI);
}

/* the textbook derivative: d nll / d log sn2 = sn2/2 (tr K^-1 - alpha^T alpha), with
 * K^-1 [y I] from one dgesv */
static double dlog_sn2(const double *theta, const double *x, const double *y) {
  double K[NOBS * NOBS], B[NOBS * (NOBS + 1)], sn2 = exp(theta[2]);
  lapack_int ipiv[NOBS];
  for (int i = 0; i < NOBS; i++)
    for (int j = 0; j < NOBS; j++) {
      K[i * NOBS + j] = kernel(theta, x[i], x[j]) + (i == j ? sn2 : 0);
      B[i * (NOBS + 1) + j] = i == j;
    }
  for (int i = 0; i < NOBS; i++) B[i * (NOBS + 1) + NOBS] = y[i];
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, NOBS, NOBS + 1, K, NOBS, ipiv, B, NOBS + 1)) abort();
  double tr = 0, aa = 0;
  for (int i = 0; i < NOBS; i++) {
    tr += B[i * (NOBS + 1) + i];
    aa += B[i * (NOBS + 1) + NOBS] * B[i * (NOBS + 1) + NOBS];
  }
  return 0.5 * sn2 * (tr - aa);
}

typedef double (*nll_fn)(const double *, const double *, const double *, int);

static int failures = 0;
static void expect(const char *what, double got, double want, double tol) {
  int bad = !(fabs(got - want) <= tol * (1 + fabs(want)));
  printf("%-40s %.12g (expected %.12g)%s\n", what, got, want, bad ? "  MISMATCH" : "");
  failures += bad;
}

static void check(const char *name, nll_fn f, double (*grad)(double *, double *, double *,
                                                                double *, double *),
                  double (*tangent)(double *, double *, double *, double *, double *)) {
  double theta[3] = {log(0.8), log(1.3), log(0.05)}, x[NOBS], y[NOBS];
  for (int i = 0; i < NOBS; i++) {
    x[i] = -1.5 + 0.5 * i + 0.05 * sin(7.0 * i);
    y[i] = sin(2.0 * x[i]) + 0.1 * cos(5.0 * i);
  }
  double dtheta[3] = {0}, dy[NOBS] = {0};
  grad(theta, dtheta, x, y, dy);
  char what[96];
  const double h = 1e-5;
  for (int k = 0; k < 3; k++) {  /* each hyperparameter by central differences */
    double tp[3] = {theta[0], theta[1], theta[2]}, tm[3] = {theta[0], theta[1], theta[2]};
    tp[k] += h;
    tm[k] -= h;
    snprintf(what, sizeof what, "%s d/dtheta[%d]", name, k);
    expect(what, dtheta[k], (f(tp, x, y, NOBS) - f(tm, x, y, NOBS)) / (2 * h), 1e-6);
  }
  snprintf(what, sizeof what, "%s d/dlog sn2 (formula)", name);
  expect(what, dtheta[2], dlog_sn2(theta, x, y), 1e-8);
  /* a direction in (theta, y): reverse, forward and central differences agree */
  double vt[3] = {0.3, -0.7, 0.2}, vy[NOBS], rev = 0;
  for (int k = 0; k < 3; k++) rev += dtheta[k] * vt[k];
  for (int i = 0; i < NOBS; i++) {
    vy[i] = cos(1.0 + i);
    rev += dy[i] * vy[i];
  }
  double fwd = tangent(theta, vt, x, y, vy);
  double tp[3], tm[3], yp[NOBS], ym[NOBS];
  for (int k = 0; k < 3; k++) { tp[k] = theta[k] + h * vt[k]; tm[k] = theta[k] - h * vt[k]; }
  for (int i = 0; i < NOBS; i++) { yp[i] = y[i] + h * vy[i]; ym[i] = y[i] - h * vy[i]; }
  double fd = (f(tp, x, yp, NOBS) - f(tm, x, ym, NOBS)) / (2 * h);
  snprintf(what, sizeof what, "%s forward", name);
  expect(what, fwd, fd, 1e-6);
  snprintf(what, sizeof what, "%s reverse . v", name);
  expect(what, rev, fwd, 1e-9);
  if (fabs(fd) < 1e-3) failures++;  /* not a vacuous direction */
}

#define DERIVATIVES(F)                                                                  \
  static double F##_grad(double *t, double *dt, double *x, double *y, double *dy) {     \
    __enzyme_autodiff((void *)F, enzyme_dup, t, dt, enzyme_const, x, enzyme_dup, y, dy, \
                      enzyme_const, NOBS);                                              \
    return 0;                                                                           \
  }                                                                                     \
  static double F##_tangent(double *t, double *vt, double *x, double *y, double *vy) {  \
    return __enzyme_fwddiff((void *)F, enzyme_dup, t, vt, enzyme_const, x, enzyme_dup,  \
                            y, vy, enzyme_const, NOBS);                                 \
  }
DERIVATIVES(nll_fortran)
DERIVATIVES(nll_lapacke)

int main(void) {
  check("dgetrf_/dgetri_", nll_fortran, nll_fortran_grad, nll_fortran_tangent);
  check("LAPACKE row-major", nll_lapacke, nll_lapacke_grad, nll_lapacke_tangent);
  if (failures) {
    printf("%d mismatches\n", failures);
    fflush(stdout);
    abort();
  }
  puts("OK");
  return 0;
}
