// Outputs through a pointer: the tangents land in the output's shadow.
#include "fd_check.h"
void __enzyme_fwddiff(void *, ...);

void f(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) out[i] = sin(x[i]) * x[(i + 1) % n];
}

int main(void) {
  enum { N = 5 };
  double x[N] = {0.1, 0.7, -0.3, 1.2, 0.5}, dx[N] = {1, 0.5, -1, 0.25, 2};
  double out[N], dout[N] = {0};
  __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, out, dout, N);
  const double h = 1e-6;
  double xp[N], xm[N], op[N], om[N];
  for (int i = 0; i < N; i++) { xp[i] = x[i] + h * dx[i]; xm[i] = x[i] - h * dx[i]; }
  f(xp, op, N); f(xm, om, N);
  for (int i = 0; i < N; i++) CHECK_CLOSE(dout[i], (op[i] - om[i]) / (2 * h), FD_TOL);
  printf("OK\n");
  return 0;
}
