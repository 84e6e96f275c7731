// Ternaries (selects) and a relu-like max.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) {
  double a = x > 0.5 ? x * x : -x;
  double b = a > 1.0 ? 1.0 : a;
  return a * 2.0 + (b > 0.0 ? b : 0.0) * x;
}

int main(void) {
  const double xs[] = {-2.0, -0.4, 0.2, 0.7, 0.95, 1.3};
  for (int i = 0; i < 6; i++) CHECK_CLOSE(__enzyme_fwddiff((void *)f, xs[i], 1.0), fd1(f, xs[i]), FD_TOL);
  printf("OK\n");
  return 0;
}
