/* The bending energy of a cubic interpolating spline through points y_0..y_{n-1}, with
 * its scratch arrays taken from a frame arena of a library irgrad never sees
 * (arena_take / arena_release, defined in another object file). __enzyme_allocation_like
 * tells irgrad that arena_take(arena, bytes) allocates (size: argument 1) and that
 * arena_release(arena, block) frees (arguments "0,-1": the arena, then the block), so the
 * shadows of the scratch arrays come from the same arena and go back to it.
 * Checked in reverse and forward mode (also two tangents at once) against central finite
 * differences; the arena is empty again afterwards. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_width;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double t[2]; } Tangents2;
Tangents2 __enzyme_fwddiff2(void *, ...);

typedef struct {
  char *base;
  size_t size, used;
  int live;
} Arena;
void arena_init(Arena *a, size_t size);
void *arena_take(Arena *a, size_t bytes);
void arena_release(Arena *a, void *block);
int arena_live(const Arena *a);

void *__enzyme_allocation_like[4] = {(void *)arena_take, (void *)1, (void *)"0,-1",
                                     (void *)arena_release};

Arena frame;

/* second derivatives M of the natural cubic spline through (i, y_i): the tridiagonal
   system M_{i-1} + 4 M_i + M_{i+1} = 6 (y_{i+1} - 2 y_i + y_{i-1}), M_0 = M_{n-1} = 0 */
static void spline_moments(const double *y, double *M, int n) {
  double *c = arena_take(&frame, sizeof(double) * (size_t)n);
  double *d = arena_take(&frame, sizeof(double) * (size_t)n);
  M[0] = M[n - 1] = 0.0;
  c[1] = 0.25;
  d[1] = 6.0 * (y[2] - 2.0 * y[1] + y[0]) / 4.0;
  for (int i = 2; i < n - 1; i++) {
    double m = 4.0 - c[i - 1];
    c[i] = 1.0 / m;
    d[i] = (6.0 * (y[i + 1] - 2.0 * y[i] + y[i - 1]) - d[i - 1]) / m;
  }
  M[n - 2] = d[n - 2];
  for (int i = n - 3; i >= 1; i--) M[i] = d[i] - c[i] * M[i + 1];
  arena_release(&frame, d);
  arena_release(&frame, c);
}

/* integral of the squared second derivative (M is linear on each interval) */
double bending_energy(const double *y, int n) {
  double *M = arena_take(&frame, sizeof(double) * (size_t)n);
  spline_moments(y, M, n);
  double e = 0.0;
  for (int i = 0; i + 1 < n; i++)
    e += (M[i] * M[i] + M[i] * M[i + 1] + M[i + 1] * M[i + 1]) / 3.0;
  arena_release(&frame, M);
  return e;
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "MISMATCH %s: got %.12g, want %.12g\n", what, got, want);
    abort();
  }
}

enum { N = 10 };

int main(void) {
  arena_init(&frame, 1 << 16);
  double y[N], dy[N] = {0}, v[N];
  for (int i = 0; i < N; i++) {
    y[i] = sin(0.8 * i) + 0.05 * i * i;
    v[i] = cos(1.1 * i + 0.2);
  }
  __enzyme_autodiff((void *)bending_energy, enzyme_dup, y, dy, enzyme_const, N);
  if (arena_live(&frame) != 0) {
    fprintf(stderr, "the reverse pass left %d arena blocks\n", arena_live(&frame));
    abort();
  }
  const double h = 1e-6;
  double dot = 0.0;
  for (int i = 0; i < N; i++) {
    double yp[N], ym[N];
    memcpy(yp, y, sizeof yp);
    memcpy(ym, y, sizeof ym);
    yp[i] += h;
    ym[i] -= h;
    check("d energy / dy (reverse)", dy[i],
          (bending_energy(yp, N) - bending_energy(ym, N)) / (2 * h), 1e-6);
    dot += dy[i] * v[i];
  }
  double tangent = __enzyme_fwddiff((void *)bending_energy, enzyme_dup, y, v, enzyme_const, N);
  check("forward vs reverse", tangent, dot, 1e-10);
  /* vector forward mode: the shadows of the scratch arrays hold both tangents */
  double w[N], dot_w = 0.0;
  for (int i = 0; i < N; i++) {
    w[i] = 0.3 - 0.07 * i;
    dot_w += dy[i] * w[i];
  }
  Tangents2 both = __enzyme_fwddiff2((void *)bending_energy, enzyme_width, 2, enzyme_dup, y, v,
                                     w, enzyme_const, N);
  check("vector forward, lane 0", both.t[0], dot, 1e-10);
  check("vector forward, lane 1", both.t[1], dot_w, 1e-10);
  if (arena_live(&frame) != 0) {
    fprintf(stderr, "the forward derivative left %d arena blocks\n", arena_live(&frame));
    abort();
  }
  printf("OK\n");
  return 0;
}
