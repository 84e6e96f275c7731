// Vector forward mode, width 2: two tangents of a scalar function at once.
#include "fd_check.h"
typedef struct { double d[2]; } V2;
V2 __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return sin(x) * y + x * x * exp(-y); }

int main(void) {
  double x = 0.9, y = 0.4;
  V2 r = __enzyme_fwddiff((void *)f, enzyme_width, 2, enzyme_dup, x, 1.0, 0.0, enzyme_dup, y, 0.0, 1.0);
  CHECK_CLOSE(r.d[0], fd2(f, x, y, 1, 0), FD_TOL);
  CHECK_CLOSE(r.d[1], fd2(f, x, y, 0, 1), FD_TOL);
  printf("OK\n");
  return 0;
}
