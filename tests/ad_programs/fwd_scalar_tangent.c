// Forward mode: __enzyme_fwddiff returns the tangent of the result for a seeded input tangent.
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
double __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return sin(x) * y + x * x * exp(y); }

int main(void) {
  double x = 0.4, y = -0.6;
  double dx = 1.0, dy = 0.0;
  double dfdx = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
  APPROX_EQ(dfdx, cos(x) * y + 2.0 * x * exp(y), 1e-12);
  double d_dir = __enzyme_fwddiff((void *)f, enzyme_dup, x, 0.5, enzyme_dup, y, -2.0);
  double fy = sin(x) + x * x * exp(y);
  APPROX_EQ(d_dir, 0.5 * dfdx - 2.0 * fy, 1e-12);
  double dconst = __enzyme_fwddiff((void *)f, enzyme_const, x, enzyme_dup, y, 1.0);
  APPROX_EQ(dconst, fy, 1e-12);
  printf("OK\n");
  return 0;
}
