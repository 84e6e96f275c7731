/* An adaptive Runge-Kutta-Fehlberg 4(5) integrator written the way classic C ODE
   libraries are: the right-hand side is a callback in a problem struct together with an
   opaque parameter block, called through several layers (ode_solve -> rkf45_step ->
   f); the work arrays come from posix_memalign and from a replaceable allocator hook.
   Differentiated end to end (rate constants -> final state) in reverse and forward
   mode; checked against central differences and forward against reverse. Three ways of
   passing the problem: built inside the differentiated function (a select between two
   models), passed by the caller with a shadow problem whose callback field is zero, and
   a callback table indexed by model number. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef void (*ode_rhs)(double t, const double *y, double *dydt, void *params);

typedef struct {
  ode_rhs f;
  void *params;
  int n;
  double rtol, atol;
} ode_problem;

/* replaceable allocator hooks, as libraries expose them */
void *(*ode_malloc)(size_t) = malloc;
void (*ode_free)(void *) = free;

typedef struct {
  double *k[6];
  double *ytmp, *yerr;
} ode_work;

static int work_alloc(ode_work *w, int n) {
  for (int i = 0; i < 6; i++) {
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)n * sizeof(double)) != 0) return -1;
    w->k[i] = (double *)p;
  }
  w->ytmp = (double *)ode_malloc((size_t)n * sizeof(double));
  w->yerr = (double *)ode_malloc((size_t)n * sizeof(double));
  return 0;
}

static void work_free(ode_work *w) {
  for (int i = 0; i < 6; i++) free(w->k[i]);
  ode_free(w->ytmp);
  ode_free(w->yerr);
}

/* one RKF45 step of size h; returns the scaled error norm of the embedded pair */
__attribute__((noinline)) static double rkf45_step(const ode_problem *pb, ode_work *w, double t,
                                                   double *y, double h) {
  static const double a[6][5] = {{0, 0, 0, 0, 0},
                                 {1.0 / 4, 0, 0, 0, 0},
                                 {3.0 / 32, 9.0 / 32, 0, 0, 0},
                                 {1932.0 / 2197, -7200.0 / 2197, 7296.0 / 2197, 0, 0},
                                 {439.0 / 216, -8.0, 3680.0 / 513, -845.0 / 4104, 0},
                                 {-8.0 / 27, 2.0, -3544.0 / 2565, 1859.0 / 4104, -11.0 / 40}};
  static const double c[6] = {0, 1.0 / 4, 3.0 / 8, 12.0 / 13, 1.0, 1.0 / 2};
  static const double b4[6] = {25.0 / 216, 0, 1408.0 / 2565, 2197.0 / 4104, -1.0 / 5, 0};
  static const double b5[6] = {16.0 / 135, 0, 6656.0 / 12825, 28561.0 / 56430, -9.0 / 50,
                               2.0 / 55};
  int n = pb->n;
  for (int s = 0; s < 6; s++) {
    for (int i = 0; i < n; i++) {
      double acc = y[i];
      for (int j = 0; j < s; j++) acc += h * a[s][j] * w->k[j][i];
      w->ytmp[i] = acc;
    }
    pb->f(t + c[s] * h, w->ytmp, w->k[s], pb->params);
  }
  double err = 0;
  for (int i = 0; i < n; i++) {
    double y4 = y[i], y5 = y[i];
    for (int s = 0; s < 6; s++) {
      y4 += h * b4[s] * w->k[s][i];
      y5 += h * b5[s] * w->k[s][i];
    }
    double sc = pb->atol + pb->rtol * fabs(y[i]);
    double e = (y5 - y4) / sc;
    err += e * e;
    w->yerr[i] = y5;
  }
  return sqrt(err / n);
}

/* integrate from t0 to t1 with step size control (accepted steps overwrite y) */
__attribute__((noinline)) int ode_solve(const ode_problem *pb, double *y, double t0, double t1) {
  ode_work w;
  if (work_alloc(&w, pb->n) != 0) return -1;
  double t = t0, h = 0.05 * (t1 - t0);
  int steps = 0;
  while (t < t1 && steps < 1000) {
    if (t + h > t1) h = t1 - t;
    double err = rkf45_step(pb, &w, t, y, h);
    if (err <= 1.0) {
      t += h;
      memcpy(y, w.yerr, (size_t)pb->n * sizeof(double));
      steps++;
    }
    /* the controller only decides the mesh: its derivative is not wanted */
    double fac = 0.9 * pow(err > 1e-10 ? err : 1e-10, -0.2);
    fac = fac < 0.2 ? 0.2 : (fac > 5.0 ? 5.0 : fac);
    h = h * fac;
  }
  work_free(&w);
  return steps;
}

/* two models: a damped oscillator and Lotka-Volterra */
typedef struct { double k, c; } oscillator;
typedef struct { double a, b, c, d; } predator_prey;

static void oscillator_rhs(double t, const double *y, double *dydt, void *params) {
  const oscillator *p = (const oscillator *)params;
  dydt[0] = y[1];
  dydt[1] = -p->k * y[0] - p->c * y[1] + 0.1 * sin(t);
}
static void predator_prey_rhs(double t, const double *y, double *dydt, void *params) {
  const predator_prey *p = (const predator_prey *)params;
  dydt[0] = p->a * y[0] - p->b * y[0] * y[1];
  dydt[1] = p->d * y[0] * y[1] - p->c * y[1];
}

/* the problem is built inside: the callback is a select between the two models */
double final_state(const double *theta, int model) {
  oscillator osc = {theta[0], theta[1]};
  predator_prey pp = {theta[0], theta[1], 0.8, 0.3};
  ode_problem pb = {model ? predator_prey_rhs : oscillator_rhs,
                    model ? (void *)&pp : (void *)&osc, 2, 1e-9, 1e-9};
  double y[2] = {1.0, 0.5};
  ode_solve(&pb, y, 0.0, 4.0);
  return y[0] + 2.0 * y[1];
}

/* a callback table indexed by model number (constant: resolved by the IR) */
static void (*const models[2])(double, const double *, double *, void *) = {oscillator_rhs,
                                                                          predator_prey_rhs};
double final_state_table(const double *theta, int model) {
  predator_prey pp = {theta[0], theta[1], 0.8, 0.3};
  oscillator osc = {theta[0], theta[1]};
  ode_problem pb = {models[model], model ? (void *)&pp : (void *)&osc, 2, 1e-9, 1e-9};
  double y[2] = {1.0, 0.5};
  ode_solve(&pb, y, 0.0, 4.0);
  return y[0] * y[1];
}

/* the caller owns the problem: differentiated with a shadow problem */
void integrate(const ode_problem *pb, double *y) { ode_solve(pb, y, 0.0, 3.0); }

static int failures = 0;
static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    printf("%s: got %.15g, want %.15g\n", what, got, want);
    failures++;
  }
}

static void check_gradient(double (*f)(const double *, int), const double *grad,
                           const double *theta, int model, const char *name) {
  const double h = 1e-6;
  for (int k = 0; k < 2; k++) {
    double tp[2] = {theta[0], theta[1]}, tm[2] = {theta[0], theta[1]};
    tp[k] += h;
    tm[k] -= h;
    double fd = (f(tp, model) - f(tm, model)) / (2 * h);
    printf("%s model %d: d/dtheta%d = %.12g (central difference %.12g)\n", name, model, k,
           grad[k], fd);
    check("reverse vs central difference", grad[k], fd, 1e-5);
  }
}

int main(void) {
  const double h = 1e-6;
  for (int model = 0; model < 2; model++) {
    double theta[2] = {model ? 1.1 : 2.0, model ? 0.4 : 0.3};
    double g1[2] = {0, 0}, g2[2] = {0, 0};
    __enzyme_autodiff((void *)final_state, enzyme_dup, theta, g1, enzyme_const, model);
    __enzyme_autodiff((void *)final_state_table, enzyme_dup, theta, g2, enzyme_const, model);
    check_gradient(final_state, g1, theta, model, "final_state");
    check_gradient(final_state_table, g2, theta, model, "final_state_table");
    for (int k = 0; k < 2; k++) {
      double dir[2] = {0, 0};
      dir[k] = 1;
      double t1 = __enzyme_fwddiff((void *)final_state, enzyme_dup, theta, dir, enzyme_const,
                                   model);
      double t2 = __enzyme_fwddiff((void *)final_state_table, enzyme_dup, theta, dir,
                                   enzyme_const, model);
      check("forward vs reverse", t1, g1[k], 1e-10);
      check("forward vs reverse (table)", t2, g2[k], 1e-10);
    }
  }
  /* the caller's problem and shadow problem (callback field left zero) */
  predator_prey pp = {1.1, 0.4, 0.8, 0.3}, dpp = {0, 0, 0, 0};
  ode_problem pb = {predator_prey_rhs, &pp, 2, 1e-9, 1e-9};
  ode_problem dpb;
  memset(&dpb, 0, sizeof dpb);
  dpb.params = &dpp;
  double y[2] = {1.0, 0.5}, dy[2] = {1.0, 0.0};
  __enzyme_autodiff((void *)integrate, enzyme_dup, &pb, &dpb, enzyme_dup, y, dy);
  predator_prey pa = pp, pm = pp;
  pa.b += h;
  pm.b -= h;
  ode_problem pba = {predator_prey_rhs, &pa, 2, 1e-9, 1e-9}, pbm = pba;
  pbm.params = &pm;
  double ya[2] = {1.0, 0.5}, ym[2] = {1.0, 0.5};
  integrate(&pba, ya);
  integrate(&pbm, ym);
  check("d y0(T) / d b through the caller's problem", dpp.b, (ya[0] - ym[0]) / (2 * h), 1e-5);
  if (failures) abort();
  printf("OK\n");
  return 0;
}
