// realloc in forward mode: the shadow is realloc'd with the buffer and its grown part is
// zeroed (realloc leaves new bytes undefined, a tangent must start at 0). The buffer lives
// in a struct the caller passes duplicated, so the caller can inspect the grown shadow;
// the heap is dirtied first so that an unzeroed shadow shows up as garbage tangents.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

struct buf {
  double *data;
  int n;
};

// grow to 4n elements; only the old ones are written (the grown ones stay undefined in the
// primal and must be zero in the shadow)
double grow(struct buf *b) {
  int n = b->n;
  b->data = realloc(b->data, sizeof(double) * 4 * n);
  b->n = 4 * n;
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    b->data[i] = sin(b->data[i]) * b->data[(i + 1) % n];
    s += b->data[i];
  }
  return s;
}

static double primal(const double *x0, int n) {
  struct buf b = {malloc(sizeof(double) * n), n};
  memcpy(b.data, x0, sizeof(double) * n);
  double s = grow(&b);
  free(b.data);
  return s;
}

int main(void) {
  enum { N = 8 };
  const double h = 1e-6;
  double x0[N], t0[N], xp[N], xm[N];
  for (int i = 0; i < N; i++) {
    x0[i] = 0.1 * (i + 1);
    t0[i] = 1.0 - 0.3 * i;
    xp[i] = x0[i] + h * t0[i];
    xm[i] = x0[i] - h * t0[i];
  }
  for (int round = 0; round < 3; round++) {
    // dirty the heap: freed blocks full of 0xAB are what realloc will find
    void *dirty[8];
    for (int k = 0; k < 8; k++) {
      dirty[k] = malloc(sizeof(double) * 4 * N * (k + 1));
      memset(dirty[k], 0xAB, sizeof(double) * 4 * N * (k + 1));
    }
    for (int k = 0; k < 8; k++) free(dirty[k]);
    struct buf b = {malloc(sizeof(double) * N), N};
    struct buf db = {calloc(N, sizeof(double)), N};  // zero up to its usable size
    memcpy(b.data, x0, sizeof x0);
    memcpy(db.data, t0, sizeof t0);
    double ds = __enzyme_fwddiff((void *)grow, &b, &db);
    CHECK_CLOSE(ds, (primal(xp, N) - primal(xm, N)) / (2 * h), FD_TOL);
    CHECK_CLOSE(b.n, 4 * N, 0);
    for (int i = N; i < 4 * N; i++) CHECK_CLOSE(db.data[i], 0.0, 0);
    free(b.data);
    free(db.data);
  }
  printf("OK\n");
  return 0;
}
