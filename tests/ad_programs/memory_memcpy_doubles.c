// memcpy of active doubles into a local copy; the adjoint flows back through the copy.
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

double copy_and_square(const double *x, int n) {
  double local[32];
  memcpy(local, x, sizeof(double) * n);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += local[i] * local[i] * (i + 1);
  return s;
}

int main(void) {
  enum { N = 6 };
  double x[N] = {0.5, -1.0, 2.0, 0.1, 0.3, -0.7}, dx[N] = {0};
  __enzyme_autodiff((void *)copy_and_square, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) APPROX_EQ(dx[i], 2.0 * x[i] * (i + 1), 1e-12);
  printf("OK\n");
  return 0;
}
