// Constant global coefficient tables read by the differentiated code (inactive).
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

static const double coefficients[5] = {1.0, -0.5, 0.25, 2.0, -1.0};
const double global_scale = 1.5;

double series(double x) {
  double s = 0.0, p = 1.0;
  for (int i = 0; i < 5; i++) {
    s += coefficients[i] * p;
    p *= x;
  }
  return global_scale * s;
}

int main(void) {
  double x = 0.6;
  double d = 0.0;
  for (int i = 1; i < 5; i++) d += i * coefficients[i] * pow(x, i - 1);
  APPROX_EQ(__enzyme_autodiff((void *)series, x), global_scale * d, 1e-12);
  printf("OK\n");
  return 0;
}
