/* Vector forward mode (enzyme_width 2) through a noinline helper that fills a struct on
   the caller's stack, next to a heap scratch buffer: the two tangent lanes of a scalar
   argument are taken apart for the helper's derivative before it is called (found by the
   differential fuzzer: the lanes were extracted after the call, and LLVM's verifier
   rejected the module at -O1..-O3). Checked against central differences per lane. */
#include "check.h"

extern int enzyme_width, enzyme_dup, enzyme_const;
typedef struct { double d[2]; } Lanes;
Lanes __enzyme_fwddiff(void *, ...);

struct Cell { double a, b; int k; };

static __attribute__((noinline)) void fill(struct Cell *c, double u) {
  u *= cos(u);
  c->a = u;
  c->b = u * u;
  c->k = 3;
}

double energy(double a, const double *w, int n, double *y) {
  struct Cell c = {0, 0, 0};
  fill(&c, w[2]);
  double *h = malloc(n * sizeof(double));
  for (int q = 0; q < n; q++) h[q] = 0.5 * c.a + q * c.b;
  double s = 0;
  for (int q = 0; q < n; q++) s += h[q] * a;
  y[0] = s;
  free(h);
  return s + c.k;
}

static double at(double a, const double *w) {
  double y[1];
  return energy(a, w, 4, y);
}

int main(void) {
  double a = 1.3, w[3] = {0.1, 0.2, 0.3}, y[1], dy0[1], dy1[1];
  double dw0[3] = {0, 0, 1}, dw1[3] = {0, 0, 0};
  /* lane 0: d/dw[2] + d/da; lane 1: 2 d/da */
  Lanes r = __enzyme_fwddiff((void *)energy, enzyme_width, 2, a, 1.0, 2.0, enzyme_dup, w, dw0,
                             dw1, enzyme_const, 4, enzyme_dup, y, dy0, dy1);
  const double h = 1e-6;
  double wp[3] = {0.1, 0.2, 0.3 + h}, wm[3] = {0.1, 0.2, 0.3 - h};
  double d_w = (at(a, wp) - at(a, wm)) / (2 * h);
  double d_a = (at(a + h, w) - at(a - h, w)) / (2 * h);
  CHECK(r.d[0], d_w + d_a, 1e-7);
  CHECK(r.d[1], 2 * d_a, 1e-7);
  CHECK(dy0[0], d_w + d_a, 1e-7);
  printf("OK\n");
  return 0;
}
