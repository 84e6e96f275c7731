// A product reduction: d/dx_k prod x = prod_{i != k} x_i.
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

double product(const double *x, int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++) p *= x[i];
  return p;
}

int main(void) {
  enum { N = 7 };
  double x[N] = {1.1, -0.9, 2.0, 0.5, 1.7, -1.2, 0.8}, dx[N] = {0};
  __enzyme_autodiff((void *)product, enzyme_dup, x, dx, N);
  for (int k = 0; k < N; k++) {
    double e = 1.0;
    for (int i = 0; i < N; i++)
      if (i != k) e *= x[i];
    APPROX_EQ(dx[k], e, 1e-12);
  }
  printf("OK\n");
  return 0;
}
