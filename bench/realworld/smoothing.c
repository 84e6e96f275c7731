/* In-place Gauss-Seidel style smoothing sweeps over a 1-D field, then a quadratic
   misfit: every sweep overwrites the values the next one reads. */
#include <stdlib.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double smooth_misfit(double *u, const double *target, int n, int sweeps) {
  for (int s = 0; s < sweeps; s++)
    for (int i = 1; i < n - 1; i++) u[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
  double m = 0.0;
  for (int i = 0; i < n; i++) m += (u[i] - target[i]) * (u[i] - target[i]);
  return m;
}

static int N, SWEEPS;
static double *U0, *U, *dU, *T;
static volatile double sink;

static void primal(void) {
  for (int i = 0; i < N; i++) U[i] = U0[i];
  sink = smooth_misfit(U, T, N, SWEEPS);
}
static void gradient(void) {
  for (int i = 0; i < N; i++) {
    U[i] = U0[i];
    dU[i] = 0.0;
  }
  __enzyme_autodiff((void *)smooth_misfit, enzyme_dup, U, dU, enzyme_const, T, enzyme_const, N,
                    enzyme_const, SWEEPS);
}

int main(int argc, char **argv) {
  N = argc > 1 ? atoi(argv[1]) : 100000;
  SWEEPS = argc > 2 ? atoi(argv[2]) : 10;
  U0 = malloc(sizeof(double) * N);
  U = malloc(sizeof(double) * N);
  dU = malloc(sizeof(double) * N);
  T = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    U0[i] = (i * 7919 % 1000) / 1000.0;
    T[i] = 0.5;
  }
  char size[48];
  snprintf(size, sizeof size, "n=%d sweeps=%d", N, SWEEPS);
  bench_report("smoothing", size, primal, gradient, 11, &dU[N / 2]);
  return 0;
}
