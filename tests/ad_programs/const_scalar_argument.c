// enzyme_const on a double: it is not differentiated and gets no slot in the result.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

double gaussian(double mu, double x, double sigma) {
  double z = (x - mu) / sigma;
  return exp(-0.5 * z * z) / sigma;
}

int main(void) {
  double mu = 0.2, x = 1.1, sigma = 0.7;
  double d = __enzyme_autodiff((void *)gaussian, enzyme_const, mu, enzyme_out, x, enzyme_const,
                               sigma);
  double z = (x - mu) / sigma;
  APPROX_EQ(d, -z / sigma * exp(-0.5 * z * z) / sigma, 1e-12);
  double dmu = __enzyme_autodiff((void *)gaussian, enzyme_out, mu, enzyme_const, x, enzyme_const,
                                 sigma);
  APPROX_EQ(dmu, -d, 1e-12);
  printf("OK\n");
  return 0;
}
