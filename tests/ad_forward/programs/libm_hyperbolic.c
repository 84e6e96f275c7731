// sinh, cosh, tanh, asinh, atanh.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) { return sinh(x) * cosh(0.5 * x) + tanh(x) + asinh(2.0 * x) + atanh(0.3 * x); }

int main(void) {
  for (double x = -1.5; x <= 1.5; x += 0.5)
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0), fd1(f, x), FD_TOL);
  printf("OK\n");
  return 0;
}
