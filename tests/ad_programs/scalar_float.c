// Single precision throughout: the derivative of an active float comes back as a float
// (a non-variadic prototype for the entry point, as Enzyme's own float tests use).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_out;
// a prototype, not "...": a float passed through "..." would be promoted to double
float __enzyme_autodiff(void *, int, float);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

float cubic_plus(float x) { return x * x * x + 2.0f * x; }

int main(void) {
  float xs[] = {-1.0f, 0.5f, 2.0f};
  for (int i = 0; i < 3; i++) {
    float d = __enzyme_autodiff((void *)cubic_plus, enzyme_out, xs[i]);
    APPROX_EQ(d, 3.0 * xs[i] * xs[i] + 2.0, 1e-5);
  }
  printf("OK\n");
  return 0;
}
