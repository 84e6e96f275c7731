// A constant pointer (weights) and an integer: no shadow for them.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x, const double *w, int n) {
  double s = 0.0, p = 1.0;
  for (int i = 0; i < n; i++) { s += w[i] * p; p *= x; }
  return s;
}
static const double W[4] = {1.0, -2.0, 0.5, 0.25};
static double g(double x) { return f(x, W, 4); }

int main(void) {
  for (double x = -1.0; x <= 1.0; x += 0.5)
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0, enzyme_const, W, 4), fd1(g, x), FD_TOL);
  printf("OK\n");
  return 0;
}
