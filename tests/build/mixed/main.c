/* C call site of a Fortran function (physics.f90) whose callee sits in a C++ static
   library (libcxxpoly.a): reverse and forward mode, checked against finite differences. */
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double field_energy(const double *x, const int *n); /* Fortran, bind(c) */

int main(void) {
  int n = 4;
  double x[4] = {0.3, -0.6, 1.1, 0.25}, dx[4] = {0};
  __enzyme_autodiff((void *)field_energy, enzyme_dup, x, dx, enzyme_const, &n);
  double t[4] = {0.5, 1.0, -1.5, 2.0}, dot = 0;
  int bad = 0;
  for (int i = 0; i < n; i++) {
    double h = 1e-6, save = x[i];
    x[i] = save + h;
    double up = field_energy(x, &n);
    x[i] = save - h;
    double down = field_energy(x, &n);
    x[i] = save;
    double fd = (up - down) / (2 * h);
    if (fabs(dx[i] - fd) > 1e-6 * (1 + fabs(fd))) {
      fprintf(stderr, "dx[%d] = %.12g, finite difference %.12g\n", i, dx[i], fd);
      bad = 1;
    }
    dot += dx[i] * t[i];
  }
  double tangent = __enzyme_fwddiff((void *)field_energy, enzyme_dup, x, t, enzyme_const, &n);
  if (fabs(tangent - dot) > 1e-9 * (1 + fabs(dot))) {
    fprintf(stderr, "tangent %.12g, <grad, t> %.12g\n", tangent, dot);
    bad = 1;
  }
  if (bad) abort();
  printf("ok %.6f\n", field_energy(x, &n));
  return 0;
}
