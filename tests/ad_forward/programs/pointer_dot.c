// Both inputs duplicated: the tangent of a dot product is <dx, y> + <x, dy>.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double dot(const double *x, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

int main(void) {
  enum { N = 7 };
  double x[N], y[N], dx[N], dy[N], want = 0.0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 * i - 1.0; y[i] = 1.0 / (i + 1.0); dx[i] = (i % 3) - 1.0; dy[i] = 0.5 * i;
    want += dx[i] * y[i] + x[i] * dy[i];
  }
  CHECK_CLOSE(__enzyme_fwddiff((void *)dot, x, dx, y, dy, N), want, 1e-12);
  CHECK_CLOSE(__enzyme_fwddiff((void *)dot, enzyme_const, x, enzyme_dup, y, dy, N), dot(x, dy, N), 1e-12);
  printf("OK\n");
  return 0;
}
