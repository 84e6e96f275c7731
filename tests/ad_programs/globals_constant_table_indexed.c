// A constant table read at a run-time index, merged with a pointer to the active input:
// `(T[i] < x[2]) ? x[0] : T[i % 8]` becomes one load through `select(c, x, T + i % 8)`
// once clang folds the two loads. The table's address is computed at run time, so its
// shadow is the same address arithmetic on the table's zero shadow (forward) or sink
// (reverse). Before, reverse mode refused the program and forward mode loaded the tangent
// through a null pointer.
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

static const double T[8] = {0.7, 0.5, -1.4, 0.1, -0.6, -0.9, -0.8, -1.2};
static const double W[2][4] = {{0.25, -0.5, 1.0, 2.0}, {1.5, 0.75, -0.25, 0.5}};

double clipped(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin((T[i % 8] < x[2]) ? x[0] : T[i % 8]) * x[1];
  return s;
}

// a row of a constant 2-D table, or the input itself, chosen per step
double mixed_rows(const double *x, int n, int row) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    const double *w = (x[i % 4] > 0.35) ? &W[row][i % 4] : &x[(i + 1) % 4];
    s += *w * x[i % 4];
  }
  return s;
}

int main(void) {
  double x[4] = {0.3, 0.7, 0.2, 0.45};
  for (int k = 0; k < 4; k++) {
    double h = 1e-6, xp[4], xm[4], t[4] = {0}, dx[4] = {0};
    for (int i = 0; i < 4; i++) xp[i] = xm[i] = x[i];
    xp[k] += h;
    xm[k] -= h;
    t[k] = 1.0;
    __enzyme_autodiff((void *)clipped, enzyme_dup, x, dx, enzyme_const, 11);
    double fd = (clipped(xp, 11) - clipped(xm, 11)) / (2 * h);
    APPROX_EQ(dx[k], fd, 1e-6);
    APPROX_EQ(__enzyme_fwddiff((void *)clipped, enzyme_dup, x, t, enzyme_const, 11), fd, 1e-6);
    for (int row = 0; row < 2; row++) {
      double dr[4] = {0};
      __enzyme_autodiff((void *)mixed_rows, enzyme_dup, x, dr, enzyme_const, 9,
                        enzyme_const, row);
      double fdr = (mixed_rows(xp, 9, row) - mixed_rows(xm, 9, row)) / (2 * h);
      APPROX_EQ(dr[k], fdr, 1e-6);
      APPROX_EQ(__enzyme_fwddiff((void *)mixed_rows, enzyme_dup, x, t, enzyme_const, 9,
                                 enzyme_const, row), fdr, 1e-6);
    }
  }
  printf("OK\n");
  return 0;
}
