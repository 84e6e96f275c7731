// sin, cos, tan through libm calls.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) { return sin(x) * cos(2.0 * x) + tan(0.5 * x); }

int main(void) {
  for (double x = -1.2; x <= 1.2; x += 0.3)
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0), fd1(f, x), FD_TOL);
  printf("OK\n");
  return 0;
}
