// The long double (l-suffixed) libm variants inside a double interface: sinl expl logl powl sqrtl.
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

double wide(double x) {
  long double y = x;  // fpext to x86_fp80 (or the target's long double)
  long double r = sinl(y) * expl(y) + logl(y) + powl(y, 2.5L) + sqrtl(y);
  return (double)r;  // fptrunc
}

int main(void) {
  double xs[] = {0.5, 1.7};
  for (int i = 0; i < 2; i++) {
    double x = xs[i];
    double e = (cos(x) + sin(x)) * exp(x) + 1.0 / x + 2.5 * pow(x, 1.5) + 0.5 / sqrt(x);
    APPROX_EQ(__enzyme_autodiff((void *)wide, x), e, 1e-12);
  }
  printf("OK\n");
  return 0;
}
