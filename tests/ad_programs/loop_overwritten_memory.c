// An array recurrence overwritten in place, several sweeps: a[i] = a[i] * a[i-1] + 0.1.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
void __enzyme_autodiff(void *, ...);

double sweeps(double *a, int n, int passes) {
  for (int p = 0; p < passes; p++)
    for (int i = 1; i < n; i++) a[i] = a[i] * a[i - 1] * 0.9 + 0.1;
  return a[n - 1];
}

int main(void) {
  enum { N = 5 };
  double a0[N] = {0.9, 1.1, 0.8, 1.2, 1.05};
  double a[N], da[N] = {0};
  memcpy(a, a0, sizeof a);
  __enzyme_autodiff((void *)sweeps, enzyme_dup, a, da, N, 3);
  for (int k = 0; k < N; k++) {
    double ap[N], am[N], h = 1e-6;
    memcpy(ap, a0, sizeof ap);
    memcpy(am, a0, sizeof am);
    ap[k] += h;
    am[k] -= h;
    double fd = (sweeps(ap, N, 3) - sweeps(am, N, 3)) / (2.0 * h);
    // the shadow of a[k] also receives the seed of the overwritten memory: none here,
    // because only the return value is seeded
    APPROX_EQ(da[k], fd, 1e-6);
  }
  printf("OK\n");
  return 0;
}
