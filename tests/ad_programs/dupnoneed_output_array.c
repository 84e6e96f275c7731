// enzyme_dupnoneed on an output array; its seeded shadow is consumed (zeroed).
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

void sin_cube(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) out[i] = sin(x[i]) * x[i] * x[i];
}

int main(void) {
  double x[3] = {0.2, -0.7, 1.4}, dx[3] = {0};
  double out[3], dout[3] = {1.0, 2.0, -0.5};
  double seed[3];
  memcpy(seed, dout, sizeof seed);
  __enzyme_autodiff((void *)sin_cube, enzyme_dup, x, dx, enzyme_dupnoneed, out, dout, 3);
  for (int i = 0; i < 3; i++) {
    double d = cos(x[i]) * x[i] * x[i] + 2.0 * x[i] * sin(x[i]);
    APPROX_EQ(dx[i], seed[i] * d, 1e-12);
    // out[i] was overwritten: the result does not depend on its old value
    APPROX_EQ(dout[i], 0.0, 0.0);
  }
  printf("OK\n");
  return 0;
}
