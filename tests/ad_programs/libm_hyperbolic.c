// libm hyperbolic functions: sinh cosh tanh asinh acosh atanh.
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

static double f_sinh(double x) { return sinh(x); }
static double f_cosh(double x) { return cosh(x); }
static double f_tanh(double x) { return tanh(x); }
static double f_asinh(double x) { return asinh(x); }
static double f_acosh(double x) { return acosh(x); }
static double f_atanh(double x) { return atanh(x); }

int main(void) {
  double xs[] = {-0.8, 0.2, 0.65};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    APPROX_EQ(__enzyme_autodiff((void *)f_sinh, x), cosh(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_cosh, x), sinh(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_tanh, x), 1.0 - tanh(x) * tanh(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_asinh, x), 1.0 / sqrt(x * x + 1.0), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_atanh, x), 1.0 / (1.0 - x * x), 1e-12);
    double y = 2.0 + x;  // acosh needs y > 1 (xs >= -0.8)
    APPROX_EQ(__enzyme_autodiff((void *)f_acosh, y), 1.0 / sqrt(y * y - 1.0), 1e-12);
  }
  printf("OK\n");
  return 0;
}
