// A switch on an integer argument joining several active values in one phi.
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

double choose(int mode, double x) {
  double r;
  switch (mode) {
  case 0: r = x * x; break;
  case 1: r = 1.0 / x; break;
  case 2: r = log(x); break;
  case 3: r = sqrt(x); break;
  default: r = 5.0 * x; break;
  }
  return r * x;
}

int main(void) {
  double x = 1.7;
  double expected[5] = {3 * x * x, 0.0, log(x) + 1.0, 1.5 * sqrt(x), 10.0 * x};
  for (int m = 0; m < 5; m++)
    APPROX_EQ(__enzyme_autodiff((void *)choose, m, x), expected[m], 1e-12);
  printf("OK\n");
  return 0;
}
