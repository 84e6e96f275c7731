// Calls kept out of line: the callee is differentiated as a call (augmented + reverse).
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

__attribute__((noinline)) double softplus(double x) { return log1p(exp(x)); }
__attribute__((noinline)) double combine(double a, double b) { return a * b + softplus(a - b); }

double model(double x) { return combine(x, 2.0 * x) + combine(softplus(x), 1.0); }

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

int main(void) {
  double x = 0.35;
  // d combine(a,b) = b da + a db + sigmoid(a-b) (da - db)
  double d1 = 2.0 * x + x * 2.0 + sigmoid(-x) * (1.0 - 2.0);
  double sp = log1p(exp(x));
  double d2 = (1.0 + sigmoid(sp - 1.0)) * sigmoid(x);
  APPROX_EQ(__enzyme_autodiff((void *)model, x), d1 + d2, 1e-12);
  printf("OK\n");
  return 0;
}
