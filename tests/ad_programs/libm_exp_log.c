// libm exponentials and logarithms: exp exp2 exp10 expm1 log log1p log2 log10.
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
double exp10(double);  // a GNU extension; declared here so no feature macro is needed

static double f_exp(double x) { return exp(x); }
static double f_exp2(double x) { return exp2(x); }
static double f_exp10(double x) { return exp10(x); }
static double f_expm1(double x) { return expm1(x); }
static double f_log(double x) { return log(x); }
static double f_log1p(double x) { return log1p(x); }
static double f_log2(double x) { return log2(x); }
static double f_log10(double x) { return log10(x); }

int main(void) {
  double xs[] = {0.3, 1.1, 2.5};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    APPROX_EQ(__enzyme_autodiff((void *)f_exp, x), exp(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_exp2, x), exp2(x) * log(2.0), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_exp10, x), exp10(x) * log(10.0), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_expm1, x), exp(x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_log, x), 1.0 / x, 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_log1p, x), 1.0 / (1.0 + x), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_log2, x), 1.0 / (x * log(2.0)), 1e-12);
    APPROX_EQ(__enzyme_autodiff((void *)f_log10, x), 1.0 / (x * log(10.0)), 1e-12);
  }
  printf("OK\n");
  return 0;
}
