// Two active scalars: the tangent is the directional derivative along (dx, dy).
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return x * y + y / x - x * x * y; }

int main(void) {
  double x = 1.3, y = -0.7;
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0, y, 0.0), fd2(f, x, y, 1, 0), FD_TOL);
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 0.0, y, 1.0), fd2(f, x, y, 0, 1), FD_TOL);
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, x, 0.3, enzyme_dup, y, -1.1),
              fd2(f, x, y, 0.3, -1.1), FD_TOL);
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_const, x, enzyme_dup, y, 1.0),
              fd2(f, x, y, 0, 1), FD_TOL);
  printf("OK\n");
  return 0;
}
