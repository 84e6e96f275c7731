// A solver that calls its model through a table of function pointers, where the model
// keeps the last state it saw in a global (for its error report) and a global scratch
// copy that it reads: differentiated in forward mode and twice in reverse mode in one
// program. Naming the solver in three __enzyme_* calls once made the module's list of
// differentiated functions hold it three times, and the walk for what they reach then
// stopped before the functions called through pointers: the globals got no shadow and
// irgrad's own output failed LLVM's verifier.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 4
typedef double (*model_fn)(double *y, int n);
static double last_state[16];
static double scratch[16];

__attribute__((noinline)) static double spring_energy(double *y, int n) {
  memcpy(last_state, y, (size_t)n * sizeof(double));
  memcpy(scratch, y, (size_t)n * sizeof(double));
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    e += 0.5 * scratch[i] * scratch[i] + 0.1 * scratch[i] * scratch[(i + 1) % n];
    y[i] *= 0.5;
  }
  if (!isfinite(e)) {
    fprintf(stderr, "spring_energy: non-finite energy at y[0] = %g\n", last_state[0]);
    exit(1);
  }
  return e;
}

__attribute__((noinline)) static double damped_energy(double *y, int n) {
  double e = 0.0;
  for (int i = 0; i < n; i++) e += sin(y[i]) * y[i];
  return e;
}

static model_fn models[2] = {spring_energy, damped_energy};

__attribute__((noinline)) double solve(model_fn *table, double *y, int n, int which) {
  return table[which](y, n);
}

static double energy_at(const double *y0, int which) {
  double y[N];
  memcpy(y, y0, sizeof y);
  return solve(models, y, N, which);
}

static void check(const char *what, double got, double want) {
  if (!(fabs(got - want) <= 1e-6 * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: %.17g, expected %.17g\n", what, got, want);
    exit(1);
  }
}

int main(void) {
  const double y0[N] = {0.4, -1.1, 0.7, 1.3};
  const double h = 1e-6;
  for (int which = 0; which < 2; which++) {
    double grad[N], dir_deriv = 0.0;
    for (int i = 0; i < N; i++) {
      double yp[N], ym[N];
      memcpy(yp, y0, sizeof yp);
      memcpy(ym, y0, sizeof ym);
      yp[i] += h;
      ym[i] -= h;
      grad[i] = (energy_at(yp, which) - energy_at(ym, which)) / (2 * h);
      dir_deriv += grad[i] * (1.0 + i);
    }
    double y[N], dy[N];
    memcpy(y, y0, sizeof y);
    for (int i = 0; i < N; i++) dy[i] = 1.0 + i;
    double t = __enzyme_fwddiff((void *)solve, enzyme_const, models, enzyme_dup, y, dy,
                                enzyme_const, N, enzyme_const, which);
    check("forward", t, dir_deriv);
    for (int round = 0; round < 2; round++) {
      memcpy(y, y0, sizeof y);
      for (int i = 0; i < N; i++) dy[i] = 0.0;
      __enzyme_autodiff((void *)solve, enzyme_const, models, enzyme_dup, y, dy,
                        enzyme_const, N, enzyme_const, which);
      for (int i = 0; i < N; i++) check("reverse", dy[i], grad[i]);
    }
  }
  printf("OK\n");
  return 0;
}
