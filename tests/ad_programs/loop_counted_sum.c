// A counted loop accumulating sin(x[i]) * x[i].
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

double sum_sin_x(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin(x[i]) * x[i];
  return s;
}

int main(void) {
  enum { N = 17 };
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++) x[i] = 0.1 * i - 0.8;
  __enzyme_autodiff((void *)sum_sin_x, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) APPROX_EQ(dx[i], cos(x[i]) * x[i] + sin(x[i]), 1e-12);
  printf("OK\n");
  return 0;
}
