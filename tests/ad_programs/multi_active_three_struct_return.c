// Three active scalars with a constant one in the middle: the struct holds only actives.
#include "enzyme/enzyme.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  double da, db, dc;
} Grad3;
Grad3 __enzyme_autodiff3(void *, ...);  // entry points are matched by name prefix

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

double energy(double a, double k, double b, double c) {
  return k * (a * b + b * c + c * a) + exp(a - c) / b;
}

int main(void) {
  double a = 0.3, k = 2.5, b = 1.7, c = -0.4;
  Grad3 g = __enzyme_autodiff3((void *)energy, enzyme_out, a, enzyme_const, k, enzyme_out, b,
                               enzyme_out, c);
  double e = exp(a - c);
  APPROX_EQ(g.da, k * (b + c) + e / b, 1e-12);
  APPROX_EQ(g.db, k * (a + c) - e / (b * b), 1e-12);
  APPROX_EQ(g.dc, k * (b + a) - e / b, 1e-12);
  printf("OK\n");
  return 0;
}
