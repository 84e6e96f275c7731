// A recursive function (x^n by repeated squaring), differentiated through its recursion.
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

__attribute__((noinline)) double rpow(double x, int n) {
  if (n == 0) return 1.0;
  double half = rpow(x, n / 2);
  return (n % 2) ? half * half * x : half * half;
}

double use_rpow(double x, int n) { return rpow(x, n) + x; }

int main(void) {
  double x = 1.05;
  for (int n = 0; n <= 13; n++)
    APPROX_EQ(__enzyme_autodiff((void *)use_rpow, x, n), n * pow(x, n - 1) + 1.0, 1e-12);
  printf("OK\n");
  return 0;
}
