// A growable array the way C code without a container library writes one: a struct of
// {data, len, cap} that doubles its capacity with realloc, filled inside the
// differentiated function, read back, and freed. Also a buffer sized once, then grown
// once with realloc when a second pass needs more room, and a scratch buffer
// allocated after a loop.
// Reverse and forward mode against central differences; built with the sanitizers, no
// leak of a shadow block.
// SANITIZE: address,undefined
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  double *data;
  size_t len, cap;
} dvec;

static void dvec_push(dvec *v, double x) {
  if (v->len == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 4;
    v->data = realloc(v->data, v->cap * sizeof(double));
    if (!v->data) abort();
  }
  v->data[v->len++] = x;
}

// the smoothed differences of x, collected in a growable array, then their energy
double collected_energy(const double *x, long n) {
  dvec v = {0, 0, 0};
  for (long i = 0; i + 1 < n; i++) dvec_push(&v, sin(x[i + 1] - x[i]) * x[i]);
  double s = 0.0;
  for (size_t k = 0; k < v.len; k++) s += v.data[k] * v.data[(k + 1) % v.len];
  free(v.data);
  return s;
}

// a scratch buffer of n values, grown to 2n for a second pass
double two_pass(const double *x, long n) {
  double *buf = calloc((size_t)n, sizeof(double));
  if (!buf) abort();
  for (long i = 0; i < n; i++) buf[i] = x[i] * x[i];
  buf = realloc(buf, 2 * (size_t)n * sizeof(double));
  if (!buf) abort();
  for (long i = 0; i < n; i++) buf[n + i] = cos(buf[i]) + x[(i + 1) % n];
  double s = 0.0;
  for (long i = 0; i < 2 * n; i++) s += buf[i] * buf[(i + 3) % (2 * n)];
  free(buf);
  return s;
}

// the output scaled in place by a first loop, then a scratch buffer filled, grown and
// freed (the optimizer duplicates the malloc into the two ways past that loop, so the
// realloc takes a phi of two allocations)
void scaled_then_grown(const double *x, double *y, long n) {
  for (long i = 0; i < n; i++) y[i] *= 0.5 + x[i];
  double *buf = malloc((size_t)n * sizeof(double));
  if (!buf) abort();
  for (long i = 0; i < n; i++) buf[i] = x[i] * y[i];
  buf = realloc(buf, 2 * (size_t)n * sizeof(double));
  if (!buf) abort();
  for (long i = 0; i < n; i++) buf[n + i] = sin(buf[i]);
  for (long i = 0; i < n; i++) y[i] += buf[n + i] * buf[(i + 1) % n];
  free(buf);
}

static void check(const char *what, double got, double want) {
  if (!(fabs(got - want) <= 1e-6 * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    abort();
  }
}

// a macro, not a function taking a function pointer: __enzyme_autodiff needs to know the
// function it differentiates
#define CHECK_GRADIENT(f)                                                            \
  do {                                                                               \
    enum { N = 13 };                                                                 \
    double x[N], dx[N] = {0};                                                        \
    for (int i = 0; i < N; i++) x[i] = 0.2 + 0.11 * i - 0.013 * i * i;               \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N);          \
    for (int k = 0; k < N; k++) {                                                    \
      double h = 1e-6, xp[N], xm[N], t[N] = {0};                                     \
      for (int i = 0; i < N; i++) xp[i] = xm[i] = x[i];                              \
      xp[k] += h;                                                                    \
      xm[k] -= h;                                                                    \
      check(#f " reverse", dx[k], (f(xp, N) - f(xm, N)) / (2 * h));                  \
      t[k] = 1.0;                                                                    \
      check(#f " forward",                                                           \
            __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, (long)N),    \
            dx[k]);                                                                  \
    }                                                                                \
  } while (0)

int main(void) {
  CHECK_GRADIENT(collected_energy);
  CHECK_GRADIENT(two_pass);
  {  // y = F(x, y0): the gradient of <c, y> with respect to x and y0
    enum { N = 7 };
    double x[N], y0[N], c[N], dx[N] = {0}, y[N], dy[N];
    for (int i = 0; i < N; i++) {
      x[i] = 0.3 + 0.07 * i;
      y0[i] = 1.0 - 0.2 * i;
      c[i] = 0.5 + 0.1 * i * i;
      y[i] = y0[i];
      dy[i] = c[i];
    }
    __enzyme_autodiff((void *)scaled_then_grown, enzyme_dup, x, dx, enzyme_dup, y, dy,
                      enzyme_const, (long)N);
    for (int k = 0; k < 2 * N; k++) {
      double h = 1e-6, xp[N], xm[N], yp[N], ym[N], fp = 0.0, fm = 0.0;
      for (int i = 0; i < N; i++) xp[i] = xm[i] = x[i], yp[i] = ym[i] = y0[i];
      if (k < N) xp[k] += h, xm[k] -= h;
      else yp[k - N] += h, ym[k - N] -= h;
      scaled_then_grown(xp, yp, N);
      scaled_then_grown(xm, ym, N);
      for (int i = 0; i < N; i++) fp += c[i] * yp[i], fm += c[i] * ym[i];
      check("scaled_then_grown reverse", k < N ? dx[k] : dy[k - N], (fp - fm) / (2 * h));
    }
  }
  printf("OK\n");
  return 0;
}
