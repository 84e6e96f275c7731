// A buffer grown with realloc while it holds active values.
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

double grow_and_sum(const double *x, int n) {
  int cap = 1, len = 0;
  double *buf = (double *)malloc(sizeof(double) * cap);
  for (int i = 0; i < n; i++) {
    if (len == cap) {
      cap *= 2;
      buf = (double *)realloc(buf, sizeof(double) * cap);
    }
    buf[len++] = exp(x[i]);
  }
  double s = 0.0;
  for (int i = 0; i < len; i++) s += buf[i] * x[(i + 1) % n];
  free(buf);
  return s;
}

int main(void) {
  enum { N = 7 };
  double x[N] = {0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.05}, dx[N] = {0};
  __enzyme_autodiff((void *)grow_and_sum, enzyme_dup, x, dx, N);
  for (int k = 0; k < N; k++) {
    // s = sum_i e^{x_i} x_{i+1}: d/dx_k = e^{x_k} x_{k+1} + e^{x_{k-1}}
    double e = exp(x[k]) * x[(k + 1) % N] + exp(x[(k + N - 1) % N]);
    APPROX_EQ(dx[k], e, 1e-12);
  }
  printf("OK\n");
  return 0;
}
