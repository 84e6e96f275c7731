// A temporary stack array holding intermediate results (prefix sums).
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

double prefix_energy(const double *x, int n) {
  double prefix[16];
  prefix[0] = x[0];
  for (int i = 1; i < n; i++) prefix[i] = prefix[i - 1] + x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += prefix[i] * prefix[i];
  return 0.5 * s;
}

int main(void) {
  enum { N = 6 };
  double x[N] = {0.3, -0.1, 0.7, 1.2, -0.4, 0.5}, dx[N] = {0};
  __enzyme_autodiff((void *)prefix_energy, enzyme_dup, x, dx, N);
  double prefix[N];
  prefix[0] = x[0];
  for (int i = 1; i < N; i++) prefix[i] = prefix[i - 1] + x[i];
  for (int k = 0; k < N; k++) {
    double e = 0.0;
    for (int i = k; i < N; i++) e += prefix[i];  // x[k] appears in every later prefix
    APPROX_EQ(dx[k], e, 1e-12);
  }
  printf("OK\n");
  return 0;
}
