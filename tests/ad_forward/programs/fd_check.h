/* Shared checks for the forward-mode test programs: central differences computed in the
 * program itself, abort on mismatch. */
#ifndef FD_CHECK_H
#define FD_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_out, enzyme_width,
    enzyme_primal_return;

#define CHECK_CLOSE(got, want, tol)                                                   \
  do {                                                                                \
    double got_ = (got), want_ = (want);                                              \
    if (!(fabs(got_ - want_) <= (tol) * (1.0 + fabs(want_)))) {                       \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %s = %.17g\n", __FILE__, __LINE__, \
              #got, got_, #want, want_);                                              \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

/* central difference of a scalar function of one variable */
static double fd1(double (*f)(double), double x) {
  const double h = 1e-6;
  return (f(x + h) - f(x - h)) / (2 * h);
}

/* directional central difference of f(x, y) along (dx, dy) */
static double fd2(double (*f)(double, double), double x, double y, double dx, double dy) {
  const double h = 1e-6;
  return (f(x + h * dx, y + h * dy) - f(x - h * dx, y - h * dy)) / (2 * h);
}

#define FD_TOL 1e-6
#endif
