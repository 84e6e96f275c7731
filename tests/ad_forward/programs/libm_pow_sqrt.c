// pow with both operands active, sqrt, cbrt, hypot.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return pow(x, y) + sqrt(x * y) + cbrt(x) * hypot(x, y); }

int main(void) {
  double x = 1.7, y = 0.8;
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0, y, 0.0), fd2(f, x, y, 1, 0), FD_TOL);
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 0.0, y, 1.0), fd2(f, x, y, 0, 1), FD_TOL);
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 0.5, y, 2.0), fd2(f, x, y, 0.5, 2), FD_TOL);
  printf("OK\n");
  return 0;
}
