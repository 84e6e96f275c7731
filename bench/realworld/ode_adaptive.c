/* An adaptive Dormand-Prince 5(4) integrator written the way a small public ODE library
   writes it: the right-hand side called through a function pointer in a problem struct,
   options and statistics structs, malloc'd stage buffers reused first-same-as-last, an
   initial step guessed from the data, a trial state malloc'd for every attempt (freed when
   the error test rejects the step, taking the place of the old state when it accepts).

   The problem: generalized Lotka-Volterra, dy_i/dt = y_i (r_i + sum_j a_ij y_j), with
   antisymmetric interactions and self-limitation (bounded, damped oscillations). The
   objective is a misfit of the final state; its gradient is taken w.r.t. the initial state,
   the growth rates and the interaction matrix, the step-size control included (as Enzyme
   does and as finite differences of the primal see it). */
#include <string.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* ---- the integrator -------------------------------------------------------------------- */

typedef void (*ode_rhs)(double t, const double *y, double *dydt, const void *params);

typedef struct {
  int dim;
  ode_rhs rhs;
  const void *params;
} ode_problem;

typedef struct {
  double rtol, atol;
  double h_init; /* <= 0: guess from the problem */
  double h_max;
  double safety, fac_min, fac_max;
  int max_steps;
} ode_options;

typedef struct {
  int accepted, rejected, rhs_evals;
} ode_stats;

enum { ODE_OK = 0, ODE_TOO_MANY_STEPS = 1, ODE_STEP_TOO_SMALL = 2 };

/* Dormand & Prince (1980) tableau, 5th-order solution, error = 5th - 4th order weights */
static const double C2 = 1.0 / 5, C3 = 3.0 / 10, C4 = 4.0 / 5, C5 = 8.0 / 9;
static const double A21 = 1.0 / 5;
static const double A31 = 3.0 / 40, A32 = 9.0 / 40;
static const double A41 = 44.0 / 45, A42 = -56.0 / 15, A43 = 32.0 / 9;
static const double A51 = 19372.0 / 6561, A52 = -25360.0 / 2187, A53 = 64448.0 / 6561,
                    A54 = -212.0 / 729;
static const double A61 = 9017.0 / 3168, A62 = -355.0 / 33, A63 = 46732.0 / 5247,
                    A64 = 49.0 / 176, A65 = -5103.0 / 18656;
static const double B1 = 35.0 / 384, B3 = 500.0 / 1113, B4 = 125.0 / 192,
                    B5 = -2187.0 / 6784, B6 = 11.0 / 84;
static const double E1 = 71.0 / 57600, E3 = -71.0 / 16695, E4 = 71.0 / 1920,
                    E5 = -17253.0 / 339200, E6 = 22.0 / 525, E7 = -1.0 / 40;

static double rms_norm(const double *v, const double *y, const double *ynew, int n,
                       const ode_options *opt) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double sc = opt->atol + opt->rtol * fmax(fabs(y[i]), fabs(ynew ? ynew[i] : y[i]));
    s += (v[i] / sc) * (v[i] / sc);
  }
  return sqrt(s / n);
}

/* Hairer, Norsett & Wanner's starting step: one explicit Euler step to estimate f' */
static double initial_step(const ode_problem *p, double t0, const double *y0, const double *f0,
                           const ode_options *opt, double *y1, double *f1, ode_stats *st) {
  int n = p->dim;
  double d0 = rms_norm(y0, y0, NULL, n, opt), d1 = rms_norm(f0, y0, NULL, n, opt);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  for (int i = 0; i < n; i++) y1[i] = y0[i] + h0 * f0[i];
  p->rhs(t0 + h0, y1, f1, p->params);
  st->rhs_evals++;
  for (int i = 0; i < n; i++) f1[i] -= f0[i];
  double d2 = rms_norm(f1, y0, NULL, n, opt) / h0;
  double h1 = fmax(d1, d2) <= 1e-15 ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / fmax(d1, d2), 0.2);
  return fmin(fmin(100 * h0, h1), opt->h_max);
}

/* one Dormand-Prince attempt from (t, y) with step h; k[0] holds f(t, y) on entry, k[6]
   f(t + h, ynew) on exit, the local error estimate in ytmp */
static void dopri_attempt(const ode_problem *p, double t, double h, const double *y,
                            double *ynew, double *const k[7], double *ytmp) {
  int n = p->dim;
  for (int i = 0; i < n; i++) ytmp[i] = y[i] + h * A21 * k[0][i];
  p->rhs(t + C2 * h, ytmp, k[1], p->params);
  for (int i = 0; i < n; i++) ytmp[i] = y[i] + h * (A31 * k[0][i] + A32 * k[1][i]);
  p->rhs(t + C3 * h, ytmp, k[2], p->params);
  for (int i = 0; i < n; i++)
    ytmp[i] = y[i] + h * (A41 * k[0][i] + A42 * k[1][i] + A43 * k[2][i]);
  p->rhs(t + C4 * h, ytmp, k[3], p->params);
  for (int i = 0; i < n; i++)
    ytmp[i] = y[i] + h * (A51 * k[0][i] + A52 * k[1][i] + A53 * k[2][i] + A54 * k[3][i]);
  p->rhs(t + C5 * h, ytmp, k[4], p->params);
  for (int i = 0; i < n; i++)
    ytmp[i] = y[i] + h * (A61 * k[0][i] + A62 * k[1][i] + A63 * k[2][i] + A64 * k[3][i] +
                          A65 * k[4][i]);
  p->rhs(t + h, ytmp, k[5], p->params);
  for (int i = 0; i < n; i++)
    ynew[i] = y[i] + h * (B1 * k[0][i] + B3 * k[2][i] + B4 * k[3][i] + B5 * k[4][i] +
                          B6 * k[5][i]);
  p->rhs(t + h, ynew, k[6], p->params);
  /* the error estimate goes to ytmp, which is free again */
  for (int i = 0; i < n; i++)
    ytmp[i] = h * (E1 * k[0][i] + E3 * k[2][i] + E4 * k[3][i] + E5 * k[4][i] + E6 * k[5][i] +
                   E7 * k[6][i]);
}

/* integrates y from t0 to t1 in place; returns ODE_OK or an error code */
int ode_integrate(const ode_problem *p, double t0, double t1, double *y_io,
                  const ode_options *opt, ode_stats *st) {
  int n = p->dim, status = ODE_OK;
  double *k[7];
  for (int s = 0; s < 7; s++) k[s] = malloc(sizeof(double) * n);
  double *ytmp = malloc(sizeof(double) * n);
  double *y = malloc(sizeof(double) * n);
  memcpy(y, y_io, sizeof(double) * n);
  st->accepted = st->rejected = st->rhs_evals = 0;

  double t = t0;
  p->rhs(t, y, k[0], p->params);
  st->rhs_evals++;
  double h = opt->h_init > 0 ? opt->h_init : initial_step(p, t, y, k[0], opt, ytmp, k[1], st);
  int last_rejected = 0;
  while (t1 - t > 1e-12 * fabs(t1)) {
    if (st->accepted + st->rejected >= opt->max_steps) {
      status = ODE_TOO_MANY_STEPS;
      break;
    }
    if (h < 1e-14 * fabs(t)) {
      status = ODE_STEP_TOO_SMALL;
      break;
    }
    if (t + h > t1) h = t1 - t;
    double *ynew = malloc(sizeof(double) * n);
    dopri_attempt(p, t, h, y, ynew, k, ytmp);
    st->rhs_evals += 6;
    double err = rms_norm(ytmp, y, ynew, n, opt);
    double fac = err == 0.0 ? opt->fac_max : opt->safety * pow(err, -0.2);
    if (err <= 1.0) {
      t += h;
      free(y);
      y = ynew;
      double *first = k[0]; /* first same as last */
      k[0] = k[6];
      k[6] = first;
      st->accepted++;
      if (last_rejected) fac = fmin(fac, 1.0);
      last_rejected = 0;
      h = fmin(h * fmin(opt->fac_max, fmax(opt->fac_min, fac)), opt->h_max);
    } else {
      free(ynew);
      st->rejected++;
      last_rejected = 1;
      h *= fmax(opt->fac_min, fac);
    }
  }
  memcpy(y_io, y, sizeof(double) * n);
  free(y);
  free(ytmp);
  for (int s = 0; s < 7; s++) free(k[s]);
  return status;
}

/* ---- the problem ----------------------------------------------------------------------- */

typedef struct {
  int n;
  const double *r, *a; /* growth rates, row-major interaction matrix */
} glv_params;

static void glv_rhs(double t, const double *y, double *dydt, const void *params) {
  const glv_params *q = params;
  (void)t;
  for (int i = 0; i < q->n; i++) {
    double s = q->r[i];
    for (int j = 0; j < q->n; j++) s += q->a[i * q->n + j] * y[j];
    dydt[i] = y[i] * s;
  }
}

static ode_stats STATS;

double glv_misfit(const double *y0, const double *r, const double *a, int n, double t_end,
                  double *y) {
  glv_params q = {n, r, a};
  ode_problem p = {n, glv_rhs, &q};
  ode_options opt = {1e-8, 1e-10, 0.0, 1.0, 0.9, 0.2, 5.0, 1000000};
  for (int i = 0; i < n; i++) y[i] = y0[i];
  if (ode_integrate(&p, 0.0, t_end, y, &opt, &STATS) != ODE_OK) return NAN;
  double m = 0.0;
  for (int i = 0; i < n; i++) m += (y[i] - 0.5) * (y[i] - 0.5);
  return m;
}

/* ---- the benchmark --------------------------------------------------------------------- */

static int N;
static double T_END, *Y0, *R, *A, *Y, *dY0, *dR, *dA, *dY, *TY0, *TR, *TA, tangent;
static volatile double sink;

static double objective(void) { return glv_misfit(Y0, R, A, N, T_END, Y); }
static void primal(void) { sink = objective(); }
static void gradient(void) {
  memset(dY0, 0, sizeof(double) * N);
  memset(dR, 0, sizeof(double) * N);
  memset(dA, 0, sizeof(double) * N * N);
  memset(dY, 0, sizeof(double) * N);
  __enzyme_autodiff((void *)glv_misfit, enzyme_dup, Y0, dY0, enzyme_dup, R, dR, enzyme_dup, A,
                    dA, enzyme_const, N, enzyme_const, T_END, enzyme_dup, Y, dY);
}
static void forward(void) {
  tangent = __enzyme_fwddiff((void *)glv_misfit, enzyme_dup, Y0, TY0, enzyme_dup, R, TR,
                             enzyme_dup, A, TA, enzyme_const, N, enzyme_const, T_END,
                             enzyme_dup, Y, dY);
}

/* steps small enough to keep the sequence of accepted and rejected steps, large enough
   to stay above the rounding that step-size control adds to the objective */
static void verify(void) {
  gradient();
  bench_fd_check("dy0", objective, Y0, dY0, N, N < 4 ? N : 4, 1e-4);
  bench_fd_check("dr", objective, R, dR, N, N < 4 ? N : 4, 1e-4);
  bench_fd_check("da", objective, A, dA, N * N, 6, 1e-4);
  forward();
  bench_dir d[3] = {{Y0, TY0, N}, {R, TR, N}, {A, TA, N * N}};
  bench_fd_check_dir("tangent", objective, d, 3, tangent, 1e-4);
}

int main(int argc, char **argv) {
  N = argc > 1 ? atoi(argv[1]) : 2;
  T_END = argc > 2 ? atof(argv[2]) : 20.0;
  Y0 = malloc(sizeof(double) * N), R = malloc(sizeof(double) * N);
  A = malloc(sizeof(double) * N * N), Y = malloc(sizeof(double) * N);
  dY0 = malloc(sizeof(double) * N), dR = malloc(sizeof(double) * N);
  dA = malloc(sizeof(double) * N * N), dY = malloc(sizeof(double) * N);
  TY0 = malloc(sizeof(double) * N), TR = malloc(sizeof(double) * N);
  TA = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N; i++) {
    Y0[i] = 0.5 + 0.4 * sin(1.0 + 2.0 * i);
    R[i] = (i % 2 ? -0.6 : 1.0) + 0.2 * cos(3.0 * i);
    TY0[i] = cos(0.5 * i);
    TR[i] = sin(0.3 + i);
    for (int j = 0; j < N; j++) {
      double s = -1.2 * sin(1.7 * (i + 1) * (j + 2) - 1.1 * (j + 1) * (i + 2)) / sqrt(N);
      A[i * N + j] = i == j ? -0.3 : s;
      TA[i * N + j] = 0.1 * cos(0.9 * (i * N + j));
    }
  }
  /* antisymmetric part: a_ji = -a_ij */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < i; j++) A[i * N + j] = -A[j * N + i];
  primal();
  if (isnan(sink)) {
    fprintf(stderr, "ode_adaptive: the integration failed\n");
    return 2;
  }
  char size[96];
  snprintf(size, sizeof size, "n=%d T=%g (%d steps, %d rejected)", N, T_END, STATS.accepted,
           STATS.rejected);
  bench_report("ode_adaptive", size, primal, gradient, forward, verify, 11, &dY0[0]);
  return 0;
}
