// Forward mode through memory: shadow arrays carry the input and output tangents.
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
void __enzyme_fwddiff(void *, ...);

void softmax(const double *x, double *out, int n) {
  double m = x[0], z = 0.0;
  for (int i = 1; i < n; i++) m = x[i] > m ? x[i] : m;
  for (int i = 0; i < n; i++) z += exp(x[i] - m);
  for (int i = 0; i < n; i++) out[i] = exp(x[i] - m) / z;
}

int main(void) {
  enum { N = 4 };
  double x[N] = {0.1, 1.2, -0.4, 0.7}, tx[N] = {1.0, -0.5, 0.25, 2.0};
  double out[N], tout[N] = {0};
  __enzyme_fwddiff((void *)softmax, enzyme_dup, x, tx, enzyme_dup, out, tout, N);
  double s[N];
  softmax(x, s, N);
  double st = 0.0;
  for (int j = 0; j < N; j++) st += s[j] * tx[j];
  for (int i = 0; i < N; i++) APPROX_EQ(tout[i], s[i] * (tx[i] - st), 1e-12);
  printf("OK\n");
  return 0;
}
