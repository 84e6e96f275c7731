// Constant tables that meet active pointers: `cond ? C[i] : x[i]`, a pointer that is
// either a table or the active input, handed to a callee or copied. Constant globals
// get a zero shadow (both modes): they contribute nothing, the active data does.
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
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 4
static const double defaults[N] = {1.0, 2.0, 3.0, 4.0};
static const double weights[N] = {0.5, -1.0, 2.0, 0.25};

// per element: the default where the mask bit is set, else the input
double masked_sum_of_squares(const double *x, int n, int mask) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double v = ((mask >> i) & 1) ? defaults[i] : x[i];
    s += v * v;
  }
  return s;
}

__attribute__((noinline)) double weighted(const double *a, const double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += w[i] * a[i] * a[i];
  return s;
}

// the weights are either the constant table or the (active) input itself
double choose_weights(const double *x, int n, int use_table) {
  const double *w = use_table ? weights : x;
  double local[N];
  memcpy(local, use_table ? defaults : x, sizeof local);
  return weighted(x, w, n) + local[0] * local[1];
}

int main(void) {
  double x[N] = {0.5, 1.5, 2.5, 3.5};
  for (int mask = 0; mask < 16; mask += 5) {
    double dx[N] = {0};
    __enzyme_autodiff((void *)masked_sum_of_squares, x, dx, enzyme_const, N, enzyme_const,
                      mask);
    double t[N] = {1.0, 1.0, 1.0, 1.0};
    double dir = __enzyme_fwddiff((void *)masked_sum_of_squares, enzyme_dup, x, t,
                                  enzyme_const, N, enzyme_const, mask);
    double want_dir = 0.0;
    for (int i = 0; i < N; i++) {
      double want = ((mask >> i) & 1) ? 0.0 : 2.0 * x[i];
      APPROX_EQ(dx[i], want, 1e-12);
      want_dir += want;
    }
    APPROX_EQ(dir, want_dir, 1e-12);
  }
  for (int use_table = 0; use_table < 2; use_table++) {
    double dx[N] = {0};
    __enzyme_autodiff((void *)choose_weights, x, dx, enzyme_const, N, enzyme_const,
                      use_table);
    for (int i = 0; i < N; i++) {
      double want = use_table ? 2.0 * weights[i] * x[i] : 3.0 * x[i] * x[i];
      if (!use_table && i == 0) want += x[1];
      if (!use_table && i == 1) want += x[0];
      APPROX_EQ(dx[i], want, 1e-12);
      double e[N] = {0};
      e[i] = 1.0;
      APPROX_EQ(__enzyme_fwddiff((void *)choose_weights, enzyme_dup, x, e, enzyme_const, N,
                                 enzyme_const, use_table), want, 1e-12);
    }
  }
  printf("OK\n");
  return 0;
}
