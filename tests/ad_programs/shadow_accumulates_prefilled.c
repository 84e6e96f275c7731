// Derivatives are added into shadow memory (+=): a shadow pre-filled with 1.0 keeps it.
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

void __enzyme_autodiff(void *, ...);

double cubes(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i];
  return s;
}

int main(void) {
  double x[4] = {0.5, -1.0, 2.0, 1.5};
  double dx[4] = {1.0, 1.0, 1.0, 1.0};
  __enzyme_autodiff((void *)cubes, enzyme_dup, x, dx, 4);
  for (int i = 0; i < 4; i++) APPROX_EQ(dx[i], 1.0 + 3.0 * x[i] * x[i], 1e-12);
  printf("OK\n");
  return 0;
}
