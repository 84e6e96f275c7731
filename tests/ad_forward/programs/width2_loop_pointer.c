// Width 2 through a loop over arrays with a scalar result.
#include "fd_check.h"
typedef struct { double d[2]; } V2;
V2 __enzyme_fwddiff(void *, ...);

double f(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * (i + 1) + cos(x[i]);
  return s;
}

int main(void) {
  enum { N = 6 };
  double x[N] = {0.1, 0.2, -0.3, 0.4, 1.5, -0.6}, d0[N], d1[N];
  for (int i = 0; i < N; i++) { d0[i] = 1.0; d1[i] = (i % 2) ? -1.0 : 0.5; }
  V2 r = __enzyme_fwddiff((void *)f, enzyme_width, 2, enzyme_dup, x, d0, d1, enzyme_const, N);
  double w0 = 0, w1 = 0;
  for (int i = 0; i < N; i++) {
    double g = 2.0 * x[i] * (i + 1) - sin(x[i]);
    w0 += g * d0[i]; w1 += g * d1[i];
  }
  CHECK_CLOSE(r.d[0], w0, 1e-12);
  CHECK_CLOSE(r.d[1], w1, 1e-12);
  printf("OK\n");
  return 0;
}
