// calloc'd accumulators: the shadow allocation starts at zero like the primal.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(const double *x, int n) {
  double *acc = calloc(3, sizeof(double));
  for (int i = 0; i < n; i++) acc[i % 3] += x[i] * x[i];
  double r = acc[0] * acc[1] + acc[2];
  free(acc);
  return r;
}

int main(void) {
  enum { N = 8 };
  double x[N], dx[N], xp[N], xm[N];
  const double h = 1e-6;
  for (int i = 0; i < N; i++) { x[i] = 0.2 * i - 0.5; dx[i] = 1.0 - 0.1 * i; }
  for (int i = 0; i < N; i++) { xp[i] = x[i] + h * dx[i]; xm[i] = x[i] - h * dx[i]; }
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, dx, N), (f(xp, N) - f(xm, N)) / (2 * h), FD_TOL);
  printf("OK\n");
  return 0;
}
