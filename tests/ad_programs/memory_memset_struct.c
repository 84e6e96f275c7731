// memset of a struct accumulator inside the differentiated code; uses the user header's
// void-returning entry point.
#include "enzyme/enzyme.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

typedef struct {
  double sum, sum_sq;
  long count;
  double max_abs;
} Stats;

double variance_like(const double *x, int n) {
  Stats st;
  memset(&st, 0, sizeof st);
  for (int i = 0; i < n; i++) {
    st.sum += x[i];
    st.sum_sq += x[i] * x[i];
    st.count++;
    st.max_abs = fmax(st.max_abs, fabs(x[i]));
  }
  double mean = st.sum / st.count;
  return st.sum_sq / st.count - mean * mean + st.max_abs;
}

int main(void) {
  enum { N = 5 };
  double x[N] = {0.5, -2.5, 1.0, 0.25, 1.5}, dx[N] = {0};
  __enzyme_autodiff_void((void *)variance_like, enzyme_dup, x, dx, N);
  double mean = (0.5 - 2.5 + 1.0 + 0.25 + 1.5) / N;
  for (int i = 0; i < N; i++) {
    double e = 2.0 * x[i] / N - 2.0 * mean / N + (i == 1 ? -1.0 : 0.0);  // |x1| is the max
    APPROX_EQ(dx[i], e, 1e-12);
  }
  printf("OK\n");
  return 0;
}
