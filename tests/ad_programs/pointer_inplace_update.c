// An in-place update x[i] = f(x[i]): the shadow maps the output seed to the input adjoint.
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

void square_inplace(double *x, int n) {
  for (int i = 0; i < n; i++) x[i] = x[i] * x[i] + x[(i + 1) % n];
}

int main(void) {
  double x0[3] = {0.5, -1.5, 2.0};
  double x[3], dx[3] = {1.0, 1.0, 1.0};
  memcpy(x, x0, sizeof x);
  __enzyme_autodiff((void *)square_inplace, x, dx, 3);
  // new x0 = x0^2 + x1, new x1 = x1^2 + x2, new x2 = x2^2 + (new x0)
  // adjoints with seed 1 on every output:
  //   d/dx0 = 2 x0 (1 + 1), d/dx1 = 1 + 1 + 2 x1, d/dx2 = 1 + 2 x2
  APPROX_EQ(dx[0], 4.0 * x0[0], 1e-12);
  APPROX_EQ(dx[1], 2.0 + 2.0 * x0[1], 1e-12);
  APPROX_EQ(dx[2], 1.0 + 2.0 * x0[2], 1e-12);
  printf("OK\n");
  return 0;
}
