// SANITIZE: address,undefined
// The spectral norm of the infinite matrix A(i,j) = 1 / ((i+j)(i+j+1)/2 + i + 1 + shift)
// (the Computer Language Benchmarks Game's program) by power iteration, with the vectors
// as C99 variable-length arrays, in the callees as well as in the caller. The derivative
// with respect to the shift is taken in combined reverse mode, in split mode
// (__enzyme_augmentfwd / __enzyme_reverse) of a function whose VLA the reverse pass
// needs, and in forward mode; each is checked against central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
extern int enzyme_const, enzyme_out;

static double eval_A(int i, int j, double shift) {
  return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1 + shift);
}

static void eval_A_times_u(int n, const double u[n], double Au[n], double shift) {
  for (int i = 0; i < n; i++) {
    Au[i] = 0;
    for (int j = 0; j < n; j++) Au[i] += eval_A(i, j, shift) * u[j];
  }
}

static void eval_At_times_u(int n, const double u[n], double Au[n], double shift) {
  for (int i = 0; i < n; i++) {
    Au[i] = 0;
    for (int j = 0; j < n; j++) Au[i] += eval_A(j, i, shift) * u[j];
  }
}

static void eval_AtA_times_u(int n, const double u[n], double AtAu[n], double shift) {
  double v[n];
  eval_A_times_u(n, u, v, shift);
  eval_At_times_u(n, v, AtAu, shift);
}

double spectral_norm(double shift, int n, int iterations) {
  double u[n], v[n];
  for (int i = 0; i < n; i++) u[i] = 1.0;
  for (int k = 0; k < iterations; k++) {
    eval_AtA_times_u(n, u, v, shift);
    eval_AtA_times_u(n, v, u, shift);
  }
  double vBv = 0, vv = 0;
  for (int i = 0; i < n; i++) {
    vBv += u[i] * v[i];
    vv += v[i] * v[i];
  }
  return sqrt(vBv / vv);
}

// a Rayleigh quotient whose scratch vector is a VLA sized at run time
double rayleigh(double shift, int n) {
  double x[n], Ax[n];
  for (int i = 0; i < n; i++) x[i] = 1.0 / (1.0 + i);
  eval_A_times_u(n, x, Ax, shift);
  double num = 0, den = 0;
  for (int i = 0; i < n; i++) {
    num += x[i] * Ax[i];
    den += x[i] * x[i];
  }
  return num / den;
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    abort();
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 40;
  const double shift = 0.25, h = 1e-6;
  double d = __enzyme_autodiff((void *)spectral_norm, enzyme_out, shift, enzyme_const, n,
                               enzyme_const, 10);
  double fd = (spectral_norm(shift + h, n, 10) - spectral_norm(shift - h, n, 10)) / (2 * h);
  check("spectral norm: reverse vs central difference", d, fd, 1e-6);
  double t = __enzyme_fwddiff((void *)spectral_norm, shift, 1.0, enzyme_const, n,
                              enzyme_const, 10);
  check("spectral norm: forward vs reverse", t, d, 1e-10);

  void *tape = __enzyme_augmentfwd((void *)rayleigh, enzyme_out, shift, enzyme_const, n);
  double dr = __enzyme_reverse((void *)rayleigh, enzyme_out, shift, enzyme_const, n, 1.0,
                               tape);
  double fdr = (rayleigh(shift + h, n) - rayleigh(shift - h, n)) / (2 * h);
  check("rayleigh quotient: split reverse vs central difference", dr, fdr, 1e-6);
  double cr = __enzyme_autodiff((void *)rayleigh, enzyme_out, shift, enzyme_const, n);
  check("rayleigh quotient: combined vs split", cr, dr, 1e-12);
  printf("spectral norm %.9f, d/dshift %.9f\nOK\n", spectral_norm(shift, n, 10), d);
  return 0;
}
