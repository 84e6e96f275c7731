/* Call site: gradient and tangent of chain_energy (energy.c), whose callee spring()
   lives in libspring.a. Checked against central finite differences and the analytic
   gradient; exits non-zero on a wrong derivative. */
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "springs.h"

static int check(const char *what, double got, double want) {
  double tol = 1e-6 * (1.0 + fabs(want));
  if (!(fabs(got - want) <= tol)) {
    fprintf(stderr, "%s: got %.12g, want %.12g\n", what, got, want);
    return 1;
  }
  return 0;
}

int main(void) {
  double x[N_MASSES] = {0.1, 0.7, 1.9, 2.4, 3.8}, dx[N_MASSES] = {0};
  int bad = 0;
  __enzyme_autodiff((void *)chain_energy, enzyme_dup, x, dx, enzyme_const, N_MASSES);
  for (int i = 0; i < N_MASSES; i++) {
    double h = 1e-6, save = x[i];
    x[i] = save + h;
    double up = chain_energy(x, N_MASSES);
    x[i] = save - h;
    double down = chain_energy(x, N_MASSES);
    x[i] = save;
    char what[32];
    snprintf(what, sizeof what, "d/dx[%d] (fd)", i);
    bad |= check(what, dx[i], (up - down) / (2 * h));
    snprintf(what, sizeof what, "d/dx[%d] (exact)", i);
    bad |= check(what, dx[i], chain_energy_gradient_exact(x, N_MASSES, i));
  }
  double t[N_MASSES] = {1, -2, 0.5, 0, 3}, tangent = 0;
  tangent = __enzyme_fwddiff((void *)chain_energy, enzyme_dup, x, t, enzyme_const, N_MASSES);
  double dot = 0;
  for (int i = 0; i < N_MASSES; i++) dot += dx[i] * t[i];
  bad |= check("forward tangent", tangent, dot);
  if (bad) abort();
  printf("ok energy=%.6f\n", chain_energy(x, N_MASSES));
  return 0;
}
