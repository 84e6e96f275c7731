/* C11 atomics as a C code accumulates from a parallel loop: a file-scope _Atomic double
   updated with a compound assignment (a compare-and-exchange loop on its bits), an
   atomic_fetch_add of an _Atomic long counter, and atomic_load at the end. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static _Atomic double total_energy;
static _Atomic long evaluations;

double spring_energy(const double *pos, const double *rest, int n, double k) {
  atomic_store(&total_energy, 0.0);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n - 1; i++) {
    double stretch = pos[i + 1] - pos[i] - rest[i];
    total_energy += 0.5 * k * stretch * stretch;
    atomic_fetch_add(&evaluations, 1);
  }
  return atomic_load(&total_energy) + 0.01 * sin(pos[0]);
}

int main(void) {
  enum { N = 10 };
  double x[N], dx[N] = {0}, rest[N], tx[N], drest[N] = {0}, trest[N] = {0};
  int bad = 0;
  for (int i = 0; i < N; i++) {
    x[i] = 1.1 * i + 0.1 * sin(i);
    rest[i] = 1.0;
    tx[i] = cos(0.4 * i);
  }
  __enzyme_autodiff((void *)spring_energy, enzyme_dup, x, dx, enzyme_dup, rest, drest,
                    enzyme_const, N, enzyme_const, 3.0);
  double tan = __enzyme_fwddiff((void *)spring_energy, enzyme_dup, x, tx, enzyme_dup, rest,
                                trest, enzyme_const, N, enzyme_const, 3.0);
  double dir = 0.0;
  for (int i = 0; i < N; i++) {
    double s = x[i], h = 1e-6;
    x[i] = s + h;
    double fp = spring_energy(x, rest, N, 3.0);
    x[i] = s - h;
    double fm = spring_energy(x, rest, N, 3.0);
    x[i] = s;
    double fd = (fp - fm) / (2 * h);
    dir += fd * tx[i];
    if (fabs(fd - dx[i]) > 1e-6 * (1 + fabs(fd))) {
      bad++;
      printf("dx[%d] = %.10g, finite differences %.10g\n", i, dx[i], fd);
    }
  }
  if (fabs(dir - tan) > 1e-6 * (1 + fabs(dir))) {
    bad++;
    printf("tangent %.10g, finite differences %.10g\n", tan, dir);
  }
  printf(bad ? "WRONG\n" : "OK\n");
  return bad != 0;
}
