/* BLAS's index routines (i?amax; OpenBLAS's i?amin) in differentiated code: they return
 * the position of the element of largest (smallest) magnitude of an array they only read,
 * so they carry no derivative and the derivative flows through the element picked.
 * CBLAS (0-based) and Fortran (1-based), double, float and complex, reverse and forward
 * mode, against the hand-derived derivative. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
extern void __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);

int idamax_(const int *n, const double *x, const int *incx);
int isamin_(const int *n, const float *x, const int *incx);

#define N 5
static int failures = 0;

static void expect(const char *what, double got, double want) {
  if (fabs(got - want) > 1e-6 * (1.0 + fabs(want))) {
    printf("MISMATCH %s: got %.17g want %.17g\n", what, got, want);
    failures++;
  }
}

/* x[imax]^2 + 3 x[imin] */
static double cblas_pick(const double *x, int n) {
  size_t hi = cblas_idamax(n, x, 1), lo = cblas_idamin(n, x, 1);
  return x[hi] * x[hi] + 3.0 * x[lo];
}
static double cblas_pickf(const float *x, int n) {
  size_t hi = cblas_isamax(n, x, 1), lo = cblas_isamin(n, x, 1);
  return (double)(x[hi] * x[hi] + 3.0f * x[lo]);
}
static double fortran_pick(const double *x, int n) {
  int one = 1, hi = idamax_(&n, x, &one) - 1;
  return x[hi] * x[hi];
}
static double fortran_pickf(const float *x, int n) {
  int one = 1, lo = isamin_(&n, x, &one) - 1;
  return (double)(5.0f * x[lo]);
}
/* |z_k|^2 of the complex element of largest |re| + |im| */
static double complex_pick(const double *z, int n) {
  size_t k = cblas_izamax(n, z, 1);
  return z[2 * k] * z[2 * k] + z[2 * k + 1] * z[2 * k + 1];
}

int main(void) {
  double x[N] = {1.0, -5.0, 3.0, 0.25, 2.0}, dx[N] = {0}, t[N] = {0};
  float xf[N] = {1.0f, -5.0f, 3.0f, 0.25f, 2.0f}, dxf[N] = {0}, tf[N] = {0};
  double z[2 * N] = {1, 1, -2, 0.5, 0.1, 0.1, 3, -1, 0, 0}, dz[2 * N] = {0}, tz[2 * N] = {0};

  __enzyme_autodiff((void *)cblas_pick, enzyme_dup, x, dx, enzyme_const, N);
  expect("cblas_idamax/idamin reverse d/dx1", dx[1], -10.0);
  expect("cblas_idamax/idamin reverse d/dx3", dx[3], 3.0);
  expect("cblas_idamax/idamin reverse d/dx0", dx[0], 0.0);
  t[1] = 1.0;
  t[3] = 2.0;
  expect("cblas_idamax/idamin forward",
         __enzyme_fwddiff((void *)cblas_pick, enzyme_dup, x, t, enzyme_const, N), -4.0);

  __enzyme_autodiff((void *)cblas_pickf, enzyme_dup, xf, dxf, enzyme_const, N);
  expect("cblas_isamax/isamin reverse d/dx1", dxf[1], -10.0);
  expect("cblas_isamax/isamin reverse d/dx3", dxf[3], 3.0);
  tf[1] = 1.0f;
  expect("cblas_isamax/isamin forward",
         __enzyme_fwddiff((void *)cblas_pickf, enzyme_dup, xf, tf, enzyme_const, N), -10.0);

  for (int i = 0; i < N; i++) dx[i] = dxf[i] = 0;
  __enzyme_autodiff((void *)fortran_pick, enzyme_dup, x, dx, enzyme_const, N);
  expect("idamax_ reverse", dx[1], -10.0);
  __enzyme_autodiff((void *)fortran_pickf, enzyme_dup, xf, dxf, enzyme_const, N);
  expect("isamin_ reverse", dxf[3], 5.0);
  expect("idamax_ forward",
         __enzyme_fwddiff((void *)fortran_pick, enzyme_dup, x, t, enzyme_const, N), -10.0);

  __enzyme_autodiff((void *)complex_pick, enzyme_dup, z, dz, enzyme_const, N);
  expect("cblas_izamax reverse re", dz[6], 6.0);
  expect("cblas_izamax reverse im", dz[7], -2.0);
  tz[6] = 1.0;
  tz[7] = 1.0;
  expect("cblas_izamax forward",
         __enzyme_fwddiff((void *)complex_pick, enzyme_dup, z, tz, enzyme_const, N), 4.0);
  if (failures) return 1;
  printf("OK\n");
  return 0;
}
