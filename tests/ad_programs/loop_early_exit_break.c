// A loop left early by a data-dependent break.
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

double sum_until_large(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    if (s > 4.0) break;
  }
  return s;
}

int main(void) {
  double x[6] = {0.5, 1.0, 1.5, 1.2, 0.3, 0.7}, dx[6] = {0};
  __enzyme_autodiff((void *)sum_until_large, enzyme_dup, x, dx, 6);
  // 0.25 + 1 + 2.25 = 3.5, + 1.44 = 4.94 > 4: the first four elements are summed
  for (int i = 0; i < 6; i++) APPROX_EQ(dx[i], i < 4 ? 2.0 * x[i] : 0.0, 1e-12);
  printf("OK\n");
  return 0;
}
