// A local array whose address escapes into a noinline helper: a zeroed shadow alloca.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void fill(double *t, double x, int n) { for (int i = 0; i < n; i++) t[i] = pow(x, i); }

double f(double x) {
  double t[5];
  fill(t, x, 5);
  double s = 0.0;
  for (int i = 0; i < 5; i++) s += t[i] / (i + 1);
  return s;
}

int main(void) {
  for (double x = 0.2; x < 2.0; x += 0.3) CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0), fd1(f, x), FD_TOL);
  printf("OK\n");
  return 0;
}
