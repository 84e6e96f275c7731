// Branches: the tangent follows the branch taken.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) {
  if (x < 0.0) return x * x * x;
  else if (x < 1.0) return sin(x);
  return exp(-x) * x;
}

int main(void) {
  const double xs[] = {-1.3, -0.2, 0.3, 0.8, 1.4, 2.9};
  for (int i = 0; i < 6; i++) CHECK_CLOSE(__enzyme_fwddiff((void *)f, xs[i], 1.0), fd1(f, xs[i]), FD_TOL);
  printf("OK\n");
  return 0;
}
