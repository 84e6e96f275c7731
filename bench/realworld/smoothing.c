/* In-place Gauss-Seidel style smoothing sweeps over a 1-D field, then a quadratic
   misfit: every sweep overwrites the values the next one reads. */
#include <stdlib.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double smooth_misfit(double *u, const double *target, int n, int sweeps) {
  for (int s = 0; s < sweeps; s++)
    for (int i = 1; i < n - 1; i++) u[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
  double m = 0.0;
  for (int i = 0; i < n; i++) m += (u[i] - target[i]) * (u[i] - target[i]);
  return m;
}

static int N, SWEEPS;
static double *U0, *U, *dU, *T, *V0, *TU, tangent;
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
static void forward(void) {
  for (int i = 0; i < N; i++) {
    U[i] = U0[i];
    TU[i] = V0[i];
  }
  tangent = __enzyme_fwddiff((void *)smooth_misfit, enzyme_dup, U, TU, enzyme_const, T,
                             enzyme_const, N, enzyme_const, SWEEPS);
}
static double objective(void) {
  for (int i = 0; i < N; i++) U[i] = U0[i];
  return smooth_misfit(U, T, N, SWEEPS);
}
static void verify(void) {
  gradient();
  bench_fd_check("du0", objective, U0, dU, N, 5, 1e-3);
  forward();
  bench_dir d = {U0, V0, N};
  bench_fd_check_dir("tangent", objective, &d, 1, tangent, 1e-3);
}

int main(int argc, char **argv) {
  N = argc > 1 ? atoi(argv[1]) : 100000;
  SWEEPS = argc > 2 ? atoi(argv[2]) : 10;
  U0 = malloc(sizeof(double) * N);
  U = malloc(sizeof(double) * N);
  dU = malloc(sizeof(double) * N);
  T = malloc(sizeof(double) * N);
  V0 = malloc(sizeof(double) * N);
  TU = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    U0[i] = (i * 7919 % 1000) / 1000.0;
    T[i] = 0.5;
    V0[i] = (i * 31 % 7) / 7.0 - 0.4;
  }
  char size[48];
  snprintf(size, sizeof size, "n=%d sweeps=%d", N, SWEEPS);
  bench_report("smoothing", size, primal, gradient, forward, verify, 11, &dU[N / 2]);
  return 0;
}
