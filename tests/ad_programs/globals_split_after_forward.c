// A relaxation step that stages its input in a global work buffer and keeps a checkpoint
// of it for its error report (memcpy into globals), as solver libraries do,
// differentiated three ways in one process: forward mode first (its tangents stay in
// the globals' shadows), then split mode (__enzyme_augmentfwd, then __enzyme_reverse)
// and combined mode. The reverse of each memcpy adds the global's adjoints into y's: the
// shadows must start from zero for the split call too, not only for the derivatives
// whose own code touches them (the augmented primal never touches the checkpoint's).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_out, enzyme_const;
typedef struct { void *tape; double result; } Augmented;
Augmented __enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 6
static double work[32];
static double checkpoint[32];

double relax(double *y, double a, int n) {
  memcpy(checkpoint, y, (size_t)n * sizeof(double));
  memcpy(work, y, (size_t)n * sizeof(double));
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += a * work[i] * work[(i + 1) % n];
    y[i] = 0.75 * y[i] + 0.25 * sin(work[i]);
  }
  if (!isfinite(s)) {
    fprintf(stderr, "relax: non-finite energy from y[0] = %g\n", checkpoint[0]);
    exit(1);
  }
  return s;
}

// L(y, a) = relax(y, a) + sum_i w_i * y_out[i]: what a reverse call with y's shadow
// seeded by w computes the gradient of
static double loss(const double *y0, double a, const double *w) {
  double y[N];
  memcpy(y, y0, sizeof y);
  double s = relax(y, a, N);
  for (int i = 0; i < N; i++) s += w[i] * y[i];
  return s;
}

static void check(const char *what, double got, double want) {
  if (!(fabs(got - want) <= 1e-6 * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: %.17g, expected %.17g\n", what, got, want);
    exit(1);
  }
}

int main(void) {
  const double y0[N] = {0.3, -1.2, 0.8, 0.45, -0.6, 1.1};
  const double w[N] = {0.5, -0.25, 1.0, 0.75, -1.5, 0.125};
  const double a = 0.7, h = 1e-6;
  double grad_y[N], grad_a;
  for (int i = 0; i < N; i++) {
    double yp[N], ym[N];
    memcpy(yp, y0, sizeof yp);
    memcpy(ym, y0, sizeof ym);
    yp[i] += h;
    ym[i] -= h;
    grad_y[i] = (loss(yp, a, w) - loss(ym, a, w)) / (2 * h);
  }
  grad_a = (loss(y0, a + h, w) - loss(y0, a - h, w)) / (2 * h);

  // forward mode: d relax along (dy, da) leaves dy's tangents in work's shadow
  double y[N], dy[N], tangent_want = grad_a;
  memcpy(y, y0, sizeof y);
  for (int i = 0; i < N; i++) dy[i] = 0.0;
  double t = __enzyme_fwddiff((void *)relax, enzyme_dup, y, dy, a, 1.0, enzyme_const, N);
  for (int i = 0; i < N; i++) tangent_want -= w[i] * dy[i];  // d y_out / da, weighted
  check("forward d/da", t, tangent_want);
  for (int i = 0; i < N; i++) dy[i] = 1.0 + i;  // a nonzero tangent per element...
  memcpy(y, y0, sizeof y);
  __enzyme_fwddiff((void *)relax, enzyme_dup, y, dy, a, 0.0, enzyme_const, N);  // ...copied

  for (int round = 0; round < 2; round++) {
    // split mode
    memcpy(y, y0, sizeof y);
    memcpy(dy, w, sizeof dy);
    Augmented aug = __enzyme_augmentfwd((void *)relax, enzyme_dup, y, dy, enzyme_out, a,
                                        enzyme_const, N);
    double da = __enzyme_reverse((void *)relax, enzyme_dup, y, dy, enzyme_out, a,
                                 enzyme_const, N, 1.0, aug.tape);
    check("split d/da", da, grad_a);
    for (int i = 0; i < N; i++) check("split d/dy", dy[i], grad_y[i]);
    // combined mode
    memcpy(y, y0, sizeof y);
    memcpy(dy, w, sizeof dy);
    da = __enzyme_autodiff((void *)relax, enzyme_dup, y, dy, enzyme_out, a, enzyme_const, N);
    check("combined d/da", da, grad_a);
    for (int i = 0; i < N; i++) check("combined d/dy", dy[i], grad_y[i]);
  }
  printf("OK\n");
  return 0;
}
