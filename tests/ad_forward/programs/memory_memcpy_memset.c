// memcpy into a local buffer and memset of an accumulator: the same on the shadows.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double g(const double *x, int n) {
  double buf[16], acc[4];
  memcpy(buf, x, n * sizeof(double));
  memset(acc, 0, sizeof acc);
  for (int i = 0; i < n; i++) acc[i & 3] += buf[i] * buf[i];
  return acc[0] + 2.0 * acc[1] + 3.0 * acc[2] + 4.0 * acc[3];
}

int main(void) {
  enum { N = 9 };
  double x[N], dx[N], xp[N], xm[N];
  const double h = 1e-6;
  for (int i = 0; i < N; i++) { x[i] = 0.3 * i - 1.0; dx[i] = (i & 1) ? 1.0 : -0.5; }
  for (int i = 0; i < N; i++) { xp[i] = x[i] + h * dx[i]; xm[i] = x[i] - h * dx[i]; }
  CHECK_CLOSE(__enzyme_fwddiff((void *)g, x, dx, N), (g(xp, N) - g(xm, N)) / (2 * h), FD_TOL);
  printf("OK\n");
  return 0;
}
