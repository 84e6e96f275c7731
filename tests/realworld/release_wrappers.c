// Scratch vectors from a small allocation library of the program's own (not inlined):
// vec_new returns a struct whose data is aligned by hand, vec_free releases both blocks
// through pointers read back from memory. Reverse (combined and split) and forward mode
// against central differences; built with AddressSanitizer, nothing may leak (each free
// of a block with a shadow frees the shadow too, after the adjoints that read it).
// SANITIZE: address,undefined
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

typedef struct {
  long n;
  void *raw;
  double *data;
} vec;

__attribute__((noinline)) vec *vec_new(long n) {
  vec *v = malloc(sizeof *v);
  if (!v) abort();
  v->n = n;
  v->raw = malloc(n * sizeof(double) + 32);
  if (!v->raw) abort();
  v->data = (double *)(((uintptr_t)v->raw + 31) & ~(uintptr_t)31);
  return v;
}

__attribute__((noinline)) void vec_free(vec *v) {
  if (!v) return;
  free(v->raw);
  free(v);
}

// a three-point smoothing into a scratch vector, then a weighted sum of squares
__attribute__((noinline)) double smooth_energy(const double *x, long n) {
  vec *t = vec_new(n);
  for (long i = 0; i < n; i++) {
    double l = i > 0 ? x[i - 1] : x[i], r = i + 1 < n ? x[i + 1] : x[i];
    t->data[i] = 0.25 * l + 0.5 * x[i] + 0.25 * r;
  }
  double s = 0.0;
  for (long i = 0; i < n; i++) s += exp(-t->data[i]) * t->data[i] * t->data[i];
  vec_free(t);
  return s;
}

// a scratch vector per sweep (allocated and released inside the loop)
double sweeps(const double *x, long n) {
  double s = 0.0;
  for (int k = 1; k <= 3; k++) {
    vec *t = vec_new(n);
    for (long i = 0; i < n; i++) t->data[i] = sin(k * x[i]) + x[(i + 1) % n];
    for (long i = 0; i < n; i++) s += t->data[i] * t->data[(i + k) % n];
    vec_free(t);
  }
  return s;
}

static void check(const char *what, int k, double got, double want) {
  if (!(fabs(got - want) <= 1e-6 * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s[%d]: got %.15g, want %.15g\n", what, k, got, want);
    abort();
  }
}

static double central(double (*f)(const double *, long), const double *x, long n, int k) {
  double xp[16], xm[16], h = 1e-6;
  for (long i = 0; i < n; i++) xp[i] = xm[i] = x[i];
  xp[k] += h;
  xm[k] -= h;
  return (f(xp, n) - f(xm, n)) / (2 * h);
}

int main(void) {
  enum { N = 9 };
  double x[N], d1[N] = {0}, d2[N] = {0}, d3[N] = {0};
  for (int i = 0; i < N; i++) x[i] = 0.2 + 0.13 * i - 0.015 * i * i;
  __enzyme_autodiff((void *)smooth_energy, enzyme_dup, x, d1, enzyme_const, (long)N);
  __enzyme_autodiff((void *)sweeps, enzyme_dup, x, d2, enzyme_const, (long)N);
  void *tape = __enzyme_augmentfwd((void *)smooth_energy, enzyme_dup, x, d3, enzyme_const,
                                   (long)N);
  __enzyme_reverse((void *)smooth_energy, enzyme_dup, x, d3, enzyme_const, (long)N, 1.0,
                   tape);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1.0;
    check("reverse", k, d1[k], central(smooth_energy, x, N, k));
    check("reverse in a loop", k, d2[k], central(sweeps, x, N, k));
    check("split", k, d3[k], d1[k]);
    check("forward", k,
          __enzyme_fwddiff((void *)smooth_energy, enzyme_dup, x, t, enzyme_const, (long)N),
          d1[k]);
    check("forward in a loop", k,
          __enzyme_fwddiff((void *)sweeps, enzyme_dup, x, t, enzyme_const, (long)N), d2[k]);
  }
  printf("OK\n");
  return 0;
}
