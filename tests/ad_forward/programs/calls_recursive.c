// A recursive function: the derivative calls itself (through the derivative cache).
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double power(double x, int n) {
  if (n == 0) return 1.0;
  double h = power(x, n / 2);
  return (n % 2) ? h * h * x : h * h;
}

static double p7(double x) { return power(x, 7); }

int main(void) {
  for (double x = 0.3; x < 2.0; x += 0.4) {
    CHECK_CLOSE(__enzyme_fwddiff((void *)power, x, 1.0, 7), 7.0 * pow(x, 6), 1e-10);
    CHECK_CLOSE(__enzyme_fwddiff((void *)power, x, 1.0, 7), fd1(p7, x), FD_TOL);
  }
  printf("OK\n");
  return 0;
}
