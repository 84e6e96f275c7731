// One out-of-line callee called from several sites and in a loop.
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

__attribute__((noinline)) double cube(double v) { return v * v * v; }

double many(double x) {
  double s = cube(x) + cube(2.0 * x);
  for (int i = 1; i <= 3; i++) s += cube(x / i);
  return s;
}

int main(void) {
  double x = 0.8;
  // d/dx of x^3 (1 + 8 + 1 + 1/8 + 1/27)
  double k = 1.0 + 8.0 + 1.0 + 1.0 / 8.0 + 1.0 / 27.0;
  APPROX_EQ(__enzyme_autodiff((void *)many, x), 3.0 * k * x * x, 1e-12);
  printf("OK\n");
  return 0;
}
