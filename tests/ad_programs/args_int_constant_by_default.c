// Integers are constant without a marker; doubles are active without a marker.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

double scaled_power(int n, double x, long shift) {
  double r = 1.0;
  for (int i = 0; i < n; i++) r *= x;
  return r + (double)shift;
}

int main(void) {
  for (int n = 1; n <= 5; n++) {
    double x = 1.1;
    double d = __enzyme_autodiff((void *)scaled_power, n, x, 7L);
    APPROX_EQ(d, n * pow(x, n - 1), 1e-12);
  }
  printf("OK\n");
  return 0;
}
