/* Newton's method, elementwise in single precision: solve z^3 + a z = b(p) for each
   component. At its fixed point the step's derivative in z vanishes, so forward mode
   over __enzyme_fixed_point needs two passes of the step's tangent, and both modes give
   the implicit-function derivative dz/db = 1 / (3 z^2 + a) exactly. The state is float
   (the convergence test sums its squares as floats). */
#include <enzyme/fixed_point.h>
#include <math.h>
#include <stdint.h>
#include "check.h"

#define K 4
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
float __enzyme_fwddiff(void *, ...);

typedef struct {
  float a;
  int steps; /* how many times the step ran */
} newton_opts;

static int newton(int64_t i, float *z, const float *b, newton_opts *o) {
  (void)i;
  int again = 0;
  o->steps++;
  for (int k = 0; k < K; k++) {
    float f = z[k] * z[k] * z[k] + o->a * z[k] - b[k];
    float next = z[k] - f / (3.0f * z[k] * z[k] + o->a);
    again |= fabsf(next - z[k]) > 1e-6f * (1.0f + fabsf(next));
    z[k] = next;
  }
  return again;
}

float roots_sum(const float *p, float *z, newton_opts *o) {
  float b[K];
  for (int k = 0; k < K; k++) b[k] = p[k] * (1.0f + 0.5f * k);
  __enzyme_fixed_point((void *)newton, enzyme_fp_state, z, (int64_t)(K * sizeof(float)),
                       enzyme_fp_reduction, 1e-10, z, b, o);
  float s = 0;
  for (int k = 0; k < K; k++) s += z[k] * (k + 1);
  return s;
}

int main(void) {
  float p[K] = {1.0f, 2.0f, -0.5f, 3.0f}, dp[K] = {0}, z[K], dz[K] = {0};
  newton_opts o = {2.0f, 0};
  for (int k = 0; k < K; k++) z[k] = 1.0f;
  __enzyme_autodiff((void *)roots_sum, enzyme_dup, p, dp, enzyme_dup, z, dz, enzyme_const, &o);
  float zs[K];
  for (int k = 0; k < K; k++) {
    zs[k] = z[k];
    CHECK(z[k] * z[k] * z[k] + 2.0f * z[k], p[k] * (1.0f + 0.5f * k), 1e-5);
    CHECK(dp[k], (k + 1) * (1.0f + 0.5f * k) / (3.0f * z[k] * z[k] + 2.0f), 1e-5);
    CHECK(dz[k], 0.0, 0.0);
  }
  float v[K] = {0.5f, -1.0f, 0.25f, 2.0f}, tz[K] = {0};
  for (int k = 0; k < K; k++) z[k] = 1.0f;
  o.steps = 0;
  float t = __enzyme_fwddiff((void *)roots_sum, enzyme_dup, p, v, enzyme_dup, z, tz,
                             enzyme_const, &o);
  int loop_steps = o.steps;
  o.steps = 0;
  for (int k = 0; k < K; k++) z[k] = 1.0f;
  float f = roots_sum(p, z, &o);
  (void)f;
  float want = 0;
  for (int k = 0; k < K; k++) {
    want += dp[k] * v[k];
    CHECK(z[k], zs[k], 0.0);
  }
  CHECK(t, want, 1e-5);
  CHECK(loop_steps - o.steps, 2, 0.0); /* two passes of the tangent */
  printf("OK\n");
  return 0;
}
