// Unoptimized-IR shapes (ADBench's BA/LSTM/Hand at -O0): a triangular nest reads a[li++]
// with the counter li a local bumped in the inner body, x is an enzyme_const pointer (kept
// in a local %x.addr by clang -O0), a struct is copied by memcpy, and forward mode reads
// through a const pointer kept in a local too.
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
void __enzyme_fwddiff(void *, ...);

typedef struct {
  double scale;
  int id;
  double shift;
} Affine;

static void square_into(const double *in, double *o, int n) {
  for (int i = 0; i < n; i++) o[i] = in[i] * in[i];
}

// out = sum_{col<row<n} a[li++] * x[col] * t.scale + t.shift
void tri(int n, const double *a, const double *x, const Affine *t, double *out) {
  double s = 0.0;
  int li = 0;
  Affine copy = *t;
  for (int col = 0; col < n; col++)
    for (int row = col + 1; row < n; row++) s += a[li++] * x[col];
  *out = s * copy.scale + copy.shift;
}

// out[i] = (w[i] * v[i])^2 + v[i], with the squares copied out of a stack buffer
void fwd(int n, const double *w, const double *v, double *out) {
  double tmp[4], sq[4];
  double *heap = malloc(sizeof(double) * 4);
  for (int i = 0; i < n; i++) tmp[i] = w[i] * v[i];
  square_into(tmp, sq, n);
  memcpy(heap, sq, sizeof sq);
  for (int i = 0; i < n; i++) out[i] = heap[i] + v[i];
  free(heap);
}

int main(void) {
  enum { N = 4 };
  double a[6] = {1, 2, 3, 4, 5, 6}, da[6] = {0}, x[N] = {1, 2, 3, 4};
  Affine t = {2.0, 7, 0.5}, dt = {0.0, 0, 0.0};
  double o, d = 1.0;
  __enzyme_autodiff((void *)tri, enzyme_const, N, enzyme_dup, a, da, enzyme_const, x,
                    enzyme_dup, &t, &dt, enzyme_dupnoneed, &o, &d);
  // a[li] pairs with x[col]: li 0..2 -> col 0, 3..4 -> col 1, 5 -> col 2
  const double want_da[6] = {1, 1, 1, 2, 2, 3};
  double s = 0.0;
  for (int k = 0; k < 6; k++) {
    APPROX_EQ(da[k], want_da[k] * t.scale, 1e-12);
    s += a[k] * want_da[k];
  }
  APPROX_EQ(dt.scale, s, 1e-12);
  APPROX_EQ(dt.shift, 1.0, 1e-12);
  APPROX_EQ(x[0], 1.0, 0.0);  // the constant input is untouched

  double w[N] = {2, 3, 0.5, -1}, v[N] = {1, 2, -1, 0.25}, dv[N] = {1, 0, 1, 1};
  double out[N], dout[N] = {0};
  __enzyme_fwddiff((void *)fwd, enzyme_const, N, enzyme_const, w, enzyme_dup, v, dv,
                   enzyme_dup, out, dout);
  for (int i = 0; i < N; i++)
    APPROX_EQ(dout[i], (2 * w[i] * w[i] * v[i] + 1) * dv[i], 1e-12);
  printf("OK\n");
  return 0;
}
