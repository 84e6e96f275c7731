// libm powers and roots: pow (base and exponent) sqrt cbrt hypot.
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
typedef struct {
  double d0, d1;
} Grad2;
Grad2 __enzyme_autodiff2(void *, ...);

static double f_pow(double x, double y) { return pow(x, y); }
static double f_sqrt(double x) { return sqrt(x); }
static double f_cbrt(double x) { return cbrt(x); }
static double f_hypot(double x, double y) { return hypot(x, y); }
static double f_pow_const_exp(double x) { return pow(x, 3.0); }

int main(void) {
  double xs[] = {0.4, 1.3, 3.2};
  for (int i = 0; i < 3; i++) {
    double x = xs[i], y = 2.5 - x;
    Grad2 gp = __enzyme_autodiff2((void *)f_pow, x, y);
    APPROX_EQ(gp.d0, y * pow(x, y - 1.0), 1e-12);
    APPROX_EQ(gp.d1, pow(x, y) * log(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_pow_const_exp, x), 3.0 * x * x, 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_sqrt, x), 0.5 / sqrt(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_cbrt, x), 1.0 / (3.0 * cbrt(x) * cbrt(x)), 1e-12);
    Grad2 gh = __enzyme_autodiff2((void *)f_hypot, x, y);
    APPROX_EQ(gh.d0, x / hypot(x, y), 1e-12);
    APPROX_EQ(gh.d1, y / hypot(x, y), 1e-12);
  }
  printf("OK\n");
  return 0;
}
