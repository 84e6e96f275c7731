// min/max written as comparisons, fmax/fmin, and a ReLU: the derivative follows the picked value.
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

static double relu(double v) { return v > 0.0 ? v : 0.0; }

double clamp_mix(const double *x) {
  double lo = x[0] < x[1] ? x[0] : x[1];
  double hi = fmax(x[2], x[3]);
  double m = fmin(hi, 2.0);
  return lo * m + relu(x[4]) + relu(x[5]);
}

int main(void) {
  double x[6] = {0.5, 1.5, 1.2, 0.7, 3.0, -1.0}, dx[6] = {0};
  __enzyme_autodiff((void *)clamp_mix, enzyme_dup, x, dx);
  // lo = x0, hi = x2 = 1.2, m = 1.2
  APPROX_EQ(dx[0], 1.2, 1e-15);
  APPROX_EQ(dx[1], 0.0, 0.0);
  APPROX_EQ(dx[2], 0.5, 1e-15);
  APPROX_EQ(dx[3], 0.0, 0.0);
  APPROX_EQ(dx[4], 1.0, 0.0);
  APPROX_EQ(dx[5], 0.0, 0.0);
  double y[6] = {2.0, 1.0, 0.1, 5.0, 0.0, 0.0}, dy[6] = {0};
  __enzyme_autodiff((void *)clamp_mix, enzyme_dup, y, dy);
  // lo = y1 = 1, hi = y3 = 5, m = 2 (the constant): no derivative to y3
  APPROX_EQ(dy[1], 2.0, 1e-15);
  APPROX_EQ(dy[3], 0.0, 0.0);
  printf("OK\n");
  return 0;
}
