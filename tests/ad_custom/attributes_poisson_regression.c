/* Poisson regression with a robust penalty, annotated with Enzyme's attributes:
 *   __attribute__((enzyme_inactive))        a trace routine of a library (declared only)
 *                                           and the global that keeps the last loss;
 *   __attribute__((enzyme_inactive_noblock)) a static statistics helper;
 *   __attribute__((enzyme_function_like("log1p")))  a log1p wrapper around the library;
 *   enzyme_nofree (spelled as the annotation, see below) on the library's dot product,
 *   which has a custom gradient.
 * irgrad cc predefines these three; with plain clang
 * (clang-22 | irgrad opt) they are the annotations defined below, which is also how
 * enzyme_nofree is always written (it is a marker's name too, so never a macro).
 * Checked in reverse and forward mode against central finite differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef enzyme_inactive /* plain clang: the annotations irgrad reads */
#define enzyme_inactive annotate("enzyme_inactive")
#define enzyme_inactive_noblock annotate("enzyme_inactive_noblock")
#define enzyme_function_like(name) annotate("enzyme_function_like=" name)
#endif

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((enzyme_inactive)) void lib_trace(const char *tag, double value);
double lib_log1p(double x);
__attribute__((annotate("enzyme_nofree"))) double lib_dot(const double *a, const double *b, int n);

__attribute__((enzyme_inactive)) double last_loss;
static double stats_sum;
static int stats_count;

__attribute__((enzyme_inactive_noblock)) static void record(double v) {
  stats_sum += v;
  stats_count++;
}

__attribute__((enzyme_function_like("log1p"))) double robust_log1p(double x) {
  return lib_log1p(x);
}

/* the library's dot product: a custom gradient (its tape is not needed). The data rows
   are inactive (enzyme_const): irgrad passes a null shadow for them, so the custom
   functions test their shadows before using them. */
typedef struct { void *tape; double value; } DotAug;
DotAug lib_dot_aug(const double *a, double *da, const double *b, double *db, int n) {
  DotAug r = {NULL, lib_dot(a, b, n)};
  return r;
}
void lib_dot_rev(const double *a, double *da, const double *b, double *db, int n,
                 double d_result, void *tape) {
  for (int i = 0; i < n; i++) {
    if (da) da[i] += d_result * b[i];
    if (db) db[i] += d_result * a[i];
  }
}
typedef struct { double value, tangent; } Dual;
Dual lib_dot_fwd(const double *a, const double *da, const double *b, const double *db, int n) {
  Dual d = {lib_dot(a, b, n), (da ? lib_dot(da, b, n) : 0.0) + (db ? lib_dot(a, db, n) : 0.0)};
  return d;
}
void *__enzyme_register_gradient_lib_dot[] = {(void *)lib_dot, (void *)lib_dot_aug,
                                              (void *)lib_dot_rev};
void *__enzyme_register_derivative_lib_dot[] = {(void *)lib_dot, (void *)lib_dot_fwd};

enum { P = 4, M = 15 };

double poisson_loss(const double *w, const double *X, const double *y, int m, int p) {
  double loss = 0.0;
  for (int i = 0; i < m; i++) {
    double eta = lib_dot(&X[i * p], w, p);
    double term = exp(eta) - y[i] * eta;
    record(term);
    loss += term;
  }
  for (int j = 0; j < p; j++) loss += 0.5 * robust_log1p(w[j] * w[j]);
  lib_trace("loss", loss);
  last_loss = loss;
  return loss;
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "MISMATCH %s: got %.12g, want %.12g\n", what, got, want);
    abort();
  }
}

int main(void) {
  double X[M * P], y[M], w[P] = {0.2, -0.1, 0.3, 0.05}, dw[P] = {0}, v[P];
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < P; j++) X[i * P + j] = sin(0.37 * (i + 1) * (j + 1));
    y[i] = (double)((i * 7) % 5);
  }
  __enzyme_autodiff((void *)poisson_loss, enzyme_dup, w, dw, enzyme_const, X, enzyme_const, y,
                    enzyme_const, M, enzyme_const, P);
  const double h = 1e-6;
  double dot = 0.0;
  for (int j = 0; j < P; j++) {
    double wp[P], wm[P];
    memcpy(wp, w, sizeof wp);
    memcpy(wm, w, sizeof wm);
    wp[j] += h;
    wm[j] -= h;
    double want = (poisson_loss(wp, X, y, M, P) - poisson_loss(wm, X, y, M, P)) / (2 * h);
    check("d loss / dw (reverse)", dw[j], want, 1e-6);
    v[j] = 1.0 - 0.3 * j;
    dot += dw[j] * v[j];
  }
  double tangent = __enzyme_fwddiff((void *)poisson_loss, enzyme_dup, w, v, enzyme_const, X,
                                    enzyme_const, y, enzyme_const, M, enzyme_const, P);
  check("forward vs reverse", tangent, dot, 1e-10);
  if (last_loss != poisson_loss(w, X, y, M, P) || stats_count < 4 * M) {
    fprintf(stderr, "the primal side effects are missing\n");
    abort();
  }
  printf("OK\n");
  return 0;
}
