// Width 3 through local memory the interleaved shadow layout does not admit, next to
// memory it does: one whose pointer is stored in a struct, a pointer chosen by a select
// (and the buffer memcpy'd from it: copies decide both buffers together), and integer
// data in the same allocation as doubles. Each keeps one shadow per tangent; the
// derivatives must be the same either way.
#include "fd_check.h"
void __enzyme_fwddiff(void *, ...);

enum { N = 4 };
struct holder { double *data; int n; };

__attribute__((noinline)) static double sum_holder(const struct holder *h) {
  double s = 0;
  for (int i = 0; i < h->n; i++) s += h->data[i] * h->data[i];
  return s;
}

void f(const double *x, double *y, int flip) {
  double *a = malloc(sizeof(double) * N), *b = malloc(sizeof(double) * N);
  double *c = malloc(sizeof(double) * N);
  long long *mixed = malloc(sizeof(long long) * 2 * N);
  for (int i = 0; i < N; i++) { a[i] = x[i] * x[i]; c[i] = cos(x[i]); }
  memcpy(b, a, sizeof(double) * N);            // b: a copy of a (which pick selects)
  struct holder h = {c, N};                    // c: stored into a struct
  double *pick = flip ? a : c;                 // select of pointers
  for (int i = 0; i < N; i++) {
    mixed[2 * i] = i;                          // an integer ...
    ((double *)mixed)[2 * i + 1] = b[i] + x[i];  // ... next to a double
  }
  y[0] = sum_holder(&h);
  for (int i = 0; i < N; i++) y[1 + i] = pick[i] * ((double *)mixed)[2 * i + 1] + mixed[2 * i];
  free(a); free(b); free(c); free(mixed);
}

int main(void) {
  double x[N] = {0.4, -0.9, 1.3, 0.25}, y[N + 1];
  double dx[3][N] = {{1, 0, 0, 0}, {0, 1, 0.5, 0}, {0.2, 0, 0, -1}};
  for (int flip = 0; flip < 2; flip++) {
    double dy[3][N + 1] = {{0}};
    __enzyme_fwddiff((void *)f, enzyme_width, 3, enzyme_dup, x, dx[0], dx[1], dx[2],
                     enzyme_dupnoneed, y, dy[0], dy[1], dy[2], enzyme_const, flip);
    const double hh = 1e-6;
    for (int j = 0; j < 3; j++) {
      double xp[N], xm[N], yp[N + 1], ym[N + 1];
      for (int i = 0; i < N; i++) { xp[i] = x[i] + hh * dx[j][i]; xm[i] = x[i] - hh * dx[j][i]; }
      f(xp, yp, flip); f(xm, ym, flip);
      for (int i = 0; i < N + 1; i++) CHECK_CLOSE(dy[j][i], (yp[i] - ym[i]) / (2 * hh), FD_TOL);
    }
  }
  printf("OK\n");
  return 0;
}
