// A polynomial in Horner form; the derivative is hand-derived.
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

// p(x) = 3x^4 - 2x^3 + 0.5x^2 - 7x + 1
double poly(double x) { return (((3.0 * x - 2.0) * x + 0.5) * x - 7.0) * x + 1.0; }

int main(void) {
  double xs[] = {-1.5, -0.25, 0.0, 0.75, 2.0};
  for (int i = 0; i < 5; i++) {
    double x = xs[i];
    double expected = 12.0 * x * x * x - 6.0 * x * x + x - 7.0;
    APPROX_EQ(__enzyme_autodiff((void *)poly, enzyme_out, x), expected, 1e-12);
  }
  printf("OK\n");
  return 0;
}
