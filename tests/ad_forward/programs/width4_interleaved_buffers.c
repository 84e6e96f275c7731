// Width 4 through scratch memory the function allocates itself (malloc, calloc, a local
// array), filled by a callee that is not inlined, accumulated over a double loop (the
// shape of ADBench Hand's skinning loop), copied between buffers with memcpy and read
// back at byte offsets: these shadows are interleaved (one buffer, the 4 tangents of an
// element side by side).
#include "fd_check.h"
void __enzyme_fwddiff(void *, ...);

enum { N = 6, M = 5 };

__attribute__((noinline)) static void fill(double *buf, const double *x, int n) {
  for (int i = 0; i < n; i++) buf[i] = sin(x[i]) * x[(i + 1) % n];
}

__attribute__((noinline)) static void add_scaled(double *acc, const double *w, double s, int n) {
  for (int i = 0; i < n; i++) acc[i] += s * w[i];
}

__attribute__((noinline)) static void tail_update(double *p) { p[0] = p[0] * p[1] + 1.0; }

void f(const double *x, double *y) {
  double *t = malloc(sizeof(double) * N);
  double *acc = calloc(M, sizeof(double));
  double loc[N];
  fill(t, x, N);
  double *t2 = malloc(sizeof(double) * N);
  memcpy(t2, t, sizeof(double) * N);  // a copy between interleaved buffers
  t2[1] *= t2[0];
  memset(loc, 0, sizeof loc);
  for (int b = 0; b < N; b++) {      // accumulate over "bones"
    for (int v = 0; v < M; v++)      // ... into every "vertex"
      acc[v] += t[b] * x[(b + v) % N];
    loc[b] = t[b] * t2[(b + 2) % N];
  }
  add_scaled(acc, loc, 0.5, M);
  tail_update(acc + 2);             // a derived pointer crosses the call
  for (int v = 0; v < M; v++) y[v] = acc[v] + loc[v] * x[v];
  free(acc);
  free(t2);
  free(t);
}

int main(void) {
  double x[N] = {0.5, -1.0, 0.3, 2.0, 0.7, -0.2}, y[M];
  double dx[4][N] = {{1, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}, {0.3, -0.5, 0.2, 1, 0.1, 0},
                     {0, 0, 0, 0, 0, 1}};
  double dy[4][M] = {{0}};
  __enzyme_fwddiff((void *)f, enzyme_width, 4, enzyme_dup, x, dx[0], dx[1], dx[2], dx[3],
                   enzyme_dupnoneed, y, dy[0], dy[1], dy[2], dy[3]);
  const double h = 1e-6;
  for (int j = 0; j < 4; j++) {
    double xp[N], xm[N], yp[M], ym[M];
    for (int i = 0; i < N; i++) { xp[i] = x[i] + h * dx[j][i]; xm[i] = x[i] - h * dx[j][i]; }
    f(xp, yp); f(xm, ym);
    for (int i = 0; i < M; i++) CHECK_CLOSE(dy[j][i], (yp[i] - ym[i]) / (2 * h), FD_TOL);
  }
  printf("OK\n");
  return 0;
}
