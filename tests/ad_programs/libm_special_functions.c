// libm erf erfc tgamma lgamma (gamma functions checked with finite differences).
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

static double f_erf(double x) { return erf(x); }
static double f_erfc(double x) { return erfc(x); }
static double f_tgamma(double x) { return tgamma(x); }
static double f_lgamma(double x) { return lgamma(x); }

static double central_fd(double (*f)(double), double x) {
  double h = 1e-6 * (1.0 + fabs(x));
  return (f(x + h) - f(x - h)) / (2.0 * h);
}

int main(void) {
  const double two_over_sqrt_pi = 1.1283791670955126;
  double xs[] = {-0.9, 0.4, 1.7};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    APPROX_EQ(__enzyme_autodiff((void *)f_erf, x), two_over_sqrt_pi * exp(-x * x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_erfc, x), -two_over_sqrt_pi * exp(-x * x), 1e-12);
  }
  double gs[] = {0.6, 1.5, 3.3, 6.1};
  for (int i = 0; i < 4; i++) {
    double x = gs[i];
    APPROX_EQ(__enzyme_autodiff((void *)f_tgamma, x), central_fd(f_tgamma, x), 1e-7);
    APPROX_EQ(__enzyme_autodiff((void *)f_lgamma, x), central_fd(f_lgamma, x), 1e-7);
  }
  // digamma(1) = -Euler's constant
  APPROX_EQ(__enzyme_autodiff((void *)f_lgamma, 1.0), -0.5772156649015329, 1e-12);
  printf("OK\n");
  return 0;
}
