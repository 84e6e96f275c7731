// libm frexp ldexp scalbn modf: integer/pointer operands are inactive.
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

static double f_frexp(double x) {
  int e;
  double m = frexp(x, &e);
  return m * (double)e;  // e is piecewise constant
}
static double f_ldexp(double x, int n) { return ldexp(x * x, n); }
static double f_scalbn(double x, int n) { return scalbn(x, n) + x; }
static double f_modf(double x) {
  double ip;
  double frac = modf(x, &ip);
  return frac * frac + ip * x;
}

int main(void) {
  double x = 5.5;  // 5.5 = 0.6875 * 2^3
  APPROX_EQ(__enzyme_autodiff((void *)f_frexp, x), 3.0 / 8.0, 1e-15);
  APPROX_EQ(__enzyme_autodiff((void *)f_ldexp, 0.75, 3), 2.0 * 0.75 * 8.0, 1e-15);
  APPROX_EQ(__enzyme_autodiff((void *)f_ldexp, 0.75, -2), 2.0 * 0.75 / 4.0, 1e-15);
  APPROX_EQ(__enzyme_autodiff((void *)f_scalbn, 1.25, 4), 17.0, 1e-15);
  // modf(2.75) = 0.75 with ip = 2: d/dx (frac^2 + 2 x) = 2 * 0.75 + 2
  APPROX_EQ(__enzyme_autodiff((void *)f_modf, 2.75), 3.5, 1e-15);
  printf("OK\n");
  return 0;
}
