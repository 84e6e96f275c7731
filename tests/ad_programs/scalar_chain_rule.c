// Composition of functions inlined into one body: the chain rule by hand.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

static inline double inner(double x) { return 3.0 * x * x + 1.0; }
static inline double middle(double u) { return sin(u) * u; }
double outer(double x) { return exp(0.1 * middle(inner(x))); }

int main(void) {
  double x = 0.7;
  double u = inner(x);
  double m = middle(u);
  // d/dx exp(0.1 m(u(x))) = exp(0.1 m) * 0.1 * (cos(u) u + sin(u)) * 6x
  double expected = exp(0.1 * m) * 0.1 * (cos(u) * u + sin(u)) * 6.0 * x;
  APPROX_EQ(__enzyme_autodiff((void *)outer, x), expected, 1e-12);
  printf("OK\n");
  return 0;
}
