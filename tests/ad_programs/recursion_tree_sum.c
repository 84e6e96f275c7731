// Divide-and-conquer recursion over an array with a pointer argument.
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

__attribute__((noinline)) double tree_sum(const double *x, int lo, int hi) {
  if (hi - lo == 1) return x[lo] * x[lo];
  int mid = (lo + hi) / 2;
  double left = tree_sum(x, lo, mid);
  double right = tree_sum(x, mid, hi);
  return left + right + 0.1 * left * right;
}

double root(const double *x, int n) { return tree_sum(x, 0, n); }

int main(void) {
  enum { N = 6 };
  double x[N] = {0.5, -0.3, 0.8, 1.1, -0.6, 0.2}, dx[N] = {0};
  __enzyme_autodiff((void *)root, enzyme_dup, x, dx, N);
  for (int k = 0; k < N; k++) {
    double xp[N], xm[N], h = 1e-6;
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    xp[k] += h;
    xm[k] -= h;
    APPROX_EQ(dx[k], (root(xp, N) - root(xm, N)) / (2 * h), 1e-7);
  }
  printf("OK\n");
  return 0;
}
