// Calls to defined (noinline) functions are differentiated through their own derivative.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double sq(double x) { return x * x; }
__attribute__((noinline)) void scale(double *v, int n, double a) { for (int i = 0; i < n; i++) v[i] *= a; }

double f(double x) {
  double v[3] = {x, sq(x), sin(x)};
  scale(v, 3, sq(x + 1.0));
  return v[0] + v[1] * v[2];
}

int main(void) {
  for (double x = -1.0; x <= 1.0; x += 0.4) CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0), fd1(f, x), FD_TOL);
  printf("OK\n");
  return 0;
}
