// A rational function with a division; checked against central finite differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_out;
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

double rational(double x) { return (x * x + 1.0) / (x - 3.0) - 2.0 / (x * x + 0.5); }

static double central_fd(double (*f)(double), double x) {
  double h = 1e-6 * (1.0 + fabs(x));
  return (f(x + h) - f(x - h)) / (2.0 * h);
}

int main(void) {
  double xs[] = {-2.0, -0.3, 0.4, 1.7, 5.5};
  for (int i = 0; i < 5; i++) {
    double d = __enzyme_autodiff((void *)rational, xs[i]);
    APPROX_EQ(d, central_fd(rational, xs[i]), 1e-6);
  }
  printf("OK\n");
  return 0;
}
