// A piecewise function with if/else branches on the active value.
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
double __enzyme_autodiff(void *, ...);

double piecewise(double x) {
  double y;
  if (x < -1.0)
    y = -x * x;
  else if (x < 1.0)
    y = sin(x) * 2.0;
  else
    y = exp(x - 1.0) + x;
  return y * 3.0;
}

int main(void) {
  APPROX_EQ(__enzyme_autodiff((void *)piecewise, -2.0), 3.0 * 4.0, 1e-12);
  APPROX_EQ(__enzyme_autodiff((void *)piecewise, 0.3), 6.0 * cos(0.3), 1e-12);
  APPROX_EQ(__enzyme_autodiff((void *)piecewise, 1.5), 3.0 * (exp(0.5) + 1.0), 1e-12);
  printf("OK\n");
  return 0;
}
