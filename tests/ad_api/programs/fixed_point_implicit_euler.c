/* Implicit Euler for a damped nonlinear pendulum chain: each time step solves
   y_{n+1} = y_n + h f(y_{n+1}) by fixed-point iteration, so __enzyme_fixed_point runs
   once per step inside the time loop. The gradient of the final energy with respect to
   the initial state and the damping (a double passed by value, active) is checked
   against the gradient through every iteration and central differences. */
#include <enzyme/fixed_point.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

#define NS 3 /* pendulums: angle and velocity each */
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

static void rhs(const double *y, double damping, double *f) {
  for (int k = 0; k < NS; k++) {
    double th = y[2 * k], om = y[2 * k + 1];
    double coupling = (k > 0 ? sin(y[2 * k - 2] - th) : 0.0) +
                      (k < NS - 1 ? sin(y[2 * k + 2] - th) : 0.0);
    f[2 * k] = om;
    f[2 * k + 1] = -sin(th) - damping * om + 0.3 * coupling;
  }
}

/* one iteration of y <- y_old + h f(y) */
static int implicit_step(int64_t it, double *y, const double *y_old, double h,
                         double damping) {
  double f[2 * NS], change = 0;
  rhs(y, damping, f);
  for (int k = 0; k < 2 * NS; k++) {
    double next = y_old[k] + h * f[k];
    change = fmax(change, fabs(next - y[k]));
    y[k] = next;
  }
  return change > 1e-14 && it < 500;
}

static double energy(const double *y) {
  double e = 0;
  for (int k = 0; k < NS; k++) e += 0.5 * y[2 * k + 1] * y[2 * k + 1] + 1.0 - cos(y[2 * k]);
  return e;
}

double simulate_plain(double *y, double damping, int steps) {
  double y_old[2 * NS];
  for (int n = 0; n < steps; n++) {
    memcpy(y_old, y, sizeof y_old);
    int64_t it = 0;
    while (implicit_step(it++, y, y_old, 0.05, damping))
      ;
  }
  return energy(y);
}

double simulate_fixed(double *y, double damping, int steps) {
  double y_old[2 * NS];
  for (int n = 0; n < steps; n++) {
    memcpy(y_old, y, sizeof y_old);
    __enzyme_fixed_point((void *)implicit_step, enzyme_fp_state, y,
                         (int64_t)sizeof y_old, enzyme_fp_reduction, 1e-28, y, y_old,
                         0.05, damping);
  }
  return energy(y);
}

static const double Y0[2 * NS] = {0.4, 0.0, -0.3, 0.2, 0.1, -0.1};

int main(void) {
  const int steps = 40;
  double y[2 * NS], dy[2 * NS] = {0}, dy_plain[2 * NS] = {0};
  memcpy(y, Y0, sizeof y);
  double dd_plain = __enzyme_autodiff((void *)simulate_plain, enzyme_dup, y, dy_plain,
                                      enzyme_out, 0.2, enzyme_const, steps);
  memcpy(y, Y0, sizeof y);
  double dd = __enzyme_autodiff((void *)simulate_fixed, enzyme_dup, y, dy, enzyme_out, 0.2,
                                enzyme_const, steps);
  CHECK(dd, dd_plain, 1e-10);
  double h = 1e-6, yp[2 * NS], ym[2 * NS];
  memcpy(yp, Y0, sizeof yp);
  memcpy(ym, Y0, sizeof ym);
  CHECK(dd, (simulate_plain(yp, 0.2 + h, steps) - simulate_plain(ym, 0.2 - h, steps)) / (2 * h),
        1e-6);
  for (int k = 0; k < 2 * NS; k++) {
    CHECK(dy[k], dy_plain[k], 1e-10);
    memcpy(yp, Y0, sizeof yp);
    memcpy(ym, Y0, sizeof ym);
    yp[k] += h;
    ym[k] -= h;
    CHECK(dy[k], (simulate_plain(yp, 0.2, steps) - simulate_plain(ym, 0.2, steps)) / (2 * h),
          1e-6);
  }
  printf("OK\n");
  return 0;
}
