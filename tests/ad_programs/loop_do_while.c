// A do-while loop running at least once, with a product accumulator.
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

double power_dowhile(double x, int n) {
  double r = 1.0;
  int i = 0;
  do {
    r *= x;
    i++;
  } while (i < n);
  return r;
}

int main(void) {
  double x = 1.3;
  for (int n = 1; n < 6; n++)
    APPROX_EQ(__enzyme_autodiff((void *)power_dowhile, x, n), n * pow(x, n - 1), 1e-12);
  APPROX_EQ(__enzyme_autodiff((void *)power_dowhile, x, 0), 1.0, 1e-15);  // body runs once
  printf("OK\n");
  return 0;
}
