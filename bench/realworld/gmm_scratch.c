/* Gaussian mixture log-likelihood (ADBench's GMM objective with its Wishart prior),
   written the way a plain C port usually is: the triangular factor applied by
   accumulating into a scratch vector, y[r] += L[idx++] * z[i]. */
#include <math.h>
#include <stdlib.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

static double log_sum_exp(const double *v, int n) {
  double mx = v[0];
  for (int i = 1; i < n; i++) if (v[i] > mx) mx = v[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += exp(v[i] - mx);
  return log(s) + mx;
}

void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, double gamma, int m, double *err) {
  int icf_sz = d * (d + 1) / 2;
  double *xc = malloc(sizeof(double) * d);
  double *qx = malloc(sizeof(double) * d);
  double *main_term = malloc(sizeof(double) * k);
  double *sum_qs = malloc(sizeof(double) * k);
  for (int ik = 0; ik < k; ik++) {
    sum_qs[ik] = 0.0;
    for (int i = 0; i < d; i++) sum_qs[ik] += icf[ik * icf_sz + i];
  }
  double slse = 0.0;
  for (int ix = 0; ix < n; ix++) {
    for (int ik = 0; ik < k; ik++) {
      const double *l = icf + ik * icf_sz;
      for (int j = 0; j < d; j++) xc[j] = x[ix * d + j] - means[ik * d + j];
      for (int i = 0; i < d; i++) qx[i] = exp(l[i]) * xc[i];
      int idx = d;
      for (int i = 0; i < d; i++)
        for (int r = i + 1; r < d; r++) qx[r] += l[idx++] * xc[i];
      double sq = 0.0;
      for (int i = 0; i < d; i++) sq += qx[i] * qx[i];
      main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sq;
    }
    slse += log_sum_exp(main_term, k);
  }
  double lse_alphas = log_sum_exp(alphas, k);
  double prior = 0.0;
  for (int ik = 0; ik < k; ik++) {
    const double *l = icf + ik * icf_sz;
    double fro = 0.0;
    for (int i = 0; i < d; i++) fro += exp(2 * l[i]);
    for (int i = d; i < icf_sz; i++) fro += l[i] * l[i];
    prior += 0.5 * gamma * gamma * fro - m * sum_qs[ik];
  }
  *err = slse - n * lse_alphas + prior;
  free(xc);
  free(qx);
  free(main_term);
  free(sum_qs);
}

static int D, K, NP;
static double *alphas, *means, *icf, *x, *d_alphas, *d_means, *d_icf;
static double *t_alphas, *t_means, *t_icf;
static double err, d_err, t_err;

static void primal(void) { gmm_objective(D, K, NP, alphas, means, icf, x, 1.0, 0, &err); }
static void gradient(void) {
  int icf_sz = D * (D + 1) / 2;
  for (int i = 0; i < K; i++) d_alphas[i] = 0.0;
  for (int i = 0; i < K * D; i++) d_means[i] = 0.0;
  for (int i = 0; i < K * icf_sz; i++) d_icf[i] = 0.0;
  d_err = 1.0;
  __enzyme_autodiff((void *)gmm_objective, enzyme_const, D, enzyme_const, K, enzyme_const, NP,
                    enzyme_dup, alphas, d_alphas, enzyme_dup, means, d_means, enzyme_dup, icf,
                    d_icf, enzyme_const, x, enzyme_const, 1.0, enzyme_const, 0,
                    enzyme_dupnoneed, &err, &d_err);
}
static void forward(void) {
  __enzyme_fwddiff((void *)gmm_objective, enzyme_const, D, enzyme_const, K, enzyme_const, NP,
                   enzyme_dup, alphas, t_alphas, enzyme_dup, means, t_means, enzyme_dup, icf,
                   t_icf, enzyme_const, x, enzyme_const, 1.0, enzyme_const, 0,
                   enzyme_dupnoneed, &err, &t_err);
}
static double objective(void) {
  primal();
  return err;
}
static void verify(void) {
  int icf_sz = D * (D + 1) / 2;
  gradient();
  bench_fd_check("d_alphas", objective, alphas, d_alphas, K, 3, 1e-4);
  bench_fd_check("d_means", objective, means, d_means, K * D, 3, 1e-4);
  bench_fd_check("d_icf", objective, icf, d_icf, K * icf_sz, 5, 1e-4);
  forward();
  bench_dir d[3] = {{alphas, t_alphas, K}, {means, t_means, K * D}, {icf, t_icf, K * icf_sz}};
  bench_fd_check_dir("tangent", objective, d, 3, t_err, 1e-4);
}

int main(int argc, char **argv) {
  D = argc > 1 ? atoi(argv[1]) : 10;
  K = argc > 2 ? atoi(argv[2]) : 25;
  NP = argc > 3 ? atoi(argv[3]) : 1000;
  int icf_sz = D * (D + 1) / 2;
  alphas = malloc(sizeof(double) * K);
  means = malloc(sizeof(double) * K * D);
  icf = malloc(sizeof(double) * K * icf_sz);
  x = malloc(sizeof(double) * NP * D);
  d_alphas = malloc(sizeof(double) * K);
  d_means = malloc(sizeof(double) * K * D);
  d_icf = malloc(sizeof(double) * K * icf_sz);
  t_alphas = malloc(sizeof(double) * K);
  t_means = malloc(sizeof(double) * K * D);
  t_icf = malloc(sizeof(double) * K * icf_sz);
  for (int i = 0; i < K; i++) t_alphas[i] = sin(1.0 + i);
  for (int i = 0; i < K * D; i++) t_means[i] = cos(0.5 * i);
  for (int i = 0; i < K * icf_sz; i++) t_icf[i] = 0.1 * sin(0.3 * i);
  unsigned s = 12345;
  for (int i = 0; i < K; i++) alphas[i] = (s = s * 1103515245u + 12345u) % 1000 / 1000.0;
  for (int i = 0; i < K * D; i++) means[i] = (s = s * 1103515245u + 12345u) % 1000 / 1000.0;
  for (int i = 0; i < K * icf_sz; i++)
    icf[i] = ((s = s * 1103515245u + 12345u) % 1000 / 1000.0 - 0.5) * 0.2;
  for (int i = 0; i < NP * D; i++) x[i] = (s = s * 1103515245u + 12345u) % 1000 / 1000.0;
  char size[48];
  snprintf(size, sizeof size, "d=%d K=%d n=%d", D, K, NP);
  bench_report("gmm_scratch", size, primal, gradient, forward, verify, D >= 64 ? 3 : 7,
               &d_icf[0]);
  return 0;
}
