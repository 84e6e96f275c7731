// A heap temporary (malloc/free): its shadow is allocated, zeroed and freed alongside.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(const double *x, int n) {
  double *t = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) t[i] = exp(x[i]);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += t[i] * t[n - 1 - i];
  free(t);
  return s;
}

int main(void) {
  enum { N = 4 };
  double x[N] = {0.1, -0.4, 0.3, 0.8}, dx[N] = {1, 2, -1, 0.5}, xp[N], xm[N];
  const double h = 1e-6;
  for (int i = 0; i < N; i++) { xp[i] = x[i] + h * dx[i]; xm[i] = x[i] - h * dx[i]; }
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, dx, N), (f(xp, N) - f(xm, N)) / (2 * h), FD_TOL);
  printf("OK\n");
  return 0;
}
