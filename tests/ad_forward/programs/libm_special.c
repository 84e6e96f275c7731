// erf, erfc, lgamma and tgamma (their derivatives use the digamma helper).
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) { return erf(x) + erfc(0.5 * x) + lgamma(x) + 0.1 * tgamma(x); }

int main(void) {
  const double xs[] = {0.3, 0.8, 1.5, 2.5, 4.2, 11.0};
  for (int i = 0; i < 6; i++) CHECK_CLOSE(__enzyme_fwddiff((void *)f, xs[i], 1.0), fd1(f, xs[i]), 1e-5);
  printf("OK\n");
  return 0;
}
