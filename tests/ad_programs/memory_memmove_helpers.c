// A moving-window filter written the way small C signal codes are: the state, a window of
// past states and a checkpoint are plain double arrays, copied by helper functions with
// memmove/memcpy of n * sizeof(double) (run-time lengths). At -O0 the helpers reach the
// copies' ends only through their parameters reloaded from stack slots, and the
// checkpoint (heap) is only ever copied, never read as a double. Reverse mode against
// central differences, for both inputs.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define MAXN 8
#define DEPTH 4

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

static void copy_vec(double *dst, const double *src, int n) {
  memmove(dst, src, (size_t)n * sizeof(double));
}

/* window[0] is the newest state: the older ones move one slot down */
static void push_window(double window[][MAXN], int depth, const double *x, int n) {
  memmove(window[1], window[0], (size_t)(depth - 1) * sizeof window[0]);
  memcpy(window[0], x, (size_t)n * sizeof *x);
}

static double smoothed(double window[][MAXN], int depth, int i) {
  double s = 0.0, w = 0.0;
  for (int k = 0; k < depth; k++) {
    s += window[k][i] / (k + 1);
    w += 1.0 / (k + 1);
  }
  return s / w;
}

double run_filter(const double *u, const double *x0, int n, int steps) {
  double window[DEPTH][MAXN];
  double cur[MAXN], next[MAXN];
  double *checkpoint = malloc((size_t)n * sizeof(double));
  memset(window, 0, sizeof window);
  copy_vec(cur, x0, n);
  double energy = 0.0, best = INFINITY;
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < n; i++) next[i] = sin(cur[i]) * u[i] + 0.5 * cur[(i + 1) % n];
    push_window(window, DEPTH, next, n);
    for (int i = 0; i < n; i++) cur[i] = smoothed(window, DEPTH, i);
    double e = 0.0;
    for (int i = 0; i < n; i++) e += cur[i] * cur[i] * (i + 1);
    if (e < best) {  // keep the state of least energy
      best = e;
      copy_vec(checkpoint, cur, n);
    }
    energy += e;
  }
  copy_vec(cur, checkpoint, n);  // restart from the checkpoint for one more step
  for (int i = 0; i < n; i++) energy += u[i] * cur[i];
  free(checkpoint);
  return energy;
}

static void run_filter_out(const double *u, const double *x0, int n, int steps, double *out) {
  *out = run_filter(u, x0, n, steps);
}

int main(void) {
  enum { N = 5, STEPS = 6 };
  double u[N] = {0.9, -0.4, 1.3, 0.2, -1.1}, x0[N] = {0.3, 0.8, -0.5, 1.1, 0.05};
  double du[N] = {0}, dx0[N] = {0}, out = 0.0, dout = 1.0;
  __enzyme_autodiff((void *)run_filter_out, enzyme_dup, u, du, enzyme_dup, x0, dx0,
                    enzyme_const, N, enzyme_const, STEPS, enzyme_dup, &out, &dout);
  for (int k = 0; k < N; k++) {
    const double h = 1e-6;
    double up[N], um[N], xp[N], xm[N];
    for (int i = 0; i < N; i++) up[i] = um[i] = u[i], xp[i] = xm[i] = x0[i];
    up[k] += h, um[k] -= h, xp[k] += h, xm[k] -= h;
    APPROX_EQ(du[k], (run_filter(up, x0, N, STEPS) - run_filter(um, x0, N, STEPS)) / (2 * h),
              1e-6);
    APPROX_EQ(dx0[k], (run_filter(u, xp, N, STEPS) - run_filter(u, xm, N, STEPS)) / (2 * h),
              1e-6);
  }
  printf("OK\n");
  return 0;
}
