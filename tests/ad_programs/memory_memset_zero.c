// memset zeroing an output buffer, then accumulation into it (the zeroed values have no derivative).
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

void accumulate_pairs(const double *x, double *out, int n) {
  memset(out, 0, sizeof(double) * n);
  for (int i = 0; i < n; i++) {
    out[i] += x[i] * x[i];
    out[(i + 1) % n] += 2.0 * x[i];
  }
}

int main(void) {
  enum { N = 4 };
  double x[N] = {0.5, 1.5, -1.0, 2.0}, dx[N] = {0};
  double out[N] = {9, 9, 9, 9}, dout[N] = {1.0, -1.0, 0.5, 2.0};
  double c[N];
  memcpy(c, dout, sizeof c);
  __enzyme_autodiff((void *)accumulate_pairs, enzyme_dup, x, dx, enzyme_dup, out, dout, N);
  for (int i = 0; i < N; i++) {
    APPROX_EQ(dx[i], c[i] * 2.0 * x[i] + 2.0 * c[(i + 1) % N], 1e-12);
    APPROX_EQ(dout[i], 0.0, 0.0);  // memset overwrote the old contents
  }
  printf("OK\n");
  return 0;
}
