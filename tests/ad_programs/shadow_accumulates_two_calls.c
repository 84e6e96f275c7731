// Two gradient calls into the same shadow add up; a scalar-returning call is seeded with 1.
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

double prod3(const double *x) { return x[0] * x[1] * x[2]; }

int main(void) {
  double x[3] = {2.0, 3.0, -0.5}, dx[3] = {0};
  __enzyme_autodiff((void *)prod3, enzyme_dup, x, dx);
  __enzyme_autodiff((void *)prod3, enzyme_dup, x, dx);
  APPROX_EQ(dx[0], 2.0 * x[1] * x[2], 1e-15);
  APPROX_EQ(dx[1], 2.0 * x[0] * x[2], 1e-15);
  APPROX_EQ(dx[2], 2.0 * x[0] * x[1], 1e-15);
  printf("OK\n");
  return 0;
}
