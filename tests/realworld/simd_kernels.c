// Kernels that compilers vectorize: a log-sum-exp (a max and a sum reduction), a
// geometric mean (a product reduction), a sparse gather-dot (x[idx[i]]), a permutation
// scatter (y[perm[i]] = ...) and an infinity norm. Built as -O3 -march=native -ffast-math
// they become llvm.vector.reduce.{fmax,fadd,fmul}, masked gathers and scatters. The
// gradients are checked against central differences and forward mode.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const, enzyme_dup;

enum { N = 37 };

static double log_sum_exp(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++) m = fmax(m, x[i]);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}

static double geometric_mean(const double *x, int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++) p *= 1.0 + 0.1 * x[i] * x[i];
  return pow(p, 1.0 / n);
}

static double gather_dot(const double *x, const int *idx, const double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += w[i] * x[idx[i]];
  return s;
}

static void permute_scale(double *restrict y, const double *restrict x, const int *perm,
                          int n) {
  for (int i = 0; i < n; i++) y[perm[i]] = 2.0 * x[i] + 1.0;
}

static double inf_norm(const double *x, int n) {
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

double objective(const double *x, const int *idx, const int *perm, const double *w, int n) {
  double *y = malloc(n * sizeof(double));
  permute_scale(y, x, perm, n);
  double f = log_sum_exp(x, n) + geometric_mean(x, n) + gather_dot(y, idx, w, n)
             + 0.5 * inf_norm(y, n);
  free(y);
  return f;
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    abort();
  }
}

int main(void) {
  double x[N], dx[N] = {0}, w[N];
  int idx[N], perm[N];
  for (int i = 0; i < N; i++) {
    x[i] = sin(1.7 * i) + 0.01 * i;
    w[i] = cos(0.3 * i);
    idx[i] = (i * 7 + 3) % N;   // every element once, in a scrambled order
    perm[i] = (i * 11 + 5) % N;
  }
  __enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_const, idx, enzyme_const,
                    perm, enzyme_const, w, enzyme_const, N);
  for (int k = 0; k < N; k += 3) {
    double h = 1e-6, saved = x[k];
    x[k] = saved + h;
    double fp = objective(x, idx, perm, w, N);
    x[k] = saved - h;
    double fm = objective(x, idx, perm, w, N);
    x[k] = saved;
    check("reverse vs central difference", dx[k], (fp - fm) / (2 * h), 1e-6);
    double t[N] = {0};
    t[k] = 1.0;
    double tangent = __enzyme_fwddiff((void *)objective, enzyme_dup, x, t, enzyme_const, idx,
                                      enzyme_const, perm, enzyme_const, w, enzyme_const, N);
    check("forward vs reverse", tangent, dx[k], 1e-9);
  }
  printf("OK\n");
  return 0;
}
