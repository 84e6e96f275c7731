// The simplest gradient: d/dx x*x = 2x, through the user header.
#include "enzyme/enzyme.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

double square(double x) { return x * x; }

int main(void) {
  for (double x = -2.0; x <= 2.0; x += 0.5) {
    double dx = __enzyme_autodiff((void *)square, x);
    APPROX_EQ(dx, 2.0 * x, 1e-12);
    double dx_out = __enzyme_autodiff((void *)square, enzyme_out, x);
    APPROX_EQ(dx_out, 2.0 * x, 1e-12);
  }
  printf("OK\n");
  return 0;
}
