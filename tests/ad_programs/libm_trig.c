// libm trigonometric functions: sin cos tan asin acos atan atan2 (analytic derivatives).
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

static double f_sin(double x) { return sin(x); }
static double f_cos(double x) { return cos(x); }
static double f_tan(double x) { return tan(x); }
static double f_asin(double x) { return asin(x); }
static double f_acos(double x) { return acos(x); }
static double f_atan(double x) { return atan(x); }
static double f_atan2(double y, double x) { return atan2(y, x); }

int main(void) {
  double xs[] = {-0.7, 0.1, 0.6};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    APPROX_EQ(__enzyme_autodiff((void *)f_sin, x), cos(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_cos, x), -sin(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_tan, x), 1.0 / (cos(x) * cos(x)), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_asin, x), 1.0 / sqrt(1.0 - x * x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_acos, x), -1.0 / sqrt(1.0 - x * x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_atan, x), 1.0 / (1.0 + x * x), 1e-12);
    double y = 0.5 - x, r2 = x * x + y * y;
    Grad2 g = __enzyme_autodiff2((void *)f_atan2, y, x);
    APPROX_EQ(g.d0, x / r2, 1e-12);
    APPROX_EQ(g.d1, -y / r2, 1e-12);
  }
  printf("OK\n");
  return 0;
}
