// SANITIZE: address,undefined
// An adaptive Runge-Kutta-Fehlberg 4(5) integrator that keeps the whole trajectory: each
// step's state lives in its own heap buffer in a history table. A step whose error
// estimate is too large is rejected: its buffer is freed, the step size reduced, and the
// step redone into the same slot of the table. The right-hand side (a damped
// Van der Pol oscillator with a parameter) is called through a function pointer. The
// gradient of an objective over the trajectory with respect to the parameter and the
// initial state is checked against central differences and forward mode.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const, enzyme_dup, enzyme_out;

enum { DIM = 2, MAX_STEPS = 400 };

typedef void (*rhs_fn)(double t, const double *y, double *dydt, const double *p);

static void van_der_pol(double t, const double *y, double *dydt, const double *p) {
  (void)t;
  dydt[0] = y[1];
  dydt[1] = p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0];
}

typedef struct {
  double *state[MAX_STEPS + 1]; /* state[k]: DIM values at time[k] */
  double time[MAX_STEPS + 1];
  int nsteps;
} trajectory;

/* one Fehlberg step from y (size DIM) over h: y5 gets the 5th-order solution, the
   return value is the norm of the difference to the embedded 4th-order one */
static double rkf45_step(rhs_fn f, double t, const double *y, double h, const double *p,
                         double *y5) {
  double k1[DIM], k2[DIM], k3[DIM], k4[DIM], k5[DIM], k6[DIM], tmp[DIM];
  f(t, y, k1, p);
  for (int i = 0; i < DIM; i++) tmp[i] = y[i] + h * (1.0 / 4) * k1[i];
  f(t + h / 4, tmp, k2, p);
  for (int i = 0; i < DIM; i++) tmp[i] = y[i] + h * (3.0 / 32 * k1[i] + 9.0 / 32 * k2[i]);
  f(t + 3 * h / 8, tmp, k3, p);
  for (int i = 0; i < DIM; i++)
    tmp[i] = y[i] + h * (1932.0 / 2197 * k1[i] - 7200.0 / 2197 * k2[i] + 7296.0 / 2197 * k3[i]);
  f(t + 12 * h / 13, tmp, k4, p);
  for (int i = 0; i < DIM; i++)
    tmp[i] = y[i] + h * (439.0 / 216 * k1[i] - 8 * k2[i] + 3680.0 / 513 * k3[i]
                         - 845.0 / 4104 * k4[i]);
  f(t + h, tmp, k5, p);
  for (int i = 0; i < DIM; i++)
    tmp[i] = y[i] + h * (-8.0 / 27 * k1[i] + 2 * k2[i] - 3544.0 / 2565 * k3[i]
                         + 1859.0 / 4104 * k4[i] - 11.0 / 40 * k5[i]);
  f(t + h / 2, tmp, k6, p);
  double err = 0.0;
  for (int i = 0; i < DIM; i++) {
    double y4 = y[i] + h * (25.0 / 216 * k1[i] + 1408.0 / 2565 * k3[i] + 2197.0 / 4104 * k4[i]
                            - 1.0 / 5 * k5[i]);
    y5[i] = y[i] + h * (16.0 / 135 * k1[i] + 6656.0 / 12825 * k3[i]
                        + 28561.0 / 56430 * k4[i] - 9.0 / 50 * k5[i] + 2.0 / 55 * k6[i]);
    err += (y5[i] - y4) * (y5[i] - y4);
  }
  return sqrt(err);
}

/* integrate from t0 to t1; rejected steps free their buffer and redo the slot */
static int integrate(rhs_fn f, const double *y0, const double *p, double t0, double t1,
                     double tol, trajectory *tr) {
  double h = 0.1;
  tr->state[0] = malloc(DIM * sizeof(double));
  memcpy(tr->state[0], y0, DIM * sizeof(double));
  tr->time[0] = t0;
  int k = 0;
  double t = t0;
  while (t < t1 && k < MAX_STEPS) {
    if (t + h > t1) h = t1 - t;
    tr->state[k + 1] = malloc(DIM * sizeof(double));
    double err = rkf45_step(f, t, tr->state[k], h, p, tr->state[k + 1]);
    if (err > tol && h > 1e-6) {
      free(tr->state[k + 1]); /* rejected: drop the buffer, retry with a smaller step */
      tr->state[k + 1] = NULL;
      h *= 0.5;
      continue;
    }
    t += h;
    k++;
    tr->time[k] = t;
    if (err < tol / 32) h *= 2.0;
  }
  tr->nsteps = k;
  return k;
}

static void free_trajectory(trajectory *tr) {
  for (int k = 0; k <= tr->nsteps; k++) free(tr->state[k]);
}

/* objective: the trapezoidal time integral of y0(t)^2 plus the final velocity */
double objective(const double *y0, const double *p) {
  trajectory tr;
  integrate(van_der_pol, y0, p, 0.0, 3.0, 1e-6, &tr);
  double J = 0.0;
  for (int k = 0; k < tr.nsteps; k++) {
    double dt = tr.time[k + 1] - tr.time[k];
    J += 0.5 * dt * (tr.state[k][0] * tr.state[k][0] + tr.state[k + 1][0] * tr.state[k + 1][0]);
  }
  J += tr.state[tr.nsteps][1];
  free_trajectory(&tr);
  return J;
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    abort();
  }
}

int main(void) {
  double y0[DIM] = {1.5, 0.0}, p[1] = {0.8};
  double dy0[DIM] = {0.0, 0.0}, dp[1] = {0.0};
  __enzyme_autodiff((void *)objective, enzyme_dup, y0, dy0, enzyme_dup, p, dp);
  const double h = 1e-7;
  double *inputs[3] = {&y0[0], &y0[1], &p[0]};
  double grads[3] = {dy0[0], dy0[1], dp[0]};
  for (int k = 0; k < 3; k++) {
    double saved = *inputs[k];
    *inputs[k] = saved + h;
    double fp = objective(y0, p);
    *inputs[k] = saved - h;
    double fm = objective(y0, p);
    *inputs[k] = saved;
    check("reverse vs central difference", grads[k], (fp - fm) / (2 * h), 1e-5);
    double ty[DIM] = {0.0, 0.0}, tp[1] = {0.0};
    if (k < 2) ty[k] = 1.0; else tp[0] = 1.0;
    double tangent = __enzyme_fwddiff((void *)objective, enzyme_dup, y0, ty, enzyme_dup, p, tp);
    check("forward vs reverse", tangent, grads[k], 1e-9);
  }
  printf("dJ/dy0 = (%.10f, %.10f), dJ/dmu = %.10f\nOK\n", dy0[0], dy0[1], dp[0]);
  return 0;
}
