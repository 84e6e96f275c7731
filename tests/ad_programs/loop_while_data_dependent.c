// A while loop whose trip count depends on the active value (halving until small).
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

double halve_until_small(double x) {
  double y = x;
  while (y > 0.1) y = y * 0.5 + 0.01 * y * y;
  return y * y;
}

static double central_fd(double (*f)(double), double x) {
  double h = 1e-7;
  return (f(x + h) - f(x - h)) / (2.0 * h);
}

int main(void) {
  double xs[] = {0.05, 0.37, 1.3, 7.9, 42.0};
  for (int i = 0; i < 5; i++) {
    double d = __enzyme_autodiff((void *)halve_until_small, enzyme_out, xs[i]);
    APPROX_EQ(d, central_fd(halve_until_small, xs[i]), 1e-5);
  }
  printf("OK\n");
  return 0;
}
