// fma and (with -ffp-contract) llvm.fmuladd, plus floor (zero derivative).
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) { return fma(x, x, 3.0 * x) + x * 2.5 + 1.0 + floor(x) + x * sqrt(x + 4.0); }

int main(void) {
  const double xs[] = {0.25, 0.6, 1.45, 2.3};
  for (int i = 0; i < 4; i++) CHECK_CLOSE(__enzyme_fwddiff((void *)f, xs[i], 1.0), fd1(f, xs[i]), FD_TOL);
  printf("OK\n");
  return 0;
}
