// A value overwritten in every iteration (x = sin(x) + c x): the reverse pass needs each old value.
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
double __enzyme_autodiff(void *, ...);

double iterate(double x, int n) {
  for (int i = 0; i < n; i++) x = sin(x) + 0.3 * x * x;
  return x;
}

int main(void) {
  double x = 0.4;
  int n = 9;
  // expected by the chain rule, iterating forward
  double v = x, d = 1.0;
  for (int i = 0; i < n; i++) {
    d *= cos(v) + 0.6 * v;
    v = sin(v) + 0.3 * v * v;
  }
  APPROX_EQ(__enzyme_autodiff((void *)iterate, enzyme_out, x, n), d, 1e-12);
  printf("OK\n");
  return 0;
}
