/* Determinant by recursive Laplace expansion along the first row, the way a textbook
   writes it: each level mallocs the minor it passes down. */
#include <math.h>
#include <stdlib.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double det(const double *a, int n) {
  if (n == 1) return a[0];
  if (n == 2) return a[0] * a[3] - a[1] * a[2];
  double *minor = malloc(sizeof(double) * (n - 1) * (n - 1));
  double sum = 0.0, sign = 1.0;
  for (int c = 0; c < n; c++) {
    for (int i = 1; i < n; i++) {
      int k = 0;
      for (int j = 0; j < n; j++)
        if (j != c) minor[(i - 1) * (n - 1) + k++] = a[i * n + j];
    }
    sum += sign * a[c] * det(minor, n - 1);
    sign = -sign;
  }
  free(minor);
  return sum;
}

static int N;
static double *A, *dA, *TA, tangent;
static volatile double sink;

static void primal(void) { sink = det(A, N); }
static void gradient(void) {
  for (int i = 0; i < N * N; i++) dA[i] = 0.0;
  __enzyme_autodiff((void *)det, enzyme_dup, A, dA, enzyme_const, N);
}
static void forward(void) {
  tangent = __enzyme_fwddiff((void *)det, enzyme_dup, A, TA, enzyme_const, N);
}
static double objective(void) { return det(A, N); }
static void verify(void) {
  gradient();
  bench_fd_check("dA", objective, A, dA, N * N, 5, 1e-4);
  forward();
  bench_dir d = {A, TA, N * N};
  bench_fd_check_dir("tangent", objective, &d, 1, tangent, 1e-4);
}

int main(int argc, char **argv) {
  N = argc > 1 ? atoi(argv[1]) : 8;
  A = malloc(sizeof(double) * N * N);
  dA = malloc(sizeof(double) * N * N);
  TA = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N * N; i++) {
    A[i] = 1.0 / (1 + i) + (i % (N + 1) == 0);
    TA[i] = cos(0.7 * i);
  }
  char size[32];
  snprintf(size, sizeof size, "%dx%d", N, N);
  /* d det / d a00 is the (0,0) cofactor */
  bench_report("det_laplace", size, primal, gradient, forward, verify, N >= 9 ? 5 : 11,
               &dA[0]);
  return 0;
}
