// Recursion through memory: each level updates the array in place and recurses, so a
// level's reverse needs values that deeper levels overwrote.
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

__attribute__((noinline)) void rec_update(double *x, int n) {
  if (n == 0) return;
  x[0] = sin(x[0]) * x[1] + 0.5 * x[0];
  x[1] = x[1] * x[0];
  rec_update(x, n - 1);
  x[0] = x[0] * x[0] - x[1];
}

double rec_root(double *x, int n) {
  rec_update(x, n);
  return x[0] + 2.0 * x[1];
}

static double run(const double *x0, int n) {
  double x[2] = {x0[0], x0[1]};
  return rec_root(x, n);
}

int main(void) {
  for (int n = 0; n < 5; n++) {
    double x0[2] = {0.3, 0.8};
    double x[2] = {x0[0], x0[1]}, dx[2] = {0, 0};
    __enzyme_autodiff((void *)rec_root, enzyme_dup, x, dx, enzyme_const, n);
    for (int k = 0; k < 2; k++) {
      double h = 1e-6, p[2] = {x0[0], x0[1]}, m[2] = {x0[0], x0[1]};
      p[k] += h;
      m[k] -= h;
      APPROX_EQ(dx[k], (run(p, n) - run(m, n)) / (2 * h), 1e-6);
    }
  }
  printf("OK\n");
  return 0;
}
