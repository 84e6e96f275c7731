// A bump arena hands out 64-byte aligned blocks, and a small C API passes its blocks
// around as integer handles (uintptr_t), the way allocator libraries and C interfaces
// over SIMD kernels often do. The routines are kept out of line, as in a separately
// compiled library: a block's address comes back from a call as an integer, row
// addresses are computed from integers passed in, and the kernels take their operands
// as integer handles. The derivatives flow through all of them: reverse and forward mode
// against central differences.
// SANITIZE: address,undefined
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define LIBRARY __attribute__((noinline))

typedef struct {
  unsigned char *base;
  size_t used, size;
} Arena;

// blocks start at multiples of 64 bytes from the arena's 64-byte aligned base
LIBRARY uintptr_t arena_alloc(Arena *a, size_t bytes) {
  size_t offset = (a->used + 63) & ~(size_t)63;
  if (offset + bytes > a->size) abort();
  a->used = offset + bytes;
  return (uintptr_t)a->base + offset;
}

LIBRARY uintptr_t row_address(uintptr_t matrix, size_t row, size_t cols) {
  return matrix + row * cols * sizeof(double);
}

// y = A x for an n x n row-major matrix, every operand an integer handle
LIBRARY void matvec(uintptr_t y, uintptr_t a, uintptr_t x, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double *row = (const double *)row_address(a, i, n);
    double s = 0.0;
    for (size_t j = 0; j < n; ++j) s += row[j] * ((const double *)x)[j];
    ((double *)y)[i] = s;
  }
}

LIBRARY double dot(uintptr_t x, uintptr_t y, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) s += ((const double *)x)[i] * ((const double *)y)[i];
  return s;
}

enum { N = 4 };

// The Rayleigh quotient x^T A x / x^T x of A = p p^T + diag(1, ..., n) at x = (1, ..., n).
double rayleigh(const double *p) {
  Arena arena = {aligned_alloc(64, 4096), 0, 4096};
  if (!arena.base) abort();
  uintptr_t a = arena_alloc(&arena, N * N * sizeof(double));
  uintptr_t x = arena_alloc(&arena, N * sizeof(double));
  uintptr_t y = arena_alloc(&arena, N * sizeof(double));
  for (size_t i = 0; i < N; ++i) {
    double *row = (double *)row_address(a, i, N);
    for (size_t j = 0; j < N; ++j) row[j] = sin(p[i]) * p[j] + (i == j ? (double)(i + 1) : 0.0);
    ((double *)x)[i] = (double)(i + 1) + 0.1 * p[i];
  }
  matvec(y, a, x, N);
  double r = dot(x, y, N) / dot(x, x, N);
  free(arena.base);
  return r;
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    abort();
  }
}

int main(void) {
  double p[N] = {0.3, -0.7, 1.1, 0.5};
  double grad[N] = {0.0, 0.0, 0.0, 0.0};
  __enzyme_autodiff((void *)rayleigh, enzyme_dup, p, grad);
  for (int k = 0; k < N; ++k) {
    double h = 1e-6, q[N] = {p[0], p[1], p[2], p[3]};
    q[k] = p[k] + h;
    double fp = rayleigh(q);
    q[k] = p[k] - h;
    double fm = rayleigh(q);
    check("reverse vs central differences", grad[k], (fp - fm) / (2.0 * h), 1e-6);
    double t[N] = {0.0, 0.0, 0.0, 0.0};
    t[k] = 1.0;
    check("forward vs reverse", __enzyme_fwddiff((void *)rayleigh, enzyme_dup, p, t), grad[k],
          1e-10);
  }
  printf("grad = (%.10g, %.10g, %.10g, %.10g)\nOK\n", grad[0], grad[1], grad[2], grad[3]);
  return 0;
}
