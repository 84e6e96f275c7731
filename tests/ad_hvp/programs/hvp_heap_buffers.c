// Hessian-vector products of objectives that work in heap buffers the way C code does:
// a buffer computed, copied into a second one and never freed (the arena style); a
// buffer replaced by a bigger copy (malloc, copy, free the old one, keep the new); the
// same grown with realloc in a non-inlined helper of a {data, len} struct. The inner
// gradient keeps the buffers' shadows on its tape; the outer forward pass must mirror
// the tape's bookkeeping (its stack pointer) in the shadow tape, or the pointers read
// back in the reverse part come from the wrong slots.
#include "hvp_check.h"

typedef struct {
  double *d;
  int n;
} vec;

__attribute__((noinline)) static void vec_init(vec *v, int n) {
  v->d = malloc(n * sizeof(double));
  v->n = n;
}
__attribute__((noinline)) static void vec_grow(vec *v, int n) {
  v->d = realloc(v->d, n * sizeof(double));
  v->n = n;
}

static double copied(const double *x, int n) {
  double *d = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) d[i] = sin(x[i]) * x[i];
  double *d2 = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) d2[i] = d[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += d2[i] * d2[(i + 1) % n];
  return s; /* both buffers leak on purpose: an arena would release them */
}

static double swapped(const double *x, int n) {
  double *d = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) d[i] = sin(x[i]) * x[i];
  double *d2 = malloc(2 * n * sizeof(double));
  for (int i = 0; i < n; i++) d2[i] = d[i];
  free(d);
  d = d2;
  for (int i = 0; i < n; i++) d[n + i] = d[i] * d[(i + 1) % n];
  double s = 0.0;
  for (int i = 0; i < 2 * n; i++) s += d[i] * d[i];
  free(d);
  return s;
}

static double grown(const double *x, int n) {
  vec v;
  vec_init(&v, n);
  for (int i = 0; i < n; i++) v.d[i] = cos(x[i]) * x[i];
  vec_grow(&v, 2 * n);
  for (int i = 0; i < n; i++) v.d[n + i] = v.d[i] * v.d[(i + 1) % n];
  double s = 0.0;
  for (int i = 0; i < v.n; i++) s += v.d[i] * v.d[i];
  free(v.d);
  return s;
}

static void grad_copied(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0.0;
  __enzyme_autodiff((void *)copied, enzyme_dup, x, g, enzyme_const, n);
}
static void grad_swapped(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0.0;
  __enzyme_autodiff((void *)swapped, enzyme_dup, x, g, enzyme_const, n);
}
static void grad_grown(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0.0;
  __enzyme_autodiff((void *)grown, enzyme_dup, x, g, enzyme_const, n);
}

#define CHECK_HVP(grad)                                                               \
  do {                                                                                \
    for (int seed = 0; seed < 3; seed++) {                                            \
      double v[N], g[N], hv[N], fd[N];                                                \
      direction(v, N, seed);                                                          \
      __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, \
                       N);                                                            \
      fd_hvp(grad, x, v, fd, N);                                                      \
      for (int i = 0; i < N; i++) CHECK_CLOSE(hv[i], fd[i], FD_TOL);                  \
    }                                                                                 \
  } while (0)

int main(void) {
  enum { N = 5 };
  double x[N] = {0.5, -0.3, 1.2, 0.8, -1.1};
  CHECK_HVP(grad_copied);
  CHECK_HVP(grad_swapped);
  CHECK_HVP(grad_grown);
  printf("OK\n");
  return 0;
}
