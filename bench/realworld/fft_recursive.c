/* Recursive radix-2 Cooley-Tukey FFT that mallocs its even and odd halves at each level;
   the loss is the spectrum's energy weighted by frequency. */
#include <math.h>
#include <stdlib.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static void fft(double *re, double *im, int n) {
  if (n == 1) return;
  int h = n / 2;
  double *er = malloc(sizeof(double) * h), *ei = malloc(sizeof(double) * h);
  double *or_ = malloc(sizeof(double) * h), *oi = malloc(sizeof(double) * h);
  for (int k = 0; k < h; k++) {
    er[k] = re[2 * k];
    ei[k] = im[2 * k];
    or_[k] = re[2 * k + 1];
    oi[k] = im[2 * k + 1];
  }
  fft(er, ei, h);
  fft(or_, oi, h);
  for (int k = 0; k < h; k++) {
    double c = cos(-2 * M_PI * k / n), s = sin(-2 * M_PI * k / n);
    double tr = c * or_[k] - s * oi[k], ti = s * or_[k] + c * oi[k];
    re[k] = er[k] + tr;
    im[k] = ei[k] + ti;
    re[k + h] = er[k] - tr;
    im[k + h] = ei[k] - ti;
  }
  free(er);
  free(ei);
  free(or_);
  free(oi);
}

double spectral_loss(const double *x, double *re, double *im, int n) {
  for (int i = 0; i < n; i++) {
    re[i] = x[i];
    im[i] = 0.0;
  }
  fft(re, im, n);
  double s = 0.0;
  for (int k = 0; k < n; k++) s += (1.0 + k) * (re[k] * re[k] + im[k] * im[k]);
  return s / n;
}

static int N;
static double *X, *dX, *RE, *dRE, *IM, *dIM, *TX, tangent;
static volatile double sink;

static void primal(void) { sink = spectral_loss(X, RE, IM, N); }
static void gradient(void) {
  for (int i = 0; i < N; i++) dX[i] = dRE[i] = dIM[i] = 0.0;
  __enzyme_autodiff((void *)spectral_loss, enzyme_dup, X, dX, enzyme_dup, RE, dRE,
                    enzyme_dup, IM, dIM, enzyme_const, N);
}
static void forward(void) {
  tangent = __enzyme_fwddiff((void *)spectral_loss, enzyme_dup, X, TX, enzyme_dup, RE, dRE,
                             enzyme_dup, IM, dIM, enzyme_const, N);
}
static double objective(void) { return spectral_loss(X, RE, IM, N); }
static void verify(void) {
  gradient();
  bench_fd_check("dx", objective, X, dX, N, 5, 1e-4);
  forward();
  bench_dir d = {X, TX, N};
  bench_fd_check_dir("tangent", objective, &d, 1, tangent, 1e-4);
}

int main(int argc, char **argv) {
  N = argc > 1 ? atoi(argv[1]) : 16384;
  X = malloc(sizeof(double) * N);
  dX = malloc(sizeof(double) * N);
  RE = malloc(sizeof(double) * N);
  dRE = malloc(sizeof(double) * N);
  IM = malloc(sizeof(double) * N);
  TX = malloc(sizeof(double) * N);
  dIM = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    X[i] = sin(0.37 * i) + 0.1 * cos(1.3 * i);
    TX[i] = cos(0.11 * i);
  }
  char size[32];
  snprintf(size, sizeof size, "n=%d", N);
  bench_report("fft_recursive", size, primal, gradient, forward, verify, 11, &dX[1]);
  return 0;
}
