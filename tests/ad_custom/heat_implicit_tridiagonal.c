/* Implicit (backward Euler) time stepping of a 1-D heat equation with a spatially varying
 * conductivity. Each step solves a tridiagonal system with a routine of a library irgrad
 * never sees (tridiag_solve, defined in another object file); the program gives it a
 * custom gradient (augmented forward + reverse with a tape: the adjoint solve with the
 * transposed matrix) and a custom forward derivative, the way Enzyme users do.
 * Checked: reverse mode (combined and split) and forward mode against central finite
 * differences, and against each other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

void tridiag_solve(int n, const double *lo, const double *diag, const double *up,
                   const double *rhs, double *x);

/* -- the custom derivatives of tridiag_solve ------------------------------------------ */

typedef struct {
  int n;
  double *lo, *diag, *up, *x; /* the matrix and the solution, as they were */
} SolveTape;

static double *copy(const double *v, int n) {
  double *c = malloc(sizeof(double) * (size_t)n);
  memcpy(c, v, sizeof(double) * (size_t)n);
  return c;
}

void *tridiag_solve_aug(int n, const double *lo, double *d_lo, const double *diag,
                        double *d_diag, const double *up, double *d_up, const double *rhs,
                        double *d_rhs, double *x, double *d_x) {
  tridiag_solve(n, lo, diag, up, rhs, x);
  SolveTape *t = malloc(sizeof *t);
  t->n = n;
  t->lo = copy(lo, n);
  t->diag = copy(diag, n);
  t->up = copy(up, n);
  t->x = copy(x, n);
  return t;
}

/* A x = r: with lambda = A^-T xbar, rbar += lambda and Abar -= lambda x^T */
void tridiag_solve_rev(int n, const double *lo, double *d_lo, const double *diag,
                       double *d_diag, const double *up, double *d_up, const double *rhs,
                       double *d_rhs, double *x, double *d_x, void *tape) {
  SolveTape *t = tape;
  double *lo_t = malloc(sizeof(double) * (size_t)n), *up_t = malloc(sizeof(double) * (size_t)n);
  double *lambda = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) {
    lo_t[i] = i > 0 ? t->up[i - 1] : 0.0;
    up_t[i] = i < n - 1 ? t->lo[i + 1] : 0.0;
  }
  tridiag_solve(n, lo_t, t->diag, up_t, d_x, lambda);
  for (int i = 0; i < n; i++) {
    d_rhs[i] += lambda[i];
    d_diag[i] -= lambda[i] * t->x[i];
    if (i > 0) d_lo[i] -= lambda[i] * t->x[i - 1];
    if (i < n - 1) d_up[i] -= lambda[i] * t->x[i + 1];
    d_x[i] = 0.0; /* x was overwritten by the solve */
  }
  free(lo_t); free(up_t); free(lambda);
  free(t->lo); free(t->diag); free(t->up); free(t->x); free(t);
}

/* forward: A dx = drhs - dA x */
void tridiag_solve_fwd(int n, const double *lo, const double *d_lo, const double *diag,
                       const double *d_diag, const double *up, const double *d_up,
                       const double *rhs, const double *d_rhs, double *x, double *d_x) {
  tridiag_solve(n, lo, diag, up, rhs, x);
  double *r = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) {
    r[i] = d_rhs[i] - d_diag[i] * x[i];
    if (i > 0) r[i] -= d_lo[i] * x[i - 1];
    if (i < n - 1) r[i] -= d_up[i] * x[i + 1];
  }
  tridiag_solve(n, lo, diag, up, r, d_x);
  free(r);
}

void *__enzyme_register_gradient_tridiag_solve[] = {
    (void *)tridiag_solve, (void *)tridiag_solve_aug, (void *)tridiag_solve_rev};
void *__enzyme_register_derivative_tridiag_solve[] = {
    (void *)tridiag_solve, (void *)tridiag_solve_fwd};

/* -- the model ------------------------------------------------------------------------- */

enum { N = 12, STEPS = 6 };
static const double DT = 0.05, H = 1.0 / (N + 1);

/* one backward Euler step u <- (I - dt K)^-1 (u + dt s(u)) with K the conductivity
   Laplacian; the scratch system lives on the heap */
static void implicit_step(const double *kappa, double *u, int n) {
  double *lo = malloc(sizeof(double) * (size_t)n), *diag = malloc(sizeof(double) * (size_t)n);
  double *up = malloc(sizeof(double) * (size_t)n), *rhs = malloc(sizeof(double) * (size_t)n);
  double r = DT / (H * H);
  for (int i = 0; i < n; i++) {
    double kl = i > 0 ? 0.5 * (kappa[i] + kappa[i - 1]) : kappa[i];
    double kr = i < n - 1 ? 0.5 * (kappa[i] + kappa[i + 1]) : kappa[i];
    lo[i] = -r * kl;
    up[i] = -r * kr;
    diag[i] = 1.0 + r * (kl + kr);
    rhs[i] = u[i] + DT * sin(u[i]); /* a nonlinear source */
  }
  tridiag_solve(n, lo, diag, up, rhs, u);
  free(lo); free(diag); free(up); free(rhs);
}

static void simulate(const double *kappa, double *u, int n, int steps) {
  for (int s = 0; s < steps; s++) implicit_step(kappa, u, n);
}

/* misfit of the final temperature against a target, plus a smoothness penalty */
double heat_objective(const double *kappa, const double *u0, int n, int steps) {
  double u[N];
  for (int i = 0; i < n; i++) u[i] = u0[i];
  simulate(kappa, u, n, steps);
  double f = 0.0;
  for (int i = 0; i < n; i++) {
    double target = 0.3 * sin(3.0 * (i + 1) * H);
    f += (u[i] - target) * (u[i] - target);
  }
  for (int i = 1; i < n; i++) f += 0.01 * (kappa[i] - kappa[i - 1]) * (kappa[i] - kappa[i - 1]);
  return f;
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "MISMATCH %s: got %.12g, want %.12g\n", what, got, want);
    abort();
  }
}

int main(void) {
  double kappa[N], u0[N];
  for (int i = 0; i < N; i++) {
    kappa[i] = 0.6 + 0.3 * cos(0.7 * i);
    u0[i] = sin(M_PI * (i + 1) * H) + 0.2 * (i % 3);
  }
  /* reverse mode, combined */
  double dk[N] = {0}, du[N] = {0};
  __enzyme_autodiff((void *)heat_objective, enzyme_dup, kappa, dk, enzyme_dup, u0, du,
                    enzyme_const, N, enzyme_const, STEPS);
  /* finite differences */
  const double eps = 1e-6;
  for (int i = 0; i < N; i++) {
    double kp[N], km[N], up[N], um[N];
    memcpy(kp, kappa, sizeof kp); memcpy(km, kappa, sizeof km);
    memcpy(up, u0, sizeof up); memcpy(um, u0, sizeof um);
    kp[i] += eps; km[i] -= eps; up[i] += eps; um[i] -= eps;
    double fdk = (heat_objective(kp, u0, N, STEPS) - heat_objective(km, u0, N, STEPS)) / (2 * eps);
    double fdu = (heat_objective(kappa, up, N, STEPS) - heat_objective(kappa, um, N, STEPS)) / (2 * eps);
    check("d/dkappa (reverse)", dk[i], fdk, 1e-6);
    check("d/du0 (reverse)", du[i], fdu, 1e-6);
  }
  /* reverse mode, split: the tape of every solve survives until __enzyme_reverse */
  double dk2[N] = {0}, du2[N] = {0};
  void *tape = __enzyme_augmentfwd((void *)heat_objective, enzyme_dup, kappa, dk2, enzyme_dup,
                                   u0, du2, enzyme_const, N, enzyme_const, STEPS);
  __enzyme_reverse((void *)heat_objective, enzyme_dup, kappa, dk2, enzyme_dup, u0, du2,
                   enzyme_const, N, enzyme_const, STEPS, 1.0, tape);
  for (int i = 0; i < N; i++) {
    check("d/dkappa (split)", dk2[i], dk[i], 1e-12);
    check("d/du0 (split)", du2[i], du[i], 1e-12);
  }
  /* forward mode: a directional derivative = <gradient, direction> */
  double vk[N], vu[N], dot = 0.0;
  for (int i = 0; i < N; i++) {
    vk[i] = cos(1.3 * i);
    vu[i] = 0.5 - 0.1 * i;
    dot += dk[i] * vk[i] + du[i] * vu[i];
  }
  double tangent = __enzyme_fwddiff((void *)heat_objective, enzyme_dup, kappa, vk,
                                    enzyme_dup, u0, vu, enzyme_const, N, enzyme_const, STEPS);
  double kp[N], km[N], up[N], um[N];
  for (int i = 0; i < N; i++) {
    kp[i] = kappa[i] + eps * vk[i]; km[i] = kappa[i] - eps * vk[i];
    up[i] = u0[i] + eps * vu[i]; um[i] = u0[i] - eps * vu[i];
  }
  double fd = (heat_objective(kp, up, N, STEPS) - heat_objective(km, um, N, STEPS)) / (2 * eps);
  check("directional derivative (forward)", tangent, fd, 1e-6);
  check("forward vs reverse", tangent, dot, 1e-10);
  /* the solver's own derivatives, asked for directly (a function irgrad has no body of):
     the dot-product test <xbar, J v> = <J^T xbar, v> over all of (lo, diag, up, rhs) */
  double lo[N], diag[N], upp[N], rhs[N], x[N], xbar[N];
  double vlo[N], vdiag[N], vup[N], vrhs[N], dx[N];
  double blo[N] = {0}, bdiag[N] = {0}, bup[N] = {0}, brhs[N] = {0};
  for (int i = 0; i < N; i++) {
    lo[i] = -0.4 - 0.01 * i; upp[i] = -0.3 + 0.02 * i; diag[i] = 2.0 + 0.1 * sin(i);
    rhs[i] = cos(0.5 * i);
    vlo[i] = sin(2.0 * i); vdiag[i] = cos(3.0 * i); vup[i] = sin(0.3 * i + 1); vrhs[i] = 1.0 / (1 + i);
    xbar[i] = cos(1.7 * i);
  }
  __enzyme_fwddiff((void *)tridiag_solve, enzyme_const, N, enzyme_dup, lo, vlo, enzyme_dup, diag,
                   vdiag, enzyme_dup, upp, vup, enzyme_dup, rhs, vrhs, enzyme_dup, x, dx);
  double xbar_copy[N];
  memcpy(xbar_copy, xbar, sizeof xbar);
  __enzyme_autodiff((void *)tridiag_solve, enzyme_const, N, enzyme_dup, lo, blo, enzyme_dup,
                    diag, bdiag, enzyme_dup, upp, bup, enzyme_dup, rhs, brhs, enzyme_dup, x,
                    xbar_copy);
  double lhs = 0.0, rhs_dot = 0.0;
  for (int i = 0; i < N; i++) {
    lhs += xbar[i] * dx[i];
    rhs_dot += blo[i] * vlo[i] + bdiag[i] * vdiag[i] + bup[i] * vup[i] + brhs[i] * vrhs[i];
  }
  /* lo[0] and up[N-1] are not part of the matrix: their derivatives are zero */
  check("dot-product test of the solver's custom derivatives", lhs, rhs_dot, 1e-10);
  printf("OK\n");
  return 0;
}
