// A callee returning a value and writing an output it also reads later, plus a local
// array inside the callee: results used nonlinearly by the caller.
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

__attribute__((noinline)) double smooth(double *out, const double *in, int n) {
  double tmp[8];
  double acc = 0.0;
  for (int i = 0; i < n; i++) tmp[i] = in[i] * in[(i + 1) % n];
  for (int i = 0; i < n; i++) {
    out[i] = tmp[i] + 0.5 * out[i] * out[i];
    acc += tmp[i] * out[i];
  }
  return acc;
}

double chain(double *x, double *y, int n) {
  double a = smooth(y, x, n);
  double b = smooth(x, y, n);  // overwrites x, the input of the first call
  return a * b + exp(0.1 * x[0]);
}

static double run(const double *x0, const double *y0, int n) {
  double x[4], y[4];
  memcpy(x, x0, sizeof x);
  memcpy(y, y0, sizeof y);
  return chain(x, y, n);
}

int main(void) {
  enum { N = 4 };
  double x0[N] = {0.3, -0.2, 0.5, 0.1}, y0[N] = {0.2, 0.4, -0.3, 0.6};
  double x[N], y[N], dx[N] = {0}, dy[N] = {0};
  memcpy(x, x0, sizeof x);
  memcpy(y, y0, sizeof y);
  __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
  for (int k = 0; k < N; k++) {
    double h = 1e-6, p[N], m[N];
    memcpy(p, x0, sizeof p);
    memcpy(m, x0, sizeof m);
    p[k] += h;
    m[k] -= h;
    APPROX_EQ(dx[k], (run(p, y0, N) - run(m, y0, N)) / (2 * h), 1e-6);
    memcpy(p, y0, sizeof p);
    memcpy(m, y0, sizeof m);
    p[k] += h;
    m[k] -= h;
    APPROX_EQ(dy[k], (run(x0, p, N) - run(x0, m, N)) / (2 * h), 1e-6);
  }
  printf("OK\n");
  return 0;
}
