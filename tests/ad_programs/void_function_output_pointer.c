// A void function writing its result through a pointer; the output shadow is the seed.
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

void norm2(const double *x, double *out) { *out = sqrt(x[0] * x[0] + x[1] * x[1]); }

int main(void) {
  double x[2] = {3.0, 4.0}, dx[2] = {0};
  double out = 0.0, dout = 1.0;
  __enzyme_autodiff((void *)norm2, enzyme_dup, x, dx, enzyme_dup, &out, &dout);
  APPROX_EQ(out, 5.0, 1e-15);
  APPROX_EQ(dx[0], 0.6, 1e-15);
  APPROX_EQ(dx[1], 0.8, 1e-15);
  APPROX_EQ(dout, 0.0, 0.0);
  printf("OK\n");
  return 0;
}
