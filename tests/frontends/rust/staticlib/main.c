/* Gradient (reverse mode) and a directional derivative (forward mode) of the Rust
   staticlib's energy, checked against central differences; prints OK. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double energy(const double *x, size_t n);

#define N 5

int main(void) {
  double x[N] = {0.7, -0.4, 1.1, 0.3, -0.9}, dx[N] = {0}, dir[N], xp[N], xm[N];
  double worst = 0, reverse = 0, h = 1e-6;
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, (size_t)N);
  for (int k = 0; k < N; k++) {
    for (int j = 0; j < N; j++) xp[j] = xm[j] = x[j];
    xp[k] += h;
    xm[k] -= h;
    double fd = (energy(xp, N) - energy(xm, N)) / (2 * h);
    double err = fabs(fd - dx[k]) / fmax(1.0, fabs(fd));
    if (err > worst) worst = err;
    if (fabs(dx[k]) < 1e-6) worst = 1; /* a zero gradient proves nothing */
    dir[k] = sin(0.9 * (k + 1));
    reverse += dx[k] * dir[k];
  }
  double forward = __enzyme_fwddiff((void *)energy, enzyme_dup, x, dir, enzyme_const,
                                    (size_t)N);
  double err = fabs(forward - reverse) / fmax(1.0, fabs(forward));
  if (err > worst) worst = err;
  printf("worst %g forward %.15g reverse %.15g\n", worst, forward, reverse);
  puts(worst < 1e-6 ? "OK" : "MISMATCH");
  return worst < 1e-6 ? 0 : 1;
}
