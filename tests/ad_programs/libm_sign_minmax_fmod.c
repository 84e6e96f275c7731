// libm fabs fmax fmin fmod copysign fma: derivatives pick the active branch/operand;
// signbit (the float's bits compared as an integer) picks a branch in both modes.
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
double __enzyme_fwddiff(void *, ...);
typedef struct {
  double d0, d1;
} Grad2;
Grad2 __enzyme_autodiff2(void *, ...);
typedef struct {
  double d0, d1, d2;
} Grad3;
Grad3 __enzyme_autodiff3(void *, ...);

static double f_fabs(double x) { return fabs(x); }
static double f_fmax(double x, double y) { return fmax(x, y); }
static double f_fmin(double x, double y) { return fmin(x, y); }
static double f_fmod(double x, double y) { return fmod(x, y); }
static double f_copysign(double x, double y) { return copysign(x, y); }
static double f_fma(double x, double y, double z) { return fma(x, y, z); }
static double f_signbit(double x) { return signbit(x) ? -x * x : x * x * x; }

int main(void) {
  APPROX_EQ(__enzyme_autodiff((void *)f_fabs, -1.5), -1.0, 0.0);
  APPROX_EQ(__enzyme_autodiff((void *)f_fabs, 2.5), 1.0, 0.0);
  Grad2 g = __enzyme_autodiff2((void *)f_fmax, 0.3, 0.7);
  APPROX_EQ(g.d0, 0.0, 0.0);
  APPROX_EQ(g.d1, 1.0, 0.0);
  g = __enzyme_autodiff2((void *)f_fmin, 0.3, 0.7);
  APPROX_EQ(g.d0, 1.0, 0.0);
  APPROX_EQ(g.d1, 0.0, 0.0);
  // fmod(5.3, 1.2) = 5.3 - 4 * 1.2
  g = __enzyme_autodiff2((void *)f_fmod, 5.3, 1.2);
  APPROX_EQ(g.d0, 1.0, 1e-15);
  APPROX_EQ(g.d1, -4.0, 1e-15);
  g = __enzyme_autodiff2((void *)f_copysign, 2.0, -3.0);  // = -2: d/dx = -1, d/dy = 0
  APPROX_EQ(g.d0, -1.0, 0.0);
  APPROX_EQ(g.d1, 0.0, 0.0);
  g = __enzyme_autodiff2((void *)f_copysign, -2.0, -3.0);  // = -2 = x: d/dx = 1
  APPROX_EQ(g.d0, 1.0, 0.0);
  Grad3 h = __enzyme_autodiff3((void *)f_fma, 1.5, -2.0, 0.25);
  APPROX_EQ(h.d0, -2.0, 0.0);
  APPROX_EQ(h.d1, 1.5, 0.0);
  APPROX_EQ(h.d2, 1.0, 0.0);
  APPROX_EQ(__enzyme_autodiff((void *)f_signbit, -0.6), 1.2, 1e-15);
  APPROX_EQ(__enzyme_autodiff((void *)f_signbit, 0.5), 0.75, 1e-15);
  APPROX_EQ(__enzyme_fwddiff((void *)f_signbit, -0.6, 1.0), 1.2, 1e-15);
  APPROX_EQ(__enzyme_fwddiff((void *)f_signbit, 0.5, 2.0), 1.5, 1e-15);
  printf("OK\n");
  return 0;
}
