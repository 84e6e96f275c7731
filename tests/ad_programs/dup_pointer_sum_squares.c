// A duplicated array: the shadow receives the gradient of sum x[i]^2.
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

double sum_squares(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}

int main(void) {
  double x[5] = {1.0, -2.0, 0.5, 3.0, -0.25};
  double dx[5] = {0};
  __enzyme_autodiff((void *)sum_squares, enzyme_dup, x, dx, 5);
  for (int i = 0; i < 5; i++) APPROX_EQ(dx[i], 2.0 * x[i], 1e-12);
  printf("OK\n");
  return 0;
}
