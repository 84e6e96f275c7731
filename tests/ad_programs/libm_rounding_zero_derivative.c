// Rounding functions have zero derivative: floor ceil trunc round rint nearbyint roundeven l(l)round l(l)rint.
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
double roundeven(double);  // C23; declared here so no feature macro is needed

double rounded_mix(double x) {
  double r = floor(x) + ceil(x) + trunc(x) + round(x) + rint(x) + nearbyint(x) + roundeven(x);
  long a = lround(x) + lrint(x);
  long long b = llround(x) + llrint(x);
  return r * x + (double)(a + b) * x * x;
}

int main(void) {
  double xs[] = {-1.3, 0.2, 2.6};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    double r = floor(x) + ceil(x) + trunc(x) + round(x) + rint(x) + nearbyint(x) + roundeven(x);
    double k = (double)(lround(x) + lrint(x) + llround(x) + llrint(x));
    APPROX_EQ(__enzyme_autodiff((void *)rounded_mix, x), r + 2.0 * k * x, 1e-12);
  }
  printf("OK\n");
  return 0;
}
