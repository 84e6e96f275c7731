// Buffers aligned by hand, the way Eigen's handmade_aligned_malloc and many SIMD codes do
// it when malloc's alignment is not enough: over-allocate, round the address up with
// integer arithmetic (uintptr_t masks), keep the original pointer just below the aligned
// block for the matching free. The aligned pointer is computed in an integer, so its
// shadow is the same arithmetic on the shadow block's address; called out of line, the
// allocator's result gets its shadow from the allocator's derivative. Reverse and forward
// mode against central differences.
// SANITIZE: address,undefined
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { ALIGN = 64 };

static inline double *aligned_malloc(size_t n) {
  void *original = malloc(n * sizeof(double) + ALIGN);
  if (!original) abort();
  void *aligned = (void *)(((uintptr_t)original & ~(uintptr_t)(ALIGN - 1)) + ALIGN);
  ((void **)aligned)[-1] = original;
  return (double *)aligned;
}

static inline void aligned_free(double *p) {
  if (p) free(((void **)p)[-1]);
}

// the same allocator as a function of its own (not inlined, as in a library): its callers
// get the shadow of the block it returns
__attribute__((noinline)) double *xmalloc_aligned(size_t n) { return aligned_malloc(n); }
__attribute__((noinline)) void xfree_aligned(double *p) { aligned_free(p); }

// a smoothing pass into an aligned scratch buffer, then an energy of the smoothed signal
double energy(const double *x, long n) {
  double *buf = aligned_malloc(n);
  for (long i = 0; i < n; i++) {
    double left = x[(i + n - 1) % n], right = x[(i + 1) % n];
    buf[i] = 0.25 * left + 0.5 * x[i] + 0.25 * right;
  }
  double s = 0.0;
  for (long i = 0; i < n; i++) s += sin(buf[i]) * buf[(i + 1) % n];
  aligned_free(buf);
  return s;
}

// a least-squares residual through buffers from the out-of-line allocator
double residual(const double *x, long n) {
  double *r = xmalloc_aligned(n);
  for (long i = 0; i < n; i++) r[i] = x[i] * x[i] - cos(x[(i + 2) % n]);
  double s = 0.0;
  for (long i = 0; i < n; i++) s += r[i] * r[i];
  xfree_aligned(r);
  return 0.5 * s;
}

static void check(const char *what, double got, double want) {
  if (!(fabs(got - want) <= 1e-6 * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    abort();
  }
}

int main(void) {
  enum { N = 11 };
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.02 * i * i;
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, (long)N);
  for (int k = 0; k < N; k++) {
    double h = 1e-6, xp[N], xm[N], t[N] = {0};
    for (int i = 0; i < N; i++) xp[i] = xm[i] = x[i];
    xp[k] += h;
    xm[k] -= h;
    check("reverse vs central difference", dx[k],
          (energy(xp, N) - energy(xm, N)) / (2 * h));
    t[k] = 1.0;
    check("forward vs reverse",
          __enzyme_fwddiff((void *)energy, enzyme_dup, x, t, enzyme_const, (long)N), dx[k]);
  }
  double dr[N] = {0};
  __enzyme_autodiff((void *)residual, enzyme_dup, x, dr, enzyme_const, (long)N);
  for (int k = 0; k < N; k++) {
    double h = 1e-6, xp[N], xm[N], t[N] = {0};
    for (int i = 0; i < N; i++) xp[i] = xm[i] = x[i];
    xp[k] += h;
    xm[k] -= h;
    check("residual: reverse vs central difference", dr[k],
          (residual(xp, N) - residual(xm, N)) / (2 * h));
    t[k] = 1.0;
    check("residual: forward vs reverse",
          __enzyme_fwddiff((void *)residual, enzyme_dup, x, t, enzyme_const, (long)N), dr[k]);
  }
  printf("OK\n");
  return 0;
}
