// atan, atan2 (both arguments), asin, acos.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return atan(x) + atan2(y, x) + asin(0.5 * x) * acos(0.3 * y); }

int main(void) {
  double x = 0.6, y = -1.4;
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0, y, 0.0), fd2(f, x, y, 1, 0), FD_TOL);
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 0.0, y, 1.0), fd2(f, x, y, 0, 1), FD_TOL);
  printf("OK\n");
  return 0;
}
