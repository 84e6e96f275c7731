// A selection routine written the way sorting libraries pick a pivot: a helper (not
// inlined) returns a pointer to the median of three elements, the caller merges it with
// another candidate pointer and keeps only its index (p - base). The merged pointer is
// never read through, so it needs no shadow even though the helper's result has none.
// Quickselect then partitions a scratch copy of the data; reverse and forward mode
// against central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

__attribute__((noinline)) static const double *median3(const double *a, const double *b,
                                                       const double *c) {
  if (*a < *b) {
    if (*b < *c) return b;
    return *a < *c ? c : a;
  }
  if (*a < *c) return a;
  return *b < *c ? c : b;
}

static void swap(double *a, double *b) {
  double t = *a;
  *a = *b;
  *b = t;
}

/* the k-th smallest of v[0..n) (v is reordered) */
static double quickselect(double *v, long n, long k) {
  long lo = 0, hi = n - 1;
  while (lo < hi) {
    const double *p = hi - lo < 3 ? v + lo : median3(v + lo, v + (lo + hi) / 2, v + hi);
    long pi = p - v; /* only the index of the pivot is kept */
    swap(v + pi, v + hi);
    long store = lo;
    for (long i = lo; i < hi; i++)
      if (v[i] < v[hi]) swap(v + i, v + store++);
    swap(v + store, v + hi);
    if (store == k) break;
    if (store < k) lo = store + 1;
    else hi = store - 1;
  }
  return v[k];
}

/* a robust scale: the median of squared residuals of a line fit */
double median_squared_residual(const double *theta, const double *t, const double *y,
                               long n) {
  double *r = malloc(sizeof(double) * n);
  for (long i = 0; i < n; i++) {
    double e = y[i] - theta[0] - theta[1] * t[i];
    r[i] = e * e;
  }
  double m = quickselect(r, n, n / 2);
  free(r);
  return m;
}

int main(void) {
  enum { N = 15 };
  double t[N], y[N];
  for (int i = 0; i < N; i++) {
    t[i] = 0.3 * i;
    y[i] = 0.5 + 1.7 * t[i] + 0.4 * sin(3.1 * i) + (i == 6 ? 5.0 : 0.0);
  }
  double theta[2] = {0.3, 1.5}, dtheta[2] = {0.0, 0.0};
  __enzyme_autodiff((void *)median_squared_residual, enzyme_dup, theta, dtheta,
                    enzyme_const, t, enzyme_const, y, enzyme_const, (long)N);
  double fd[2];
  for (int k = 0; k < 2; k++) {
    const double h = 1e-7, keep = theta[k];
    theta[k] = keep + h;
    double up = median_squared_residual(theta, t, y, N);
    theta[k] = keep - h;
    double down = median_squared_residual(theta, t, y, N);
    theta[k] = keep;
    fd[k] = (up - down) / (2 * h);
    APPROX_EQ(dtheta[k], fd[k], 1e-6);
  }
  double dir[2] = {1.0, -0.25};
  double tan = __enzyme_fwddiff((void *)median_squared_residual, enzyme_dup, theta, dir,
                                enzyme_const, t, enzyme_const, y, enzyme_const, (long)N);
  APPROX_EQ(tan, fd[0] * dir[0] + fd[1] * dir[1], 1e-6);
  printf("OK\n");
  return 0;
}
