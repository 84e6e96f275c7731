// A data-dependent while loop (Newton iterations for sqrt(a)).
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double a) {
  double x = a > 1.0 ? a : 1.0;
  int it = 0;
  while (fabs(x * x - a) > 1e-14 * a && it < 100) {
    x = 0.5 * (x + a / x);
    it++;
  }
  return x;
}

int main(void) {
  for (double a = 0.5; a < 9.0; a += 1.25)
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, a, 1.0), 0.5 / sqrt(a), 1e-9);
  printf("OK\n");
  return 0;
}
