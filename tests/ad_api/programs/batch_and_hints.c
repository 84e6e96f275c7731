// __enzyme_batch (enzyme_vector / enzyme_scalar / enzyme_buffer), and Enzyme's in-code
// hints: __enzyme_ignore_derivatives (a stop-gradient, both modes) and the type hints
// __enzyme_double / __enzyme_integer (what memory holds; no effect on the numbers).
#include <string.h>

#include "check.h"

extern int enzyme_width, enzyme_vector, enzyme_scalar, enzyme_buffer, enzyme_const,
    enzyme_dup, enzyme_out;
typedef struct { double v[3]; } Three;
Three __enzyme_batch(void *, ...);
void __enzyme_batch_void(void *, ...);
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double __enzyme_ignore_derivatives(double);
void __enzyme_double(void *, long);
void __enzyme_integer(void *, long);

static double poly(double x, double c, int n) {
  double s = 0, p = 1;
  for (int i = 0; i <= n; i++) {
    s += c * p;
    p *= x;
  }
  return s;  // c (1 + x + ... + x^n)
}

// fills out[0..n) with the partial sums of a[i] * scale
static void partial_sums(const double *a, double *out, int n, double scale) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += a[i] * scale;
    out[i] = s;
  }
}

// a Newton-like step whose step size is held fixed for differentiation
static double damped(double x) {
  double step = __enzyme_ignore_derivatives(0.5 / (1.0 + x * x));
  return x - step * (x * x - 2.0);
}
// d/dx with the step treated as a constant: 1 - step * 2x

// packs doubles and an integer count into one byte buffer (a type hint says which is
// which)
static double packed_sum(const double *x, int n) {
  unsigned char buf[8 * 8 + 8];
  __enzyme_double(buf, 64);
  __enzyme_integer(buf + 64, 8);
  memcpy(buf, x, sizeof(double) * n);
  long count = n;
  memcpy(buf + 64, &count, sizeof count);
  double s = 0;
  for (long i = 0; i < count; i++) {
    double v;
    memcpy(&v, buf + 8 * i, sizeof v);
    s += v * v;
  }
  return s;
}

int main(void) {
  // three evaluations of poly at different x, one shared coefficient and degree
  Three r = __enzyme_batch((void *)poly, enzyme_width, 3, enzyme_vector, 0.5, -1.0, 2.0,
                           enzyme_scalar, 3.0, enzyme_scalar, 4);
  CHECK(r.v[0], poly(0.5, 3.0, 4), 1e-15);
  CHECK(r.v[1], poly(-1.0, 3.0, 4), 1e-15);
  CHECK(r.v[2], poly(2.0, 3.0, 4), 1e-15);
  // buffers: lane k reads a + k*4 doubles and writes out + k*4 doubles
  double a[3][4] = {{1, 2, 3, 4}, {-1, 0, 1, 0}, {0.5, 0.5, 0.5, 0.5}}, out[3][4];
  __enzyme_batch_void((void *)partial_sums, enzyme_width, 3, enzyme_buffer,
                      sizeof(double) * 4, a, enzyme_buffer, sizeof(double) * 4, out,
                      enzyme_scalar, 4, enzyme_vector, 1.0, 2.0, 10.0);
  const double scales[3] = {1.0, 2.0, 10.0};
  for (int k = 0; k < 3; k++) {
    double s = 0;
    for (int i = 0; i < 4; i++) {
      s += a[k][i] * scales[k];
      CHECK(out[k][i], s, 1e-15);
    }
  }

  const double x = 1.3, step = 0.5 / (1.0 + x * x);
  CHECK(__enzyme_autodiff((void *)damped, x), 1 - step * 2 * x, 1e-14);
  CHECK(__enzyme_fwddiff((void *)damped, x, 1.0), 1 - step * 2 * x, 1e-14);
  CHECK(damped(x), x - step * (x * x - 2.0), 1e-15);

  double xs[5] = {0.5, -1.5, 2.0, 0.25, 1.0}, dxs[5] = {0};
  __enzyme_autodiff((void *)packed_sum, enzyme_dup, xs, dxs, enzyme_const, 5);
  double ts[5] = {1, 1, 1, 1, 1};
  double t = __enzyme_fwddiff((void *)packed_sum, enzyme_dup, xs, ts, enzyme_const, 5);
  double want_t = 0;
  for (int i = 0; i < 5; i++) {
    CHECK(dxs[i], 2 * xs[i], 1e-14);
    want_t += 2 * xs[i];
  }
  CHECK(t, want_t, 1e-14);
  printf("OK\n");
  return 0;
}
