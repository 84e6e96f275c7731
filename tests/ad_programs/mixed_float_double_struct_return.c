// A float and a double active argument: the result struct mixes float and double fields.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  float da;
  double db;
} GradFD;
GradFD __enzyme_autodiff(void *, float, double);  // a prototype keeps the float a float

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

double mixed(float a, double b) {
  float sq = a * a;          // float arithmetic
  double wide = (double)sq;  // fpext
  return wide * b + (double)(a * 3.0f) * b * b;
}

int main(void) {
  float a = 1.25f;
  double b = -0.75;
  GradFD g = __enzyme_autodiff((void *)mixed, a, b);
  APPROX_EQ(g.da, 2.0 * a * b + 3.0 * b * b, 1e-6);
  APPROX_EQ(g.db, (double)(a * a) + 2.0 * 3.0 * a * b, 1e-12);
  printf("OK\n");
  return 0;
}
