// A full Hessian of a small function: N forward passes over the reverse-mode gradient (one
// unit direction each), then the same N columns in one vector forward call
// (enzyme_width N); checked against central differences of the gradient, symmetry, and a
// hand-derived Hessian.
#include "hvp_check.h"

enum { N = 4 };

// f = x0^2 x1 + sin(x1 x2) + exp(x0 x3) + x2^3 / (1 + x3^2)
double f(const double *x, int n) {
  return x[0] * x[0] * x[1] + sin(x[1] * x[2]) + exp(x[0] * x[3]) +
         x[2] * x[2] * x[2] / (1.0 + x[3] * x[3]);
}

void grad_f(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0.0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, n);
}

static void exact_hessian(const double *x, double H[N][N]) {
  double e = exp(x[0] * x[3]), s = sin(x[1] * x[2]), c = cos(x[1] * x[2]);
  double q = 1.0 + x[3] * x[3];
  memset(H, 0, sizeof(double) * N * N);
  H[0][0] = 2 * x[1] + x[3] * x[3] * e;
  H[0][1] = 2 * x[0];
  H[0][3] = e + x[0] * x[3] * e;
  H[1][1] = -x[2] * x[2] * s;
  H[1][2] = c - x[1] * x[2] * s;
  H[2][2] = -x[1] * x[1] * s + 6 * x[2] / q;
  H[2][3] = -3 * x[2] * x[2] * 2 * x[3] / (q * q);
  H[3][3] = x[0] * x[0] * e + x[2] * x[2] * x[2] * (6 * x[3] * x[3] - 2) / (q * q * q);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < i; j++) H[i][j] = H[j][i];
}

int main(void) {
  double x[N] = {0.4, -0.7, 1.3, 0.6}, Hs[N][N], Hw[N][N], He[N][N], g[N];
  exact_hessian(x, He);
  for (int j = 0; j < N; j++) {  // column j: H e_j
    double e[N] = {0}, fd[N];
    e[j] = 1.0;
    __enzyme_fwddiff((void *)grad_f, enzyme_dup, x, e, enzyme_dupnoneed, g, Hs[j],
                     enzyme_const, N);
    fd_hvp(grad_f, x, e, fd, N);
    for (int i = 0; i < N; i++) CHECK_CLOSE(Hs[j][i], fd[i], FD_TOL);
  }
  double e0[N] = {1, 0, 0, 0}, e1[N] = {0, 1, 0, 0}, e2[N] = {0, 0, 1, 0},
         e3[N] = {0, 0, 0, 1};
  __enzyme_fwddiff((void *)grad_f, enzyme_width, N, enzyme_dup, x, e0, e1, e2, e3,
                   enzyme_dupnoneed, g, Hw[0], Hw[1], Hw[2], Hw[3], enzyme_const, N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      CHECK_CLOSE(Hs[j][i], He[i][j], 1e-12);
      CHECK_CLOSE(Hw[j][i], Hs[j][i], 1e-14);
      CHECK_CLOSE(Hs[j][i], Hs[i][j], 1e-12);
    }
  printf("OK\n");
  return 0;
}
