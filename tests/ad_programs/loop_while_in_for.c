// A data-dependent while loop nested in a counted for loop.
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

double reduce_each(const double *x, int n) {
  double total = 0.0;
  for (int i = 0; i < n; i++) {
    double v = x[i];
    while (v > 2.0) v = sqrt(v);  // trip count depends on x[i]
    total += v * x[i];
  }
  return total;
}

int main(void) {
  enum { N = 5 };
  double x[N] = {0.5, 3.0, 17.0, 250.0, 1.5}, dx[N] = {0};
  __enzyme_autodiff((void *)reduce_each, enzyme_dup, x, dx, N);
  for (int k = 0; k < N; k++) {
    double xp[N], xm[N], h = 1e-6 * x[k];
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    xp[k] += h;
    xm[k] -= h;
    APPROX_EQ(dx[k], (reduce_each(xp, N) - reduce_each(xm, N)) / (2.0 * h), 1e-6);
  }
  printf("OK\n");
  return 0;
}
