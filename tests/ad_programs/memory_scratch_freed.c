// Scratch blocks a function mallocs and frees itself, written the ways numerical C does:
// a Laplace determinant that mallocs each minor, a row buffer allocated inside a loop, a
// buffer walked by a pointer, a buffer a helper re-reads after it is filled once, and one
// that is read back after the loop that filled it. The reverse pass reads some of these
// blocks again and not others; a block it does not read is freed where the primal frees
// it (under AddressSanitizer a wrong decision is a use after free).
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

/* determinant by cofactor expansion along the first row; each level mallocs its minor
   and overwrites it for every column */
double det(const double *a, int n) {
  if (n == 1) return a[0];
  double *minor = (double *)malloc(sizeof(double) * (n - 1) * (n - 1));
  double sum = 0.0, sign = 1.0;
  for (int c = 0; c < n; c++) {
    for (int i = 1; i < n; i++) {
      int k = 0;
      for (int j = 0; j < n; j++)
        if (j != c) minor[(i - 1) * (n - 1) + k++] = a[i * n + j];
    }
    sum += sign * a[c] * det(minor, n - 1);
    sign = -sign;
  }
  free(minor);
  return sum;
}

/* a helper that only reads its argument */
__attribute__((noinline)) double weighted_norm(const double *v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (1.0 + i) * v[i] * v[i];
  return sqrt(s);
}

/* a row buffer per row: allocated, filled, handed to the helper and freed in the loop */
double rows_norm(const double *x, int rows, int cols) {
  double total = 0.0;
  for (int r = 0; r < rows; r++) {
    double *row = (double *)malloc(sizeof(double) * cols);
    for (int j = 0; j < cols; j++) row[j] = sin(x[r * cols + j]) * x[(r + j) % rows];
    total += weighted_norm(row, cols);
    free(row);
  }
  return total;
}

/* filled once, then handed to the helper several times: the helper's reverse may read
   it again, so it must live until then */
double filled_once(const double *x, int n) {
  double *w = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) w[i] = exp(0.3 * x[i]);
  double s = 0.0;
  for (int k = 1; k <= 3; k++) s += k * weighted_norm(w, n);
  free(w);
  return s;
}

/* a buffer filled and consumed through walking pointers */
double walked(const double *x, int n) {
  double *buf = (double *)malloc(sizeof(double) * n);
  double *p = buf;
  for (const double *q = x; q < x + n; q++) *p++ = *q * *q + 1.0;
  double prod = 1.0;
  for (p = buf + n; p > buf;) prod *= sqrt(*--p);
  free(buf);
  return prod;
}

/* overwritten every step and read right after: the reverse needs the old contents,
   which come from the tape, not from the block */
double relaxed(const double *x, int n, int steps) {
  double *u = (double *)malloc(sizeof(double) * n);
  memcpy(u, x, sizeof(double) * n);
  double e = 0.0;
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) u[i] = cos(u[i]) + 0.25 * u[(i + 1) % n];
    e += u[s % n] * u[(s + 1) % n];
  }
  free(u);
  return e;
}

typedef double (*objective)(const double *, int);
static int ROWS = 3;
static double det_of(const double *x, int n) { return det(x, (int)lround(sqrt((double)n))); }
static double rows_of(const double *x, int n) { return rows_norm(x, ROWS, n / ROWS); }
static double steps_of(const double *x, int n) { return relaxed(x, n, 4); }

/* dx against central differences of f at x0 */
static void check(objective f, const double *x0, const double *dx, int n) {
  double xp[16], xm[16];
  for (int i = 0; i < n; i++) {
    const double h = 1e-6;
    memcpy(xp, x0, sizeof(double) * n);
    memcpy(xm, x0, sizeof(double) * n);
    xp[i] += h;
    xm[i] -= h;
    APPROX_EQ(dx[i], (f(xp, n) - f(xm, n)) / (2 * h), 1e-6);
  }
}

int main(void) {
  double x0[16], x[16], dx[16];
  for (int i = 0; i < 16; i++) x0[i] = 0.3 + 0.1 * ((i * 7) % 11) + (i % 5 == 0);
  for (int m = 2; m <= 4; m++) {
    memcpy(x, x0, sizeof x);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)det, enzyme_dup, x, dx, enzyme_const, m);
    check(det_of, x0, dx, m * m);
  }
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)rows_norm, enzyme_dup, x, dx, enzyme_const, ROWS,
                    enzyme_const, 4);
  check(rows_of, x0, dx, 12);
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)filled_once, enzyme_dup, x, dx, enzyme_const, 7);
  check(filled_once, x0, dx, 7);
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)walked, enzyme_dup, x, dx, enzyme_const, 9);
  check(walked, x0, dx, 9);
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)relaxed, enzyme_dup, x, dx, enzyme_const, 6, enzyme_const, 4);
  check(steps_of, x0, dx, 6);
  printf("OK\n");
  return 0;
}
