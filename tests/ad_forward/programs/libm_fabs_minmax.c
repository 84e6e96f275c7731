// fabs, fmax, fmin, copysign away from their kinks.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) { return fabs(x - 0.25) * 3.0 + fmax(x, 0.1 * x) - fmin(x * x, 1.0) + copysign(x, -1.0); }

int main(void) {
  const double xs[] = {-1.7, -0.6, 0.45, 0.9, 1.6};
  for (int i = 0; i < 5; i++) CHECK_CLOSE(__enzyme_fwddiff((void *)f, xs[i], 1.0), fd1(f, xs[i]), FD_TOL);
  printf("OK\n");
  return 0;
}
