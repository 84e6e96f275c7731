/* Gauss-Newton for y ~ p0 exp(p1 t) + p2, written the way numerical C code calls BLAS
 * and LAPACK: the normal equations J^T J dp = -J^T r formed with dgemm and solved with
 * dpotrf/dpotrs, a fixed number of steps. The loss after the fit is differentiated with
 * respect to the data y end to end (reverse and forward), and checked against central
 * finite differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
extern void __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);

extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info);

enum { NP = 3, NOBS = 12, STEPS = 6 };

static void residual(const double *p, const double *t, const double *y, double *r,
                     double *J) {
  for (int i = 0; i < NOBS; i++) {
    double e = exp(p[1] * t[i]);
    r[i] = p[0] * e + p[2] - y[i];
    J[i + NOBS * 0] = e; /* column-major NOBS x NP */
    J[i + NOBS * 1] = p[0] * t[i] * e;
    J[i + NOBS * 2] = 1.0;
  }
}

/* fit p starting from p = (1.5, 0.2, 0.3); return the final squared residual */
double fit(const double *t, const double *y, double *p) {
  double r[NOBS], J[NOBS * NP], JTJ[NP * NP], g[NP];
  const int np = NP, nobs = NOBS, one = 1;
  const double d1 = 1.0, d0 = 0.0, m1 = -1.0;
  int info;
  p[0] = 1.5; p[1] = 0.2; p[2] = 0.3;
  for (int it = 0; it < STEPS; it++) {
    residual(p, t, y, r, J);
    dgemm_("T", "N", &np, &np, &nobs, &d1, J, &nobs, J, &nobs, &d0, JTJ, &np);
    dgemm_("T", "N", &np, &one, &nobs, &m1, J, &nobs, r, &nobs, &d0, g, &np);
    dpotrf_("L", &np, JTJ, &np, &info);
    dpotrs_("L", &np, &one, JTJ, &np, g, &np, &info);
    for (int k = 0; k < NP; k++) p[k] += g[k];
  }
  residual(p, t, y, r, J);
  double loss = 0;
  for (int i = 0; i < NOBS; i++) loss += r[i] * r[i];
  return loss + p[0] * p[1]; /* a function of the fitted parameters, too */
}

int main(void) {
  double t[NOBS], y[NOBS], dy[NOBS] = {0}, p[NP], dp[NP] = {0}, v[NOBS];
  for (int i = 0; i < NOBS; i++) {
    t[i] = 0.25 * i;
    y[i] = 2.0 * exp(0.3 * t[i]) + 0.5 + 0.05 * sin(3.0 * i);
    v[i] = cos(1.0 + i);
  }
  double f0 = fit(t, y, p);
  printf("fit: p = %.6f %.6f %.6f loss %.6g\n", p[0], p[1], p[2], f0);
  if (fabs(p[0] - 1.8441) > 1e-3 || fabs(p[1] - 0.3180) > 1e-3 || fabs(p[2] - 0.6616) > 1e-3) {
    puts("Gauss-Newton did not converge");
    fflush(stdout);
    abort();
  }
  __enzyme_autodiff((void *)fit, enzyme_const, t, enzyme_dup, y, dy, enzyme_dup, p, dp);
  double rev = 0;
  for (int i = 0; i < NOBS; i++) rev += dy[i] * v[i];
  double fwd = __enzyme_fwddiff((void *)fit, enzyme_const, t, enzyme_dup, y, v,
                                enzyme_dup, p, dp);
  double yp[NOBS], ym[NOBS], h = 1e-6;
  for (int i = 0; i < NOBS; i++) {
    yp[i] = y[i] + h * v[i];
    ym[i] = y[i] - h * v[i];
  }
  double fd = (fit(t, yp, p) - fit(t, ym, p)) / (2 * h);
  printf("d loss / dy . v: reverse %.12g forward %.12g fd %.12g\n", rev, fwd, fd);
  if (fabs(rev - fd) > 1e-6 * (1 + fabs(fd)) || fabs(fwd - fd) > 1e-6 * (1 + fabs(fd)) ||
      fabs(fd) < 1e-6) {
    puts("MISMATCH");
    fflush(stdout);
    abort();
  }
  puts("OK");
  return 0;
}
