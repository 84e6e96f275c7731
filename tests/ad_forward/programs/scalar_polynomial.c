// A polynomial of one variable: the tangent is the derivative times the seed.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) { return 3.0 * x * x * x - 2.0 * x + 1.0 / (x * x + 1.0); }

int main(void) {
  for (double x = -2.0; x <= 2.0; x += 0.37) {
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0), fd1(f, x), FD_TOL);
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, x, -2.5), -2.5 * fd1(f, x), FD_TOL);
  }
  printf("OK\n");
  return 0;
}
