// A callee that updates memory in place, called twice on the same array: the second
// call overwrites what the first call's reverse needs (Enzyme's augmented primal + tape).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void square_first(double *x) { x[0] = x[0] * x[0] + x[1]; }

void twice(double *x) {
  square_first(x);
  square_first(x);
  x[1] = x[1] * x[0];
}

int main(void) {
  double x0[2] = {1.5, -0.5}, c[2] = {1.0, 0.25};
  double x[2], dx[2];
  memcpy(x, x0, sizeof x);
  memcpy(dx, c, sizeof dx);
  __enzyme_autodiff((void *)twice, x, dx);
  // the primal effect is kept: x = twice(x0)
  double y[2];
  memcpy(y, x0, sizeof y);
  twice(y);
  APPROX_EQ(x[0], y[0], 1e-15);
  APPROX_EQ(x[1], y[1], 1e-15);
  // dx = J^T c, checked column by column with central differences
  for (int k = 0; k < 2; k++) {
    double xp[2], xm[2], h = 1e-6;
    memcpy(xp, x0, sizeof xp);
    memcpy(xm, x0, sizeof xm);
    xp[k] += h;
    xm[k] -= h;
    twice(xp);
    twice(xm);
    double fd = (c[0] * (xp[0] - xm[0]) + c[1] * (xp[1] - xm[1])) / (2 * h);
    APPROX_EQ(dx[k], fd, 1e-7);
  }
  printf("OK\n");
  return 0;
}
