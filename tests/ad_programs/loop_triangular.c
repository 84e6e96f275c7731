// A triangular nest (inner bound depends on the outer index): sum_{j<=i} x[i] x[j].
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

double lower_sum(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) s += x[i] * x[j];
  return s;
}

int main(void) {
  enum { N = 6 };
  double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5, -0.75}, dx[N] = {0};
  __enzyme_autodiff((void *)lower_sum, enzyme_dup, x, dx, N);
  // s = (sum x)^2 / 2 + sum x^2 / 2, so ds/dx_k = sum x + x_k
  double total = 0.0;
  for (int i = 0; i < N; i++) total += x[i];
  for (int k = 0; k < N; k++) APPROX_EQ(dx[k], total + x[k], 1e-12);
  printf("OK\n");
  return 0;
}
