/* |x| at zero, where it has no derivative: irgrad takes the one-sided derivative its sign
   bit names, +1 at +0.0 and -1 at -0.0 (Enzyme's convention), the same in both modes and
   whether the compiler writes fabs as a call, the intrinsic or a mask of the bits. The
   case that meets it in practice: a total-variation penalty on a signal with flat runs,
   where x[i+1] - x[i] is exactly +0.0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static void expect(double got, double want, const char *what) {
  if (got != want) {
    fprintf(stderr, "%s = %.17g, expected %.17g\n", what, got, want);
    abort();
  }
}

double magnitude(double x) { return fabs(x); }

double total_variation(const double *x, int n) {
  double tv = 0.0;
  for (int i = 0; i + 1 < n; i++) tv += fabs(x[i + 1] - x[i]);
  return tv;
}

int main(void) {
  expect(__enzyme_autodiff((void *)magnitude, 0.0), 1.0, "d|x| at +0");
  expect(__enzyme_autodiff((void *)magnitude, -0.0), -1.0, "d|x| at -0");
  expect(__enzyme_autodiff((void *)magnitude, -2.5), -1.0, "d|x| at -2.5");
  expect(__enzyme_fwddiff((void *)magnitude, 0.0, 1.0), 1.0, "tangent at +0");
  expect(__enzyme_fwddiff((void *)magnitude, -0.0, 1.0), -1.0, "tangent at -0");

  enum { N = 6 };
  double x[N] = {1.0, 1.0, 2.0, 2.0, 0.5, 0.5}, dx[N] = {0};
  __enzyme_autodiff((void *)total_variation, enzyme_dup, x, dx, enzyme_const, N);
  /* differences: +0, +1, +0, -1.5, +0: each +0 counts as +1 */
  const double want[N] = {-1.0, 0.0, 0.0, 2.0, -2.0, 1.0};
  for (int i = 0; i < N; i++) expect(dx[i], want[i], "d total_variation");
  double v[N] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, tx[N];
  double dot = 0.0;
  for (int i = 0; i < N; i++) dot += want[i] * v[i];
  for (int i = 0; i < N; i++) tx[i] = v[i];
  double tan = __enzyme_fwddiff((void *)total_variation, enzyme_dup, x, tx, enzyme_const, N);
  if (fabs(tan - dot) > 1e-12) {
    fprintf(stderr, "tangent %.17g, expected %.17g\n", tan, dot);
    abort();
  }
  printf("OK\n");
  return 0;
}
