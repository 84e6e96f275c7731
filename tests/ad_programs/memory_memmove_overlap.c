// memmove between overlapping parts of one buffer, the way codes keep a sliding window
// (drop the oldest samples: shift left), insert into a sorted array (shift right) and
// rotate a small fixed array of records. The adjoint of an overlapping move has to read
// each destination adjoint before the sum into the source, which overlaps it, changes it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

#define N 9
#define WIN 4

// a window of the WIN newest samples, shifted left by one per new sample
double window_sum(const double *x, int n) {
  double w[WIN] = {0};
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    memmove(w, w + 1, (size_t)(WIN - 1) * sizeof(double));
    w[WIN - 1] = x[i];
    for (int j = 0; j < WIN; j++) s += (j + 1) * w[j] * w[j];
  }
  return s;
}

// insertion into a sorted buffer: larger values are shifted right to make room
double insert_sorted(const double *x, int n) {
  double *a = (double *)malloc((size_t)n * sizeof(double));
  int len = 0;
  for (int i = 0; i < n; i++) {
    int pos = 0;
    while (pos < len && a[pos] < x[i]) pos++;
    memmove(a + pos + 1, a + pos, (size_t)(len - pos) * sizeof(double));
    a[pos] = x[i];
    len++;
  }
  double s = 0.0;
  for (int k = 0; k < len; k++) s += (k + 1) * a[k] * a[k];  // weights by rank
  free(a);
  return s;
}

struct Rec { double v; int tag; double w; };

// a fixed array of records rotated by one with a constant-size memmove
double rotate_records(const double *x, int n) {
  struct Rec r[4];
  for (int k = 0; k < 4; k++) { r[k].v = x[k]; r[k].tag = k; r[k].w = x[k + 4] * x[k + 4]; }
  double s = 0.0;
  for (int t = 0; t < n; t++) {
    struct Rec first = r[0];
    memmove(&r[0], &r[1], 3 * sizeof(struct Rec));
    r[3] = first;
    s += (t + 1) * (r[0].v * r[1].w + r[0].tag);
  }
  return s;
}

typedef double (*objective)(const double *, int);

// the gradient (dx, from __enzyme_autodiff on f) against central differences
static void check(objective f, const double *x0, const double *dx, int n) {
  for (int k = 0; k < N; k++) {
    double p[N], m[N];
    memcpy(p, x0, sizeof p);
    memcpy(m, x0, sizeof m);
    p[k] += 1e-6;
    m[k] -= 1e-6;
    APPROX_EQ(dx[k], (f(p, n) - f(m, n)) / 2e-6, 1e-6);
  }
}

#define GRADIENT(f, n)                                                    \
  do {                                                                    \
    double x[N], dx[N] = {0};                                             \
    memcpy(x, x0, sizeof x);                                              \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);     \
    check(f, x0, dx, n);                                                  \
  } while (0)

int main(void) {
  const double x0[N] = {0.7, -1.3, 0.25, 2.1, -0.6, 1.05, -0.35, 0.9, 1.6};
  GRADIENT(window_sum, N);
  GRADIENT(insert_sorted, N);
  GRADIENT(rotate_records, 7);
  printf("OK\n");
  return 0;
}
