// Hessian-vector products of a numerically stable log-sum-exp (max shift, a branch and a
// loop): H = diag(p) - p p^T with p = softmax(x).
#include "hvp_check.h"

double logsumexp(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    if (x[i] > m) m = x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}

void grad_logsumexp(const double *x, double *g, int n) {
  memset(g, 0, sizeof(double) * n);
  __enzyme_autodiff((void *)logsumexp, enzyme_dup, x, g, enzyme_const, n);
}

int main(void) {
  enum { N = 5 };
  double x[N] = {0.3, -1.2, 2.0, 0.7, 1.9};
  double p[N], z = 0.0;
  for (int i = 0; i < N; i++) z += exp(x[i]);
  for (int i = 0; i < N; i++) p[i] = exp(x[i]) / z;
  for (int seed = 0; seed < 4; seed++) {
    double v[N], g[N], hv[N], fd[N], pv = 0.0;
    direction(v, N, seed);
    __enzyme_fwddiff((void *)grad_logsumexp, enzyme_dup, x, v, enzyme_dupnoneed, g, hv,
                     enzyme_const, N);
    fd_hvp(grad_logsumexp, x, v, fd, N);
    for (int i = 0; i < N; i++) pv += p[i] * v[i];
    for (int i = 0; i < N; i++) {
      CHECK_CLOSE(hv[i], fd[i], FD_TOL);
      CHECK_CLOSE(hv[i], p[i] * v[i] - p[i] * pv, 1e-12);
    }
  }
  printf("OK\n");
  return 0;
}
