// In-place update: x[i] = x[i]^2 + x[i-1]; the shadow is updated in place too.
#include "fd_check.h"
void __enzyme_fwddiff(void *, ...);

void f(double *x, int n) {
  for (int i = 1; i < n; i++) x[i] = x[i] * x[i] + 0.5 * x[i - 1];
}

int main(void) {
  enum { N = 6 };
  double x0[N] = {0.5, -0.2, 0.9, 0.3, -0.7, 0.1}, d0[N] = {1, 0, -1, 0.5, 0.2, 0};
  double x[N], dx[N], xp[N], xm[N];
  const double h = 1e-6;
  memcpy(x, x0, sizeof x); memcpy(dx, d0, sizeof dx);
  __enzyme_fwddiff((void *)f, x, dx, N);
  for (int i = 0; i < N; i++) { xp[i] = x0[i] + h * d0[i]; xm[i] = x0[i] - h * d0[i]; }
  f(xp, N); f(xm, N);
  for (int i = 0; i < N; i++) CHECK_CLOSE(dx[i], (xp[i] - xm[i]) / (2 * h), FD_TOL);
  printf("OK\n");
  return 0;
}
