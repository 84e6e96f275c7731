// A reduction the way Eigen's redux is written: an empty vector skips it; otherwise
// a short vector takes a scalar loop and a long one a two-way unrolled loop plus a
// remainder loop, all three leaving through the same block. The data pointer is read
// from the vector struct before the branches, and the vector is released at the end (so
// the pointer read cannot be repeated in the reverse pass: it is taped once, at the
// shared exit). Reverse and forward mode against central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  double *data;
  long n;
} vec;

__attribute__((noinline)) static void vec_release(vec *v) {
  free(v->data);
  v->data = NULL;
  v->n = 0;
}

__attribute__((noinline)) static double sum_squares_and_release(vec *v) {
  long n = v->n;
  double s = 0.0;
  if (n > 0) {
    const double *p = v->data;
    if (n < 4) {
      s = p[0] * p[0];
      for (long i = 1; i < n; i++) s += p[i] * p[i];
    } else {
      double a = 0.0, b = 0.0;
      long i = 0;
      for (; i + 1 < n; i += 2) {
        a += p[i] * p[i];
        b += p[i + 1] * p[i + 1];
      }
      s = a + b;
      for (; i < n; i++) s += p[i] * p[i];
    }
  }
  vec_release(v);
  return s;
}

double energy(const double *x, long n) {
  double total = 0.0;
  for (long len = 0; len <= n; len += 3) {  // lengths 0, 3, 6, 9: every path
    vec v = {malloc((len > 0 ? len : 1) * sizeof(double)), len};
    for (long i = 0; i < len; i++) v.data[i] = sin(x[i]) + 0.5 * x[(i + 1) % n];
    total += (1.0 + 0.1 * len) * sum_squares_and_release(&v);
  }
  return total;
}

int main(void) {
  enum { N = 9 };
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++) x[i] = 0.1 + 0.21 * i - 0.02 * i * i;
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, (long)N);
  for (int k = 0; k < N; k++) {
    double h = 1e-6, xp[N], xm[N], t[N] = {0};
    memcpy(xp, x, sizeof x);
    memcpy(xm, x, sizeof x);
    xp[k] += h;
    xm[k] -= h;
    double fd = (energy(xp, N) - energy(xm, N)) / (2 * h);
    if (!(fabs(dx[k] - fd) <= 1e-6 * (1.0 + fabs(fd)))) {
      fprintf(stderr, "reverse [%d]: %.15g vs %.15g\n", k, dx[k], fd);
      abort();
    }
    t[k] = 1.0;
    double tan = __enzyme_fwddiff((void *)energy, enzyme_dup, x, t, enzyme_const, (long)N);
    if (!(fabs(tan - dx[k]) <= 1e-9 * (1.0 + fabs(dx[k])))) {
      fprintf(stderr, "forward [%d]: %.15g vs %.15g\n", k, tan, dx[k]);
      abort();
    }
  }
  printf("OK\n");
  return 0;
}
