// Newton's iteration for sqrt(a) until convergence: the derivative is 1/(2 sqrt(a)).
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

double newton_sqrt(double a) {
  double x = a > 1.0 ? a : 1.0;
  double prev = 0.0;
  int it = 0;
  while (fabs(x - prev) > 1e-15 * x && it < 100) {
    prev = x;
    x = 0.5 * (x + a / x);
    it++;
  }
  return x;
}

int main(void) {
  double as[] = {0.25, 2.0, 9.0, 1234.5};
  for (int i = 0; i < 4; i++) {
    double d = __enzyme_autodiff((void *)newton_sqrt, as[i]);
    APPROX_EQ(d, 0.5 / sqrt(as[i]), 1e-9);
  }
  printf("OK\n");
  return 0;
}
