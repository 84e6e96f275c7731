// A pointer that picks either a constant table (an enzyme_const argument) or active
// data -- here a global staging buffer, then the active input itself -- and is only
// read to decide a branch. Its value carries no derivative, so it needs no shadow (one
// cannot exist: the table has none); the derivative through the active data must be
// exact. Reverse mode and forward mode against central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

#define N 6
static double history[16];

double staged(const double *x, const double *limits, int n) {
  memcpy(history, x, (size_t)n * sizeof(double));
  const double *ref = n > 4 ? &limits[1] : &history[1];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (*ref < 0.5 ? 2.0 : 0.5) * history[i] * history[i];
  return s;
}

double direct(const double *x, const double *limits, int n) {
  const double *ref = n > 4 ? &x[2] : &limits[2];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (*ref > limits[0] ? sin(x[i]) : cos(x[i])) * x[i];
  return s;
}

typedef double (*objective)(const double *, const double *, int);

static void check(objective f, const double *x, const double *limits, const double *dx) {
  for (int k = 0; k < N; k++) {
    double p[N], m[N];
    memcpy(p, x, sizeof p);
    memcpy(m, x, sizeof m);
    p[k] += 1e-6;
    m[k] -= 1e-6;
    APPROX_EQ(dx[k], (f(p, limits, N) - f(m, limits, N)) / 2e-6, 1e-6);
  }
}

#define GRADIENTS(f)                                                                 \
  do {                                                                               \
    double dx[N] = {0};                                                              \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, limits, N);        \
    check(f, x, limits, dx);                                                         \
    for (int k = 0; k < N; k++) {                                                    \
      double t[N] = {0};                                                             \
      t[k] = 1.0;                                                                    \
      APPROX_EQ(__enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, limits, N), \
                dx[k], 1e-10);                                                       \
    }                                                                                \
  } while (0)

int main(void) {
  double x[N] = {0.4, -1.2, 0.9, 0.3, -0.5, 1.7};
  double limits[4] = {0.2, 0.8, -0.3, 1.0};
  GRADIENTS(staged);
  GRADIENTS(direct);
  printf("OK\n");
  return 0;
}
