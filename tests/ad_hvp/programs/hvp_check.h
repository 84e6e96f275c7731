/* Shared by the Hessian-vector programs: forward over reverse (__enzyme_fwddiff of a
 * function that calls __enzyme_autodiff) checked against central differences of the
 * gradient; abort on mismatch. */
#ifndef HVP_CHECK_H
#define HVP_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_out, enzyme_width;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

#define CHECK_CLOSE(got, want, tol)                                                   \
  do {                                                                                \
    double got_ = (got), want_ = (want);                                              \
    if (!(fabs(got_ - want_) <= (tol) * (1.0 + fabs(want_)))) {                       \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %s = %.17g\n", __FILE__, __LINE__, \
              #got, got_, #want, want_);                                              \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

#define FD_TOL 1e-6

typedef void (*gradient_fn)(const double *x, double *g, int n);

/* (g(x + h v) - g(x - h v)) / 2h: the Hessian-vector product by central differences of
 * the (reverse-mode) gradient */
static void fd_hvp(gradient_fn grad, const double *x, const double *v, double *out, int n) {
  double xp[64], xm[64], gp[64], gm[64];
  double scale = 1.0;
  for (int i = 0; i < n; i++) scale = fmax(scale, fabs(x[i]));
  const double h = 1e-5 * scale;
  for (int i = 0; i < n; i++) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  grad(xp, gp, n);
  grad(xm, gm, n);
  for (int i = 0; i < n; i++) out[i] = (gp[i] - gm[i]) / (2 * h);
}

/* a deterministic direction in [-1, 1]^n */
static void direction(double *v, int n, int seed) {
  unsigned s = 2654435761u * (unsigned)(seed + 1);
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    v[i] = (double)(s >> 8) / (double)(1u << 24) * 2.0 - 1.0;
  }
}
#endif
