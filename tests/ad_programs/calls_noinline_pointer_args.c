// Out-of-line callees reading and writing active memory through pointers.
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

__attribute__((noinline)) void axpy(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}

__attribute__((noinline)) double norm2(const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += y[i] * y[i];
  return s;
}

double driver(const double *x, int n) {
  double y[4] = {1.0, 1.0, 1.0, 1.0};
  axpy(3.0, x, y, n);
  axpy(-1.0, x, y, n);
  return norm2(y, n);
}

int main(void) {
  enum { N = 4 };
  double x[N] = {0.5, -0.25, 1.0, 2.0}, dx[N] = {0};
  __enzyme_autodiff((void *)driver, enzyme_dup, x, dx, N);
  // y = 1 + 2x, s = sum y^2, ds/dx = 4 (1 + 2x)
  for (int i = 0; i < N; i++) APPROX_EQ(dx[i], 4.0 * (1.0 + 2.0 * x[i]), 1e-12);
  printf("OK\n");
  return 0;
}
