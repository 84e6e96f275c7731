// exp, log, log1p, expm1, exp2, log10.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) { return exp(x) * log(x) + log1p(x) - expm1(-x) + exp2(x) * log10(x); }

int main(void) {
  for (double x = 0.2; x <= 3.0; x += 0.4)
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0), fd1(f, x), FD_TOL);
  printf("OK\n");
  return 0;
}
