// Runtime activity: an enzyme_const pointer stored into memory that also holds an active
// pointer (an array of row pointers). The constant row gets a zeroed shadow of its own for
// the call, so the derivative of the active row is exact and the constant one receives
// nothing.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static double sum_rows(const double **rows, int n) {
  double s = 0.0;
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < n; i++) s += rows[r][i] * rows[r][i] * (r + 1);
  return s;
}

double f(double *x, const double *k, int n) {
  const double *rows[2];
  rows[0] = x;
  rows[1] = k;
  return sum_rows(rows, n) + x[0] * k[1];
}

int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0}, k[3] = {4, 5, 6};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, k, enzyme_const, 3);
  APPROX_EQ(dx[0], 2.0 * 1 + 5.0, 1e-12);
  APPROX_EQ(dx[1], 2.0 * 2, 1e-12);
  APPROX_EQ(dx[2], 2.0 * 3, 1e-12);
  APPROX_EQ(k[0] + k[1] + k[2], 15.0, 0);  // untouched
  double t[3] = {1, 0, -1};
  APPROX_EQ(__enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, k, enzyme_const, 3),
            dx[0] - dx[2], 1e-12);
  printf("OK\n");
  return 0;
}
