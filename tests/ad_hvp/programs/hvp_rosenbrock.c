// Hessian-vector products of the Rosenbrock function (forward over reverse).
#include "hvp_check.h"

double rosenbrock(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i + 1 < n; i++) {
    double a = 1.0 - x[i], b = x[i + 1] - x[i] * x[i];
    s += a * a + 100.0 * b * b;
  }
  return s;
}

void grad_rosenbrock(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0.0;
  __enzyme_autodiff((void *)rosenbrock, enzyme_dup, x, g, enzyme_const, n);
}

int main(void) {
  enum { N = 6 };
  double x[N] = {0.5, -0.3, 1.2, 0.8, -1.1, 0.4};
  for (int seed = 0; seed < 4; seed++) {
    double v[N], g[N], hv[N], fd[N];
    direction(v, N, seed);
    __enzyme_fwddiff((void *)grad_rosenbrock, enzyme_dup, x, v, enzyme_dup, g, hv,
                     enzyme_const, N);
    fd_hvp(grad_rosenbrock, x, v, fd, N);
    for (int i = 0; i < N; i++) CHECK_CLOSE(hv[i], fd[i], FD_TOL);
    // exact: H v for the first component, d2f/dx0^2 = 2 + 1200 x0^2 - 400 x1, d2f/dx0dx1 = -400 x0
    CHECK_CLOSE(hv[0], (2 + 1200 * x[0] * x[0] - 400 * x[1]) * v[0] - 400 * x[0] * v[1],
                1e-12);
  }
  printf("OK\n");
  return 0;
}
