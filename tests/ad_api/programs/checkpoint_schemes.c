/* Checkpointed time loops (enzyme/checkpoint.h):
   - upwind advection with a nonlinear source, through __enzyme_checkpoint_for with each
     reference scheme (Revolve, periodic, store-all), 0..40 steps and 1..4 snapshots: the
     gradient (state and an active scalar) must equal that of the plain loop, every step
     is taped exactly once, Revolve never holds more slots than allowed, and the state is
     left as the forward pass left it; a global the step writes is part of the snapshot;
   - forward mode through the same call (the plain loop with the step's tangent);
   - a damped oscillator stepped until its clock passes T, through
     __enzyme_checkpoint_while (the number of steps is known only at the end). */
#include <enzyme/checkpoint.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define M 12
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double total_mass; /* written by every step: snapshots hold it */

static void advance(int64_t t, double *u, double c, const double *src) {
  double next[M];
  for (int k = 0; k < M; k++) {
    double left = u[(k + M - 1) % M];
    next[k] = u[k] - c * (u[k] - left) + 0.01 * src[k] * sin(u[k] + 0.05 * (double)t);
  }
  double m = 0;
  for (int k = 0; k < M; k++) { u[k] = next[k]; m += next[k]; }
  total_mass = m;
}

static double loss(const double *u) {
  double s = total_mass * 0.1;
  for (int k = 0; k < M; k++) s += u[k] * u[k] * (1 + 0.1 * k);
  return s;
}

double plain(double *u, double c, const double *src, int64_t n) {
  for (int64_t t = 0; t < n; t++) advance(t, u, c, src);
  return loss(u);
}

static const EnzymeCheckpointScheme *SCHEME;
static EnzymeCkptConfig CONFIG;

double checkpointed(double *u, double c, const double *src, int64_t n) {
  __enzyme_checkpoint_for((void *)advance, 0, n, enzyme_scheme, SCHEME, &CONFIG,
                          enzyme_checkpoint_region, u, (int64_t)(M * sizeof(double)), u, c,
                          src);
  return loss(u);
}

/* a while loop: steps of a damped oscillator until the clock passes T */
typedef struct { double t, T, h; } clock_t_;
static int oscillate(int64_t i, double *y, double k, clock_t_ *clk) {
  (void)i;
  double a = -k * y[0] - 0.1 * y[1];
  y[1] += clk->h * a;
  y[0] += clk->h * y[1];
  clk->t += clk->h;
  return clk->t < clk->T;
}
double oscillate_plain(double *y, double k) {
  clock_t_ clk = {0.0, 2.0, 0.07};
  int64_t i = 0;
  while (oscillate(i++, y, k, &clk))
    ;
  return y[0] * y[0] + 0.5 * y[1];
}
double oscillate_checkpointed(double *y, double k) {
  clock_t_ clk = {0.0, 2.0, 0.07};
  EnzymeCkptStats stats;
  EnzymeCkptConfig config = {0, 0, NULL, 0, &stats};
  __enzyme_checkpoint_while((void *)oscillate, enzyme_scheme, &EnzymeCkptStoreAll, &config,
                            enzyme_checkpoint_region, y, (int64_t)(2 * sizeof(double)),
                            enzyme_checkpoint_region, &clk, (int64_t)sizeof clk, y, k, &clk);
  return y[0] * y[0] + 0.5 * y[1];
}

int main(void) {
  double u0[M], src[M];
  for (int k = 0; k < M; k++) { u0[k] = sin(0.5 * k) + 1.5; src[k] = cos(0.3 * k); }
  const EnzymeCheckpointScheme *schemes[3] = {&EnzymeCkptRevolve, &EnzymeCkptPeriodic,
                                              &EnzymeCkptStoreAll};
  int64_t steps[] = {0, 1, 7, 40};
  int bad = 0;
  for (int ns = 0; ns < 4; ns++) {
    int64_t n = steps[ns];
    double u[M], du0[M] = {0};
    memcpy(u, u0, sizeof u);
    double dc0 = __enzyme_autodiff((void *)plain, enzyme_dup, u, du0, enzyme_out, 0.3,
                                   enzyme_const, src, enzyme_const, n);
    double uend[M];
    memcpy(uend, u, sizeof u);
    for (int s = 0; s < 3; s++)
      for (int64_t snaps = 1; snaps <= 4; snaps++) {
        EnzymeCkptStats stats;
        memset(&stats, 0, sizeof stats);
        CONFIG = (EnzymeCkptConfig){snaps, 0, NULL, 0, &stats};
        SCHEME = schemes[s];
        double du[M] = {0};
        memcpy(u, u0, sizeof u);
        double dc = __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, du, enzyme_out,
                                      0.3, enzyme_const, src, enzyme_const, n);
        if (fabs(dc - dc0) > 1e-12 * (1 + fabs(dc0))) { printf("s%d n%ld k%ld dc %g vs %g\n", s, (long)n, (long)snaps, dc, dc0); bad++; }
        for (int k = 0; k < M; k++)
          if (fabs(du[k] - du0[k]) > 1e-12 * (1 + fabs(du0[k]))) { printf("s%d n%ld k%ld du[%d] %g vs %g\n", s, (long)n, (long)snaps, k, du[k], du0[k]); bad++; break; }
        if (memcmp(u, uend, sizeof u)) { printf("state differs s%d n%ld\n", s, (long)n); bad++; }
        if (stats.taped_steps != n) { printf("s%d n%ld: %ld taped\n", s, (long)n, (long)stats.taped_steps); bad++; }
        if (s == 0 && stats.max_slots > snaps) { printf("revolve %ld slots\n", (long)stats.max_slots); bad++; }
      }
  }
  double tu[M];
  for (int k = 0; k < M; k++) tu[k] = 0.1 * k;
  double u[M];
  memcpy(u, u0, sizeof u);
  CONFIG = (EnzymeCkptConfig){3, 0, NULL, 0, NULL};
  SCHEME = &EnzymeCkptRevolve;
  double t1 = __enzyme_fwddiff((void *)checkpointed, enzyme_dup, u, tu, 0.3, 1.0,
                               enzyme_const, src, enzyme_const, (int64_t)40);
  for (int k = 0; k < M; k++) tu[k] = 0.1 * k;
  memcpy(u, u0, sizeof u);
  double t0 = __enzyme_fwddiff((void *)plain, enzyme_dup, u, tu, 0.3, 1.0, enzyme_const, src,
                               enzyme_const, (int64_t)40);
  if (fabs(t1 - t0) > 1e-12 * (1 + fabs(t0))) { printf("forward %g vs %g\n", t1, t0); bad++; }
  double y[2] = {1.0, 0.0}, dy0[2] = {0}, dy[2] = {0};
  double dk0 = __enzyme_autodiff((void *)oscillate_plain, enzyme_dup, y, dy0, enzyme_out, 3.0);
  y[0] = 1.0; y[1] = 0.0;
  double dk = __enzyme_autodiff((void *)oscillate_checkpointed, enzyme_dup, y, dy, enzyme_out, 3.0);
  if (fabs(dk - dk0) > 1e-12 * (1 + fabs(dk0)) || fabs(dy[0] - dy0[0]) > 1e-12 * (1 + fabs(dy0[0])) ||
      fabs(dy[1] - dy0[1]) > 1e-12 * (1 + fabs(dy0[1]))) {
    printf("while loop: %g %g %g vs %g %g %g\n", dk, dy[0], dy[1], dk0, dy0[0], dy0[1]);
    bad++;
  }
  printf(bad ? "FAIL\n" : "OK\n");
  return bad != 0;
}
