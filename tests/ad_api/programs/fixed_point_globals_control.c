/* A fixed-point solve whose state and coefficients are globals (the way COMMON-block
   codes keep them), followed by code that uses the state and then overwrites it.
   - reverse mode must linearize at the converged state, not at what the later code
     left, and leave the globals as the forward pass left them;
   - the step also writes an output array y that the loss reads;
   - a control function (Tapenade's protocol) that allows three adjoint iterations is
     called first with -1, then after each iteration, and the gradient is close to,
     but not exactly, the converged one. */
#include <enzyme/fixed_point.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

#define M 5
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double state[M], coef[M], y[M];
static const double W[M][M] = {{0.5, 0.1, 0.0, 0.0, 0.2},
                               {0.1, 0.4, 0.1, 0.0, 0.0},
                               {0.0, 0.2, 0.3, 0.1, 0.0},
                               {0.0, 0.0, 0.1, 0.5, 0.1},
                               {0.2, 0.0, 0.0, 0.1, 0.4}};

__attribute__((noinline)) static int relax(int64_t iter, const double *tol) {
  (void)iter;
  double next[M], delta = 0;
  for (int i = 0; i < M; i++) {
    double acc = coef[i];
    for (int j = 0; j < M; j++) acc += W[i][j] * tanh(state[j]);
    next[i] = acc;
  }
  for (int i = 0; i < M; i++) {
    y[i] = next[i] * state[i];
    delta = fmax(delta, fabs(next[i] - state[i]));
    state[i] = next[i];
  }
  return delta > *tol;
}

static void setup(const double *x) {
  for (int i = 0; i < M; i++) {
    state[i] = 0.0;
    coef[i] = x[i] * x[i];
  }
}

static double finish(void) {
  double s = 0;
  for (int i = 0; i < M; i++) s += state[i] * state[i] * state[i] + y[i];
  for (int i = 0; i < M; i++) state[i] = -1.0;  /* later code reuses the state */
  return s;
}

double solve_plain(const double *x, const double *tol) {
  setup(x);
  int64_t k = 0;
  while (relax(k++, tol))
    ;
  return finish();
}

double solve_fixed(const double *x, const double *tol) {
  setup(x);
  __enzyme_fixed_point((void *)relax, enzyme_fp_state, state, (int64_t)sizeof state,
                       enzyme_fp_reduction, 1e-30, tol);
  return finish();
}

static int calls;
static double first_cumul, last_cumul;
static int three_iterations(double *cumul, double *reduction) {
  (void)reduction;
  if (calls++ == 0) first_cumul = *cumul;
  last_cumul = *cumul;
  return calls < 4;
}

double solve_controlled(const double *x, const double *tol) {
  setup(x);
  __enzyme_fixed_point((void *)relax, enzyme_fp_state, state, (int64_t)sizeof state,
                       enzyme_fp_control, three_iterations, tol);
  return finish();
}

int main(void) {
  const double tol = 1e-15;
  double x[M] = {0.3, 0.5, 0.7, 0.2, 0.4}, dx_plain[M] = {0}, dx[M] = {0}, dxc[M] = {0};
  __enzyme_autodiff((void *)solve_plain, enzyme_dup, x, dx_plain, enzyme_const, &tol);
  __enzyme_autodiff((void *)solve_fixed, enzyme_dup, x, dx, enzyme_const, &tol);
  for (int i = 0; i < M; i++) {
    CHECK(dx[i], dx_plain[i], 1e-11);
    CHECK(state[i], -1.0, 0.0);  /* as the forward pass left it */
    double h = 1e-6, xp[M], xm[M];
    memcpy(xp, x, sizeof x);
    memcpy(xm, x, sizeof x);
    xp[i] += h;
    xm[i] -= h;
    CHECK(dx[i], (solve_plain(xp, &tol) - solve_plain(xm, &tol)) / (2 * h), 1e-6);
  }
  __enzyme_autodiff((void *)solve_controlled, enzyme_dup, x, dxc, enzyme_const, &tol);
  CHECK(calls, 4, 0.0);
  CHECK(first_cumul, -1.0, 0.0);
  CHECK(last_cumul > 0.0, 1.0, 0.0);
  double err = 0, ref = 0;
  for (int i = 0; i < M; i++) {
    err = fmax(err, fabs(dxc[i] - dx[i]));
    ref = fmax(ref, fabs(dx[i]));
  }
  CHECK(err > 0.0 && err < 0.2 * ref, 1.0, 0.0);
  printf("OK\n");
  return 0;
}
