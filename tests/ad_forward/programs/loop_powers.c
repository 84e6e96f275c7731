// A counted loop: phis carry tangents around the back edge.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) {
  double s = 0.0, p = 1.0;
  for (int i = 1; i <= 12; i++) {
    p *= x;
    s += p / i;
  }
  return s;
}

int main(void) {
  for (double x = -0.9; x <= 0.9; x += 0.3) CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0), fd1(f, x), FD_TOL);
  printf("OK\n");
  return 0;
}
