// The caller overwrites the callee's input after the call: the callee's reverse must use
// the values it read, not what memory holds when the reverse pass runs.
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

__attribute__((noinline)) double prod_sin(const double *x) { return sin(x[0]) * x[1]; }

double overwrite_after(double *x) {
  double r = prod_sin(x);
  x[0] = 5.0 * x[1];
  x[1] = 0.0;
  return r * r;
}

int main(void) {
  double x0[2] = {0.7, 1.3};
  double x[2], dx[2] = {0.0, 0.0};
  memcpy(x, x0, sizeof x);
  __enzyme_autodiff((void *)overwrite_after, x, dx);
  // r = sin(x0) x1, f = r^2 (the stores are constants wrt the seed: the output x has no
  // seed, and x[1] = 0 kills the adjoint of the old x[1] only after r was computed)
  double r = sin(x0[0]) * x0[1];
  APPROX_EQ(dx[0], 2 * r * cos(x0[0]) * x0[1], 1e-12);
  APPROX_EQ(dx[1], 2 * r * sin(x0[0]), 1e-12);
  APPROX_EQ(x[0], 5.0 * x0[1], 1e-15);
  printf("OK\n");
  return 0;
}
